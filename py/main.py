"""PyScript entry of the page: the only Python that touches the browser.

It is deliberately thin. It wraps ``window.localStorage`` in the backend interface that
:mod:`hiddenchess.app.storage` expects, creates one :class:`hiddenchess.app.session.Session`, and gives
the page a bridge::

    window.hc.call(action: string, argsJson: string) -> stateJson: string
    window.hc.guide(variantId: string) -> rulesPageJson: string
    window.hc.exportGame(site) -> {pgn, record, fen, link, filename} | {error}: string
    window.hc.analysis([ply, perspective]) -> the analysis request of the replayed position
        (or of that one) | {error}: string

(the move list of the state as a change of the last one: :mod:`hiddenchess.app.wire`), where ``action`` is one of :func:`hiddenchess.app.session.actions` (``"restore"``, ``"move"``, the
variant's own such as ``"seal"``, ...), the answer is a :class:`hiddenchess.app.state.State`, and
the time of every action is ``performance.timeOrigin + performance.now()``: wall time at the
page's load, then a monotonic clock, so a change of the device's clock during a game cannot give
a player time (the page's clock display counts with the same time). Then it sets
``window.hcReady = true`` and fires the ``hc:ready`` event, which makes the board playable
(``assets/js/``).
"""

import json
import traceback

from pyodide.ffi import create_proxy
from pyscript import window

from hiddenchess.app.analysis import analysis_request
from hiddenchess.app.exchange import export_game as export_game_of
from hiddenchess.app.guide import guide_page
from hiddenchess.app.text import title
from hiddenchess.app.session import Session
from hiddenchess.errors import HiddenChessError
from hiddenchess.app.wire import Wire
from hiddenchess.safejson import UnsafeJsonError, loads as safe_loads

#: The largest action arguments the page sends (a peer message is at most 16 KB).
MAX_ARGS_BYTES = 1_000_000


_head = window.Function.new(
    "key", "n", "const v = window.localStorage.getItem(key); return v === null ? null : v.slice(0, n);")


class LocalStorageBackend:
    """``window.localStorage`` with the four methods :class:`hiddenchess.app.storage.Storage` uses,
    and ``get_head``.

    Errors (``QuotaExceededError``, ``SecurityError`` when storage is disabled) propagate as
    exceptions; ``Storage`` turns them into a warning for the player.
    """

    def _ls(self):
        return window.localStorage

    def get_item(self, key):
        value = self._ls().getItem(key)
        # JS null arrives as None or as pyodide's ``jsnull``, depending on the Pyodide version.
        return value if isinstance(value, str) else None

    def get_head(self, key, n):
        """The first ``n`` characters of the value (sliced in JavaScript: a long game's save is
        not copied into Python to read its revision)."""
        value = _head(key, n)
        return value if isinstance(value, str) else None

    def set_item(self, key, value):
        self._ls().setItem(key, value)

    def remove_item(self, key):
        self._ls().removeItem(key)

    def keys(self):
        ls = self._ls()
        return [str(ls.key(i)) for i in range(int(ls.length))]


session = Session(LocalStorageBackend())
#: The answers as JSON, the move list as a change of the last one sent (issue 17).
wire = Wire()


def call(action, args_json=None):
    """Run one Session action; always answer a JSON state string."""
    now_ms = int(window.performance.timeOrigin + window.performance.now())
    try:
        args = safe_loads(str(args_json), max_bytes=MAX_ARGS_BYTES) if args_json else {}
    except UnsafeJsonError as e:
        args = None
        bad = f"the arguments are not JSON ({e})"
    try:
        if args is None:
            state = session.state(now_ms=now_ms)
            state["error"] = f"Cannot run {action!r}: {bad}."
        else:
            state = session.dispatch(str(action), args, now_ms=now_ms)
    except Exception as e:  # a bug: keep the page alive and say what happened
        window.console.error(traceback.format_exc())
        if session.game is None:
            raise
        state = session.state(now_ms=now_ms)
        state["error"] = f"Internal error ({type(e).__name__}: {e}). The game is unchanged."
    return wire.encode(state)


def full():
    """The last answer in full, for a page that lost track of the move list."""
    return wire.full()


def guide(variant_id):
    """The rules page of a variant as JSON (:func:`hiddenchess.app.guide.guide_page`), or
    ``{"error": ...}`` for an unknown one."""
    try:
        return json.dumps(guide_page(str(variant_id)))
    except HiddenChessError as e:
        return json.dumps({"error": str(e)})


def _error_json(error) -> str:
    """``{"error": ...}``: the error's text as a sentence, for the page to show."""
    text = str(error).strip()
    return json.dumps({"error": title(text) + ("" if text.endswith(".") else ".")})


def export_game(site=None):
    """The game as PGN, JSON record, FEN and replay link (:func:`hiddenchess.app.exchange.export_game`)
    as JSON, or ``{"error": ...}`` while it may not be exported; ``site``: the page's address."""
    try:
        return json.dumps(export_game_of(session, site if isinstance(site, str) else None))
    except HiddenChessError as e:
        return _error_json(e)


def analysis(ply=None, perspective=None):
    """The analysis request of the position the replay of the finished game shows, or of ``ply``
    as ``perspective`` knew it (:func:`hiddenchess.app.analysis.analysis_request`), as JSON for
    the computer's worker, or ``{"error": ...}``."""
    try:
        return json.dumps(analysis_request(
            session, None if ply is None else int(ply),
            None if perspective is None else str(perspective)))
    except (HiddenChessError, ValueError, TypeError) as e:
        return _error_json(e)


_call_proxy = create_proxy(call)
_analysis_proxy = create_proxy(analysis)
_export_proxy = create_proxy(export_game)
_guide_proxy = create_proxy(guide)
_full_proxy = create_proxy(full)
hc = window.Object.new()
hc.call = _call_proxy
hc.full = _full_proxy
hc.guide = _guide_proxy
hc.exportGame = _export_proxy
hc.analysis = _analysis_proxy
window.hc = hc
window.hcReady = True
window.dispatchEvent(window.CustomEvent.new("hc:ready"))
