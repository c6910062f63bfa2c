"""The marks of the analysis after the game (assets/js/judgment.js: ?!, ?, ??), run in Node by
tests/js/judgment.mjs: the loss in the mover's winning chances between the analyses of the
positions before and after each move, as lichess marks them."""

from nodejs import run_script


def test_marks_from_the_evaluations():
    out = run_script("judgment.mjs")
    assert out["chances"] == [0, 0.502, 1, -1, -1, 1, 0, None, None]
    assert out["blunder"]["mark"] == "??" and out["blunder"]["name"] == "Blunder"
    assert out["mistake"]["mark"] == "?" and 0.2 <= out["mistake"]["loss"] < 0.3
    assert out["good"] is None and out["missing"] is None
    # both sides' moves from everything; one side's own from what it knew
    assert {k: v["mark"] for k, v in out["all"].items()} == {"0": "??", "1": "??"}
    assert set(out["white"]) == {"0"} and set(out["black"]) == {"1"}
