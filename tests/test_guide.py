"""The start screen's cards and the in-app rules pages (hiddenchess.app.guide): every variant
has a card; every example on a rules page is played by the engine and shows what its text says
(the Secret Pawn examples are the six of secret-pawn-chess.txt)."""

from pathlib import Path

import pytest

from hiddenchess.app.guide import guide_card, guide_ids, guide_page
from hiddenchess.app.panels import variant_menu
from hiddenchess.engine.variant import VARIANTS
from hiddenchess.errors import UnknownVariantError

ROOT = Path(__file__).resolve().parent.parent


def test_every_menu_entry_has_a_card_with_a_picture_that_exists():
    for entry in variant_menu():
        assert 1 <= len(entry["how"]) <= 2 and all(line.strip() for line in entry["how"])
        assert (ROOT / "assets" / "img" / entry["icon"]).is_file(), entry["icon"]
    hints = {e["id"]: e["hint"] for e in variant_menu()}
    for vid in ("royal-pawn", "secret-pawn", "reveal", "hidden-identity"):
        assert len(hints[vid]) > 40, vid


def test_the_setup_words_of_a_hint_go_once_the_setup_is_made():
    """Issue 25: "Choose your two secret pawns" stayed up after sealing."""
    menu = {e["id"]: e for e in variant_menu()}
    assert menu["secret-pawn"]["setupHint"].startswith("Choose your two secret pawns")
    assert "Choose" not in menu["secret-pawn"]["hint"] and "necktie" in menu["secret-pawn"]["hint"]
    assert menu["royal-pawn"]["setupHint"] == menu["royal-pawn"]["hint"]   # (no setup)


def test_every_variant_has_a_rules_page():
    assert set(guide_ids()) == set(VARIANTS)
    for vid in VARIANTS:
        page = guide_page(vid)
        assert page["sections"], vid
        for section in page["sections"]:
            assert section["title"] and all(p.strip() for p in section["paragraphs"])


def test_an_unknown_variant_is_refused():
    with pytest.raises(UnknownVariantError):
        guide_page("no-such-variant")
    with pytest.raises(UnknownVariantError):
        guide_card("no-such-variant")


#: The six examples of secret-pawn-chess.txt: the move, what it reveals.
SECRET_PAWN = [
    ("A sideways move reveals the pawn", "de4 **e4", ["e4"]),
    ("A forward move gives check and reveals the pawn", "d5+ **d5", ["d5"]),
    ("A rook move reveals a pawn", "Rh4 **c4", ["c4"]),
    ("A bishop's shared threat keeps the pawn hidden", "Rh4", []),
    ("Two pawns reveal together", "Rh4 **c4,d5", ["c4", "d5"]),
    ("Capture reveals the captured pawn", "exd5 **", ["d5"]),
]


def test_the_six_secret_pawn_examples_show_what_their_text_says():
    examples = guide_page("secret-pawn")["examples"]
    assert [(e["title"], e["frames"][-1]["san"], e["frames"][-1]["reveals"]) for e in examples] == SECRET_PAWN
    for ex in examples:
        before, after = ex["frames"]
        assert before["reveals"] == [] and before["san"] is None and before["lastMove"] is None
        assert before["marks"]["revealed"] == []           # all hidden at the start
        assert before["marks"]["necktie"]                  # (the pictures show the neckties)
        assert after["marks"]["revealed"] == [s for s in after["reveals"] if s in after["marks"]["necktie"]]
        assert ex["outline"] and ex["text"]
    # Example 2 gives check on d6; example 6's captured pawn leaves the board with its necktie.
    assert examples[1]["frames"][1]["check"] == "d6"
    assert examples[5]["frames"][1]["marks"]["necktie"] == []
    # Example 1's text: an ordinary d4-d5 would not have revealed the pawn.
    from hiddenchess.game.game import Game
    g = Game.new("secret-pawn", "4k3/8/8/8/3P4/8/8/4K3 w - - 0 1 secret:d4")
    assert [e.kind for e in g.play("d4d5").events] == ["move"]


