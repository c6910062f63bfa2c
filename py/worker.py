"""PyScript worker of the page: the computer opponent thinks here, off the main thread.

``assets/js/computer.js`` starts this file in a Web Worker (``PyWorker("./py/worker.py", {config:
"./pyscript.toml"})``) and calls the functions it exports::

    await worker.sync.choose(viewJson: string, level: number[, seed: number]) -> answerJson: string

``viewJson`` is ``Game.view(seat).to_json()`` of the computer's seat, as the session hands it to
the page (``state["computer"]["request"]["view"]``): the worker never sees the game itself. The
answer is :func:`hiddenchess.ai.choose_move`'s dict as JSON (``{"uci", "san", "score", ...}``),
or ``{"error": "..."}`` when the view cannot be played; the page hands the UCI back to the session
(action ``computer_move``), which checks it like any move. ``seed`` (the page passes none: every
game differs) makes the answer reproducible, as in :func:`hiddenchess.ai.choose_move`; the
benchmark ``bench/ai_browser.py`` passes one to compare the search here with CPython's.

``await worker.sync.analyse(requestJson[, nodes]) -> answerJson`` analyses one position of a finished game's
replay (:func:`hiddenchess.ai.analysis.analyse`): the request is ``hc.analysis()``'s
(:func:`hiddenchess.app.analysis.analysis_request`), a seat's view, plus the truth of that moment
for the replay's "everything"; the answer is the evaluation and best move, or ``{"error"}``.

``await worker.sync.ponder(viewJson, level, nodes) -> answerJson`` thinks on the player's time
(:func:`hiddenchess.ai.ponder.ponder`): ``viewJson`` is the computer's seat's view after its own
move (``state["computer"]["ponder"]``), searched for ``nodes`` (one slice; the page asks again
while the player still thinks) into :data:`MEMORY`, where the next ``choose`` finds it. The
answer is ``{"nodes", "depth", "pv"}`` (``nodes`` 0: nothing to do) or ``{"error"}``.

``await worker.sync.warm([nodes]) -> answerJson`` runs a small answer that is thrown away
(:func:`hiddenchess.ai.warm_up`): computer.js asks for two as the worker starts, so that its
first real answers are as fast as the later ones.

Like ``py/main.py`` this is a thin adapter: the search itself is pure Python, tested under CPython.
"""

import json

import js
from pyscript import sync

from hiddenchess.ai import WARM_UP_NODES, SearchMemory, choose_move, warm_up
from hiddenchess.ai.analysis import ANALYSIS_NODES, analyse as analyse_request
from hiddenchess.ai.ponder import ponder as ponder_view
from hiddenchess.errors import HiddenChessError


#: The search's tables kept from one move to the next (:mod:`hiddenchess.ai.memory`), for as
#: long as this worker lives: one per variant, level and seat.
MEMORY = SearchMemory()


def choose(view_json, level, seed=None):
    """The computer's answer for ``view_json`` at ``level`` (1..5), as a JSON string. Without a
    seed (the page's games) the search starts from what the last move's search found
    (:data:`MEMORY`); with one (``bench/ai_browser.py``) it starts afresh, so that the answer is
    the one CPython gives for the same view and seed."""
    try:
        answer = choose_move(json.loads(str(view_json)), int(level),
                             seed=None if seed is None else int(seed),
                             memory=MEMORY if seed is None else None)
    except (HiddenChessError, ValueError, TypeError) as e:
        answer = {"error": f"{type(e).__name__}: {e}"}
    return json.dumps(answer)


def ponder(view_json, level, nodes):
    """One slice of thinking on the player's time, as a JSON string (see the module docstring)."""
    try:
        answer = ponder_view(json.loads(str(view_json)), int(level), memory=MEMORY,
                             max_nodes=min(int(nodes), MAX_PONDER_NODES))
    except (HiddenChessError, ValueError, TypeError) as e:
        answer = {"error": f"{type(e).__name__}: {e}"}
    return json.dumps(answer)


#: The largest slice of pondering the worker accepts.
MAX_PONDER_NODES = 50_000

#: The largest analysis budget the worker accepts (a few seconds' search).
MAX_ANALYSIS_NODES = 200_000


def analyse(request_json, nodes=None):
    """The analysis of one replayed position (:func:`hiddenchess.ai.analysis.analyse`) with a
    budget of ``nodes`` (default: :data:`~hiddenchess.ai.analysis.ANALYSIS_NODES`), as a JSON
    string; ``{"error": ...}`` when the request cannot be analysed."""
    try:
        budget = ANALYSIS_NODES if nodes is None else min(int(nodes), MAX_ANALYSIS_NODES)
        answer = analyse_request(json.loads(str(request_json)), max_nodes=budget)
    except (HiddenChessError, ValueError, TypeError) as e:
        answer = {"error": f"{type(e).__name__}: {e}"}
    return json.dumps(answer)


def warm(nodes=None):
    """A small answer for Standard's start position (:func:`hiddenchess.ai.warm_up`), as a JSON
    string like :func:`choose`'s: the page asks for two as the worker starts, and drops them."""
    return json.dumps(warm_up(WARM_UP_NODES if nodes is None else int(nodes)))


def started_from():
    """How this worker's Python started: ``"snapshot"`` or ``"fresh"``
    (``assets/js/pyodide-boot.js``), shown on the page as ``body[data-ai-started-from]``."""
    report = getattr(js, "hcPyodideBoot", None)
    return str(report.path) if report is not None else "fresh"


sync.choose = choose
sync.warm = warm
sync.analyse = analyse
sync.ponder = ponder
sync.started_from = started_from
