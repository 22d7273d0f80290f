"""``indexer.util.quick_json`` writes and reads exactly what the ``json`` package does, on random
values, and fails where it fails, with its errors."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.util import quick_json

# Every kind of value: text with controls, surrogates, line separators and emoji; huge ints;
# floats with their NaN and infinities; and keys of every kind json.dumps accepts.
TEXT = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=12)
SCALARS = st.none() | st.booleans() | st.integers(min_value=-10**30, max_value=10**30) | st.floats() | TEXT
KEYS = TEXT | st.integers() | st.floats(allow_nan=False) | st.booleans() | st.none()
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                      | st.dictionaries(KEYS, inner, max_size=4), max_leaves=20)


def same_json_value(a: object, b: object) -> bool:
    """Equality, where NaN equals NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json_value(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_dumps_writes_what_json_dumps_writes(value):
    assert quick_json.dumps(value) == json.dumps(value, ensure_ascii=False)


@settings(max_examples=400, deadline=None)
@given(VALUES, st.booleans(), st.sampled_from(["", " ", "\n", " \t\r\n "]))
def test_loads_reads_what_json_loads_reads(value, ascii_only, padding):
    text = padding + json.dumps(value, ensure_ascii=ascii_only) + padding
    assert same_json_value(quick_json.loads(text), json.loads(text))


def test_default_is_called_for_what_json_cannot_write():
    class Odd:
        def __str__(self) -> str:
            return "odd\x1b"

    value = {"a": [Odd(), {"b": Odd()}]}
    assert quick_json.dumps(value, default=str) == json.dumps(value, ensure_ascii=False, default=str)
    with pytest.raises(TypeError, match="Odd is not JSON serializable"):
        quick_json.dumps(value)
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        quick_json.dumps(loop)


@pytest.mark.parametrize("text", ["", "   ", "{", '{"a": 1} x', "[1,]", '{"a" 1}', "nul", '"\x01"',
                                  "\ufeff{}", "1 2", '"\\ud83d', "[" * 10 + "]" * 9])
def test_bad_json_fails_as_json_fails(text):
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    with pytest.raises(json.JSONDecodeError) as got:
        quick_json.loads(text)
    assert (got.value.msg, got.value.pos) == (expected.value.msg, expected.value.pos)


def test_lone_surrogate_escapes_read_back_as_json_reads_them():
    text = '{"s": "\\ud83d", "t": "\\ud83d\\ude00"}'
    assert quick_json.loads(text) == json.loads(text) == {"s": "\ud83d", "t": "😀"}


def test_without_the_accelerator_the_json_package_answers(monkeypatch):
    """An interpreter without ``_json`` (or with another signature) gets ``json``'s own answers."""
    monkeypatch.setitem(__import__("sys").modules, "_json", None)  # ``import _json`` raises ImportError
    monkeypatch.setattr(quick_json, "_scan_once", None)
    value = {"a": [1, 2.5, None, True, "é\x00"], "b": {"c": float("inf")}}
    assert quick_json.dumps(value) == json.dumps(value, ensure_ascii=False)
    assert quick_json.loads(' {"a": [1, "\\u00e9"]} ') == {"a": [1, "é"]}
    assert quick_json._scan_once is False  # it went to ``json``
    with pytest.raises(json.JSONDecodeError):
        quick_json.loads("{")