def test_royal_pawn_page_warns_of_the_two_move_mate_and_shows_it():
    page = guide_page("royal-pawn")
    assert "1.e4 d5+ 2.e5 Nc6" in page["warning"]
    frames = page["examples"][0]["frames"]
    assert [f["san"] for f in frames] == [None, "e4", "d5+", "e5", "Nc6#"]
    assert frames[-1]["message"] == "Checkmate — Black wins" and frames[-1]["check"] == "e5"
    assert frames[0]["marks"]["crown"] == ["e2", "e7"]


def test_the_reveal_example_always_draws_the_same_role():
    for _ in range(3):
        frames = guide_page("reveal")["examples"][0]["frames"]
        assert frames[1]["san"] == "Ra3?N" and frames[1]["reveals"] == ["a3"]
        assert frames[0]["marks"]["covered"] == ["a1"] and frames[1]["marks"]["covered"] == []


def test_every_example_is_turned_towards_the_side_that_acts():
    """Issue 25: Royal Pawn's mate in two opened with White to move, yet Black mates."""
    mate = guide_page("royal-pawn")["examples"][0]
    assert mate["orientation"] == "black" and "Black" in mate["title"]
    for vid in guide_ids():
        for ex in guide_page(vid)["examples"]:
            assert ex["orientation"] in ("white", "black"), (vid, ex["title"])
            winner = ex["frames"][-1]["message"]
            if winner and "wins" in winner:             # the side that wins is the side shown
                assert winner.endswith(f"{ex['orientation'].title()} wins"), (vid, ex["title"])


def test_the_reveal_page_explains_its_question_mark_notation():
    page = guide_page("reveal")
    notation = next(s for s in page["sections"] if s["title"] == "Notation")
    assert "Ra3?N" in notation["paragraphs"][0] and "?" in notation["paragraphs"][0]
    ex = page["examples"][0]
    assert "Ra3?N" in ex["text"]
    assert [f["san"] for f in ex["frames"]] == [None, "Ra3?N", "h6", "Nb5"]
    assert all(f["message"] is None for f in ex["frames"])     # (no puzzling draw at the end)


def _hidden_identity_examples():
    return {ex["title"]: ex for ex in guide_page("hidden-identity")["examples"]}


def test_hidden_identity_examples_show_the_rules_of_its_text():
    """Issue 25: free setup, a king left attacked and taken, en passant against a non-pawn (the
    capturing pawn is removed), and each castling case of hidden-identity-chess.txt."""
    ex = _hidden_identity_examples()
    setup = ex["A free setup"]["frames"]
    assert setup[0]["board"].endswith("/PNBRBKRP")       # pawns on the first row, dark bishops
    assert setup[-1]["lastMove"] == ["a1", "a3"]          # a first-row pawn's double step

    king = ex["A king left attacked is taken"]
    assert king["orientation"] == "black"
    assert king["frames"][1]["check"] is None             # no check
    assert king["frames"][-1]["message"] == "King captured — Black wins"
    assert king["frames"][-1]["board"] == "7k/8/8/8/8/8/R7/4q3"

    ep = ex["En passant against a piece that is not a pawn"]
    assert ep["orientation"] == "black"
    before, after = ep["frames"][1]["board"], ep["frames"][2]["board"]
    assert before == "4k3/8/8/8/1Rp5/8/8/4K3"
    assert after == "4k3/8/8/8/1R6/8/8/4K3"               # Black's pawn gone, the rook stays
    assert "not a pawn" in ep["captions"][2].lower()

    castles = {
        "Castling with a rook three or more squares away": "4k3/8/8/8/8/8/8/2KR4",
        "Castling with a rook two squares away": "4k3/8/8/8/8/8/8/5RK1",
        "Castling with an adjacent rook": "4k3/8/8/8/8/8/8/4RK2",
        "Castling on the second row": "4k3/8/8/8/8/8/2KR4/8",
    }
    for title, board in castles.items():
        assert ex[title]["frames"][-1]["board"] == board, title
        assert "castle" in ex[title]["frames"][-1]["san"], title
