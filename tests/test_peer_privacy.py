"""Privacy by uniform messages (issue #12): every message a page sends, and whether it sends it,
depends only on public information and on what the rules reveal. Games that differ only in
hidden choices produce the same message *types in the same sequence*, and the same payloads
but for random-looking values (salts, hashes, the transfers' points and tables): a king move is
told refused only to the player who tries it (issue #23, see test_peer_tries.py)."""

from __future__ import annotations

import random

import pytest

from hiddenchess.engine.core import SQUARE_INDEX
from hiddenchess.peer import decode

from test_peer_support import Pair, random_game
from test_peer_protocol import SP_MOVES, _before_final, play, verified

QXF7 = ["e2e4", "e7e5", "d1h5", "b8c6", "h5f7", "e8f7"]


def types(texts) -> list:
    return [decode(t)["t"] for t in texts]


def run(seals, moves, seed=0):
    """Play ``moves`` with the sealed pawns ``seals``, then White resigns: both message streams."""
    p = Pair("secret-pawn", seals=seals, seed=seed)
    trace = []
    for m in moves:
        me = p.side(p.w.turn)
        king = me.local.position.piece_at(SQUARE_INDEX[m[:2]])[1] == 6
        # (what the old scheme asked on: "only king moves left" depends on one's own secrets)
        trace.append(all(me.local.position.piece_at(SQUARE_INDEX[u[:2]])[1] == 6
                         for u in me.local.legal_moves()) if king else None)
        p.move(m)
    p.w.resign()
    p.pump()
    verified(p)
    return p, trace


@pytest.mark.parametrize("moves, white, blacks", [
    # After 3.Qxf7+ Black's king must take: with g7 secret, g7xf7 (an extra capture) is a second
    # answer, so whether "only king moves are left" -- the old reason to ask -- depends on
    # Black's own secret: the old page asked exactly when g7 was not secret.
    (QXF7, ["a2", "b2"], (["a7", "b7"], ["g7", "h7"], ["d7", "g7"], ["c7", "h7"])),
    # White's king on d5: its question about d5c4 and d5e5 goes out whatever Black sealed.
    (SP_MOVES + ["a2a3"], ["c2", "d2"], (["b7", "f7"], ["a7", "b7"], ["b7", "h7"], ["f7", "g7"])),
])
def test_message_types_and_sequence_do_not_depend_on_hidden_choices(moves, white, blacks):
    runs = [run((white, black), moves, seed=i) for i, black in enumerate(blacks)]
    streams = [(types(p.sent["white"]), types(p.sent["black"])) for p, _ in runs]
    assert all(s == streams[0] for s in streams), streams
    # The payloads too (random-looking values masked).
    for seat in ("white", "black"):
        payloads = [_before_final(p.sent[seat]) for p, _ in runs]
        assert all(x == payloads[0] for x in payloads), seat
    if moves is QXF7:
        # the old trigger really differs between these games, the messages do not
        olds = {tuple(trace) for _, trace in runs}
        assert len(olds) > 1, olds
        assert "probe" not in streams[0][1]
    else:
        assert types(runs[0][0].sent["white"]).count("probe") >= 1
        # (no answer names a refused move: the question is answered by a key, tries by tables)
        assert "probe-answer" not in streams[0][1] and "probe-key" in streams[0][1]


def test_the_question_does_not_depend_on_the_move_intended():
    # Whatever White plays after SP_MOVES (a king move or another), its page asked the same
    # question first: nothing about the intended move reaches Black's page before the move.
    streams = []
    for last in ("d5c4", "a2a3", "g1f3"):
        p = Pair("secret-pawn", seals=(["c2", "d2"], ["b7", "f7"]))
        play(p, SP_MOVES)
        before = list(p.sent["white"])
        assert types(before)[-1] == "probe"
        play(p, [last])
        streams.append(_before_final(before))
    assert streams[0] == streams[1] == streams[2]


def test_uniform_probes_keep_random_games_verified():
    # The question at every turn where an unopened pawn could refuse a king move: random games
    # with many king moves verify, and the questions really happen.
    asked = 0
    for seed in (5, 11, 23):
        rnd = random.Random(seed)
        seals = (sorted(rnd.sample([f + "2" for f in "abcdefgh"], 2)),
                 sorted(rnd.sample([f + "7" for f in "abcdefgh"], 2)))
        p = Pair("secret-pawn", seals=seals, seed=seed)
        random_game(p, seed, max_ply=120, kingy=True)
        verified(p)
        assert p.w.status() == p.b.status()
        asked += sum(1 for a in p.w.attempts if a["kind"] == "probe" and a["moves"])
        # no refusal answer to a move: every try the truth refuses was asked about first
        assert not any(a["kind"] == "move" and a["answer"] and not a["answer"]["ok"]
                       for a in p.w.attempts + p.b.attempts)
    assert asked >= 3
