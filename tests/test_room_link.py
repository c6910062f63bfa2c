"""A friend link (assets/js/signal/room.js) whose connection Trystero replaced, or lost without a
word: the two pages close and open their channel again, so the game resyncs and nothing sent
meanwhile stays lost; a page bound to a friend Trystero no longer has stops saying "connected".
And strangers in the room (a leaked invite link) take nothing over: the pages prove to each other
that they know the pair's key, bound to the connection (signal/handshake.js). Run in Node over a
fake Trystero (tests/js/room_replaced.mjs, tests/js/room_hostile.mjs)."""

from __future__ import annotations

import pytest

from nodejs import run_script


@pytest.fixture(scope="module")
def result():
    return run_script("room_replaced.mjs", timeout=60)


def test_the_two_pages_meet_and_talk(result):
    assert result["met"] == {"host": "open", "guest": "open", "hostLog": ["open"], "guestLog": ["open"],
                             "expect": "b" * 32}
    assert result["firstMessage"] == "msg one"


@pytest.mark.parametrize("whose", ["host", "guest", "both"])
def test_a_replaced_connection_closes_and_opens_both_channels_once(result, whose):
    # (a message went over the dropped connection: the reopened channels' resync brings it back)
    assert result[f"{whose}Replaced"] == {"host": "open", "guest": "open", "hostLog": ["close lost", "open"],
                                          "guestLog": ["close lost", "open"]}


def test_messages_go_through_after_the_replacements(result):
    assert result["after"] == {"hostLog": ["msg three"], "guestLog": ["msg four"]}


def test_a_friend_trystero_no_longer_has_is_let_go_after_two_looks(result):
    assert result["ghostAfterOneLook"] == "open"  # (one look: a replacement may be under way)
    assert result["ghost"] == {"host": "connecting", "bound": None, "hostLog": ["close lost"], "lost": 1}


def test_the_script_waits_for_the_handshake_however_slow_the_crypto(result):
    # The pages' handshake runs on WebCrypto, off the event loop, and a busy machine may take any
    # number of turns for it: fake_trystero.settle waits until no operation is under way, not a
    # fixed number of turns. With each operation held back 30 ms (far more than 40 turns), the
    # script sees the same states; a fixed wait saw the host still "connecting".
    assert run_script("room_replaced.mjs", timeout=60, env={"HC_SLOW_CRYPTO": "30"}) == result


# ---- strangers in the room (tests/js/room_hostile.mjs): anyone with a leaked invite link can join


@pytest.fixture(scope="module")
def hostile():
    return run_script("room_hostile.mjs", timeout=60)


def test_two_pages_meet_prove_themselves_and_remember_each_other(hostile):
    assert hostile["met"] == {"states": ["open:G", "open:H"], "hostLog": ["open"], "guestLog": ["open"],
                              "saved": {"accepted": "b" * 32, "guestAccepted": "a" * 32, "confirmed": True}}


def test_a_stranger_in_the_room_hears_hellos_and_no_token(hostile):
    assert hostile["strangerHeard"] == {"kinds": ["G:hello", "H:hello"], "tokens": 0}


def test_replaying_what_a_stranger_heard_takes_nothing_over(hostile):
    after = hostile["afterReplay"]
    # (the pages stay bound to each other, their channels never closed, and messages still pass)
    assert after["states"] == ["open:G", "open:H"]
    assert after["hostLog"] == ["open"] and after["guestLog"] == ["open"]
    assert after["message"] == "msg still here"
    assert after["toStranger"][-1] == "H:taken"  # (its own claim of the game)


def test_a_device_in_the_middle_cannot_pass_the_proofs_on(hostile):
    assert hostile["middle"]["relayed"] >= 4
    assert [s.split(":")[1] for s in hostile["middle"]["states"]] == ["null", "null"]
    # (the connection's fingerprints are what stop it: with the other page's certificate, which a
    # real device cannot show without its private key, the relayed proofs would bind)
    assert hostile["middleWithTheirCertificates"]["states"] == ["open:M", "open:M"]


def test_a_connection_without_fingerprints_binds_nothing(hostile):
    assert [s.split(":")[1] for s in hostile["noFingerprints"]["states"]] == ["null", "null"]


def test_a_stranger_who_overheard_the_first_claim_gets_no_welcome_once_the_guest_proved_itself(hostile):
    assert hostile["overheardClaim"] is True
    assert hostile["overheardMet"] == {"states": ["open:G", "open:H"], "confirmed": True}
    assert hostile["overheardReplay"] == {"states": ["open:G", "open:H"], "answers": []}


def test_a_guest_that_reloaded_before_the_welcome_is_welcomed_again(hostile):
    r = hostile["reloadBeforeWelcome"]
    assert (r["accepted"], r["confirmed"], r["bound"]) == ("b" * 32, False, "G1")
    assert r["after"] == {"states": ["open:G2", "open:H"], "confirmed": True, "guestKnows": "a" * 32}


def test_a_flood_of_hellos_gets_a_burst_of_answers_and_leaves_the_pair_alone(hostile):
    # (20 answered at once, then one every 2 s; kinds such as "constructor" are no handlers)
    assert hostile["flood"] == {"answered": 20, "states": ["open:G", "open:H"]}
