"""hiddenchess.safejson: size, depth and numbers are bounded before parsing; nothing but
UnsafeJsonError ever escapes."""

import doctest
import json

import pytest
from hypothesis import given, settings, strategies as st

from hiddenchess import safejson
from hiddenchess.errors import HiddenChessError
from hiddenchess.safejson import UnsafeJsonError, loads, nesting_depth

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 63, 2 ** 63) | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=30,
)


def test_doctests():
    result = doctest.testmod(safejson)
    assert result.attempted > 0 and result.failed == 0


@given(JSON_VALUES)
@settings(max_examples=300, deadline=None)
def test_ordinary_json_reads_as_json_does(value):
    text = json.dumps(value)
    assert loads(text) == json.loads(text)
    assert loads(text.encode("utf-8")) == json.loads(text)


@given(st.text(alphabet='[]{}",:0123456789.eE-+ntrufalsNIy\\x ', max_size=200))
@settings(max_examples=500, deadline=None)
def test_any_text_gives_a_value_or_unsafe_json_error(text):
    try:
        loads(text, max_bytes=150, max_depth=5)
    except UnsafeJsonError as e:
        assert isinstance(e, HiddenChessError) and str(e)


@pytest.mark.parametrize("depth", [10_000, 100_000])
def test_deep_nesting_is_refused_before_parsing(depth):
    for text in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth, "[" * depth):
        with pytest.raises(UnsafeJsonError, match="nested more than 64 levels deep"):
            loads(text)


def test_the_depth_limit_is_exact_and_strings_do_not_count():
    assert loads("[" * 64 + "]" * 64) is not None
    with pytest.raises(UnsafeJsonError):
        loads("[" * 65 + "]" * 65)
    assert loads('["[[[[[[", "{{{{"]', max_depth=1) == ["[[[[[[", "{{{{"]
    assert loads(r'["\"[[[["]', max_depth=1) == ['"[[[[']
    assert nesting_depth("]") == -1


@pytest.mark.parametrize("text", ["1e999", "-1e999", "NaN", "Infinity", "-Infinity", "1" * 30,
                                  "1e23", str(2 ** 64 + 1), "0." + "1" * 40])
def test_numbers_out_of_range_are_refused(text):
    with pytest.raises(UnsafeJsonError):
        loads(f'{{"n": {text}}}')


def test_size_and_encoding_and_type():
    with pytest.raises(UnsafeJsonError, match="larger than 4 bytes"):
        loads('"ééé"', max_bytes=4)  # 5 characters, 8 bytes
    with pytest.raises(UnsafeJsonError, match="not UTF-8"):
        loads(b'"\xff"')
    with pytest.raises(UnsafeJsonError, match="expected JSON text"):
        loads(None)
    with pytest.raises(UnsafeJsonError, match="not JSON"):
        loads("{'single': 'quotes'}")
