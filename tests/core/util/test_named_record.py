"""``indexer.util.named_record.NamedTuple`` makes the class ``typing.NamedTuple`` makes from the same
statement: the records on the search and hook paths rely on it instead of ``typing``."""

from __future__ import annotations

import pickle
import typing

import pytest

from indexer.util.named_record import NamedTuple


class Ours(NamedTuple):
    """A record."""

    name: str
    hits: int = 0
    tags: tuple[str, ...] = ()

    def label(self) -> str:
        return f"{self.name} ({self.hits})"

    @property
    def tagged(self) -> bool:
        return bool(self.tags)


class Theirs(typing.NamedTuple):
    """A record."""

    name: str
    hits: int = 0
    tags: tuple[str, ...] = ()

    def label(self) -> str:
        return f"{self.name} ({self.hits})"

    @property
    def tagged(self) -> bool:
        return bool(self.tags)


def test_the_same_record_as_typing_makes():
    for cls in (Ours, Theirs):
        r = cls("a", tags=("x",))
        assert (r, r.label(), r.tagged) == (("a", 0, ("x",)), "a (0)", True)
        assert isinstance(r, tuple) and r == ("a", 0, ("x",))
        assert repr(r) == f"{cls.__name__}(name='a', hits=0, tags=('x',))"
        assert r._replace(hits=3).hits == 3 and r._asdict() == {"name": "a", "hits": 0, "tags": ("x",)}
        assert cls._make(["b", 1, ()]) == ("b", 1, ())
        with pytest.raises(TypeError):
            cls()  # the field without a default is required
        with pytest.raises(AttributeError):
            r.name = "b"  # type: ignore[misc]
    for attr in ("_fields", "_field_defaults", "__doc__", "__module__", "__match_args__"):
        assert getattr(Ours, attr) == getattr(Theirs, attr), attr
    assert (Ours.__qualname__, Theirs.__qualname__) == ("Ours", "Theirs")
    assert list(Ours.__annotations__) == ["name", "hits", "tags"]


def test_records_pickle_by_name():
    r = Ours("a", 2)
    assert pickle.loads(pickle.dumps(r)) == r and type(pickle.loads(pickle.dumps(r))) is Ours


def test_the_same_errors_as_typing():
    with pytest.raises(TypeError, match="Non-default namedtuple field b cannot follow default field a"):
        class Bad(NamedTuple):
            a: int = 0
            b: int

    with pytest.raises(AttributeError, match="Cannot overwrite NamedTuple attribute _replace"):
        class Overwrites(NamedTuple):
            a: int

            def _replace(self):  # type: ignore[override]
                return self
