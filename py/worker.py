"""PyScript worker of the page: the computer opponent thinks here, off the main thread.

``assets/js/computer.js`` starts this file in a Web Worker (``PyWorker("./py/worker.py", {config:
"./pyscript.toml"})``) and calls the one function it exports::

    await worker.sync.choose(viewJson: string, level: number) -> answerJson: string

``viewJson`` is ``Game.view(seat).to_json()`` of the computer's seat, as the session hands it to
the page (``state["computer"]["request"]["view"]``): the worker never sees the game itself. The
answer is :func:`hiddenchess.ai.choose_move`'s dict as JSON (``{"uci", "san", "score", ...}``),
or ``{"error": "..."}`` when the view cannot be played; the page hands the UCI back to the session
(action ``computer_move``), which checks it like any move.

Like ``py/main.py`` this is a thin adapter: the search itself is pure Python, tested under CPython.
"""

import json

from pyscript import sync

from hiddenchess.ai import choose_move
from hiddenchess.errors import HiddenChessError


def choose(view_json, level):
    """The computer's answer for ``view_json`` at ``level`` (1..5), as a JSON string."""
    try:
        answer = choose_move(json.loads(str(view_json)), int(level))
    except (HiddenChessError, ValueError, TypeError) as e:
        answer = {"error": f"{type(e).__name__}: {e}"}
    return json.dumps(answer)


sync.choose = choose
