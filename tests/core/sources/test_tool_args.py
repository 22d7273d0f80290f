"""``to_json`` is frozen: arguments stored as references into their logs are rendered with it each
time they are read, so its fast path (orjson) must write exactly what the stdlib writes."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.tool_args import to_json

TOO_DEEP = "(arguments too deeply nested to show)"

_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner) | st.dictionaries(st.text(), inner), max_leaves=25)


def _stdlib(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, indent=2)
    except (TypeError, ValueError, RecursionError):
        return TOO_DEEP


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_to_json_writes_what_the_stdlib_writes(value):
    assert to_json(value) == _stdlib(value)


def test_values_orjson_writes_otherwise_take_the_stdlib_path():
    for value in ({"timeout": 1e-05}, [1e16, 0.1], 2**70, {"s": "\ud83d"}, {"n": float("nan")}, {"t": (1, 2)}):
        assert to_json(value) == _stdlib(value)
    assert to_json({"a": 1e-05}) == '{\n  "a": 1e-05\n}'  # orjson alone would write 0.00001


def test_nesting_beyond_either_encoder_says_so():
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    assert to_json(deep) == TOO_DEEP
    nested: dict = {}
    inner = nested
    for _ in range(240):  # past the fast path's depth, within the stdlib's
        inner["a"] = {}
        inner = inner["a"]
    assert to_json(nested) == _stdlib(nested)
