"""JSON from outside the program, read safely: the size, the nesting depth and the numbers are
bounded *before* the text is parsed.

Everything that arrives from a place the program does not control goes through :func:`loads`:
a saved game from localStorage (which another tab, an extension or a damaged disk may have
written), the page's action arguments, and a peer's messages. Python's own parser recurses once
per nesting level, so a text nested 10,000 levels deep exhausts the stack (under Pyodide, fatally
for the whole page); numbers such as ``1e999`` or a 5,000-digit integer cost time or turn into
``inf``. :func:`loads` refuses all of them with one named error.

>>> loads('{"a": [1, 2.5, "x", null, true]}')
{'a': [1, 2.5, 'x', None, True]}
>>> loads("[" * 200 + "]" * 200)
Traceback (most recent call last):
...
hiddenchess.safejson.UnsafeJsonError: the data is nested more than 64 levels deep
>>> loads('{"n": 1e999}')
Traceback (most recent call last):
...
hiddenchess.safejson.UnsafeJsonError: the number 1e999 is out of range
>>> loads('"[[[[ brackets inside a string do not count"', max_depth=1)
'[[[[ brackets inside a string do not count'
"""

import json
import math
import re

from hiddenchess.errors import HiddenChessError

__all__ = ["UnsafeJsonError", "loads", "MAX_DEPTH", "MAX_NUMBER_CHARS"]

#: Deepest nesting of arrays and objects accepted by default (saved games need about 8).
MAX_DEPTH = 64
#: Longest number literal accepted (a 64-bit integer has 20 characters with its sign).
MAX_NUMBER_CHARS = 24
#: The largest magnitude a number may have (a 64-bit seed fits; no clock, ply or count comes close).
MAX_MAGNITUDE = 2 ** 64

_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKET = re.compile(r"[\[\]{}]")


class UnsafeJsonError(HiddenChessError):
    """The text is not JSON this program accepts: too large, too deep, a number out of range, or
    not JSON at all. The message says which, in words a player can read."""


def nesting_depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` in ``text``, ignoring brackets inside strings
    (``-1`` when a closing bracket has no opening one).

    >>> nesting_depth('{"a": [[1], {"b": "]]]"}]}')
    3
    """
    depth = deepest = 0
    for m in _BRACKET.finditer(_STRING.sub('""', text)):
        if m.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
            if depth < 0:
                return -1
    return deepest


def _number(literal: str, value):
    if len(literal) > MAX_NUMBER_CHARS or not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
        raise UnsafeJsonError(f"the number {literal[:MAX_NUMBER_CHARS]} is out of range")
    return value


def _int(literal: str) -> int:
    if len(literal) > MAX_NUMBER_CHARS:
        raise UnsafeJsonError(f"the number {literal[:MAX_NUMBER_CHARS]}... is out of range")
    return _number(literal, int(literal))


def _float(literal: str) -> float:
    if len(literal) > MAX_NUMBER_CHARS:
        raise UnsafeJsonError(f"the number {literal[:MAX_NUMBER_CHARS]}... is out of range")
    return _number(literal, float(literal))


def _constant(name: str):
    raise UnsafeJsonError(f"{name} is not a number JSON allows")


def loads(text, *, max_bytes: "int | None" = None, max_depth: int = MAX_DEPTH):
    """Parse ``text`` (``str`` or UTF-8 ``bytes``) as JSON, refusing with
    :class:`UnsafeJsonError` a text over ``max_bytes`` (UTF-8 bytes, ``None``: no limit), nested
    deeper than ``max_depth``, holding a number out of range (``NaN``, ``Infinity``, more than
    :data:`MAX_NUMBER_CHARS` characters, or beyond 2^64), or not JSON at all.

    >>> loads("[1, 2", max_bytes=100)
    Traceback (most recent call last):
    ...
    hiddenchess.safejson.UnsafeJsonError: not JSON: Expecting ',' delimiter (line 1, column 6)
    >>> loads("x" * 20, max_bytes=10)
    Traceback (most recent call last):
    ...
    hiddenchess.safejson.UnsafeJsonError: the data is larger than 10 bytes
    """
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise UnsafeJsonError("the data is not UTF-8 text") from None
    if not isinstance(text, str):
        raise UnsafeJsonError(f"expected JSON text, got {type(text).__name__}")
    if max_bytes is not None and (len(text) > max_bytes or len(text.encode("utf-8")) > max_bytes):
        raise UnsafeJsonError(f"the data is larger than {max_bytes} bytes")
    if nesting_depth(text) > max_depth:
        raise UnsafeJsonError(f"the data is nested more than {max_depth} levels deep")
    try:
        return json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant)
    except UnsafeJsonError:
        raise
    except (ValueError, RecursionError) as e:
        detail = e.msg if isinstance(e, json.JSONDecodeError) else str(e)
        where = f" (line {e.lineno}, column {e.colno})" if isinstance(e, json.JSONDecodeError) else ""
        raise UnsafeJsonError(f"not JSON: {detail}{where}") from None
