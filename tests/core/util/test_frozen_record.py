"""``@frozen_record`` stands in for ``@dataclass(frozen=True, slots=True)`` on the memory and
rule records (so a session-start hook does not import ``dataclasses``): the same class written
both ways must behave alike."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest

from indexer.util.frozen_record import FrozenRecordError, frozen_record, not_compared, replace


@dataclasses.dataclass(frozen=True, slots=True)
class Old:
    id: str
    weight: float
    ts: str | None = None
    fields: dict[str, Any] = dataclasses.field(default_factory=dict, compare=False)
    checked: bool = dataclasses.field(default=False, compare=False)

    @property
    def label(self) -> str:
        return f"{self.id}:{self.weight}"


@frozen_record
class New:
    id: str
    weight: float
    ts: str | None = None
    fields: dict[str, Any] = not_compared(factory=dict)
    checked: bool = not_compared(False)

    @property
    def label(self) -> str:
        return f"{self.id}:{self.weight}"


ARGS = [(("a", 1.0), {}), (("a", 1.0, "2025"), {"fields": {"x": 1}}), (("b",), {"weight": 2.5, "checked": True})]


@pytest.mark.parametrize("args,kwargs", ARGS)
def test_it_behaves_as_the_frozen_dataclass(args, kwargs):
    old, new = Old(*args, **kwargs), New(*args, **kwargs)
    assert repr(new) == repr(old).replace("Old(", "New(")
    assert new.label == old.label
    assert new.__match_args__ == old.__match_args__ and New.__slots__ == Old.__slots__
    # equality and hash ignore the fields that are not compared, as compare=False does
    for other_args, other_kwargs in ARGS:
        assert (new == New(*other_args, **other_kwargs)) == (old == Old(*other_args, **other_kwargs))
    twin = replace(new, fields={"other": 2}, checked=not new.checked)
    assert twin == new and hash(twin) == hash(new) and twin.fields == {"other": 2}
    assert replace(new, weight=9.0) != new and dataclasses.replace(old, weight=9.0) != old
    assert new != old and new != (new.id, new.weight)
    for clone in (pickle.loads(pickle.dumps(new)), copy.copy(new), copy.deepcopy(new)):
        assert repr(clone) == repr(new)
    with pytest.raises(FrozenRecordError):
        new.id = "z"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del new.weight  # type: ignore[misc]
    with pytest.raises(AttributeError):
        new.anything = 1  # type: ignore[attr-defined]


def test_defaults_factories_and_bad_calls():
    assert New("a", 1.0).fields is not New("a", 1.0).fields  # a new dict for each record
    with pytest.raises(TypeError):
        New("a")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        New("a", 1.0, nope=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        replace(New("a", 1.0), nope=1)
