"""Frozen, slotted record classes for the memory and rule stores, without ``dataclasses``.

``dataclasses`` imports ``inspect`` (and with it ``ast``, ``dis``, ``tokenize``): about 7 ms of
every session-start hook, which reads these records. ``@frozen_record`` gives what
``@dataclass(frozen=True, slots=True)`` gave them: construction by position or keyword with
defaults, ``==`` and ``hash`` over the compared fields, the same repr, ``replace``, no
assignment after construction, copying and pickling.
For the start-up path only (``START_UP_PATH`` in ``tests/project/test_startup_imports.py``);
every other module uses the standard library.
"""

from __future__ import annotations

from collections.abc import Callable
from indexer import errors
from indexer.errors import ThreadbackError
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T")

_MISSING = object()


class FrozenRecordError(AttributeError, ThreadbackError):
    """A field of a frozen record was assigned or deleted."""
    kind = errors.INTERNAL


class _NotCompared:
    """A field left out of ``==`` and ``hash`` (``field(compare=False)``): a default, or a
    factory called for each new record."""

    __slots__ = ("default", "factory")

    def __init__(self, default: Any = _MISSING, *, factory: Callable[[], Any] | None = None) -> None:
        self.default, self.factory = default, factory


if TYPE_CHECKING:  # type checkers read the records as the frozen dataclasses they behave as
    from typing import dataclass_transform

    def not_compared(default: Any = ..., *, factory: Callable[[], Any] | None = None) -> Any:
        """The field's value, to a type checker (as ``dataclasses.field`` is)."""
else:
    not_compared = _NotCompared

    def dataclass_transform(**_: object) -> Callable[[T], T]:
        return lambda f: f


@dataclass_transform(frozen_default=True, field_specifiers=(not_compared,))
def frozen_record(cls: type[T]) -> type[T]:
    """The class rebuilt with ``__slots__`` and the methods a frozen dataclass has; fields are
    its annotations, in order."""
    names = tuple(cls.__dict__.get("__annotations__", {}))
    compared = []
    globs: dict[str, Any] = {"_set": object.__setattr__, "_NONE": _MISSING}
    params, body = [], []
    for name in names:
        value = cls.__dict__.get(name, _MISSING)
        if isinstance(value, _NotCompared):
            default, factory = value.default, value.factory
        else:
            default, factory = value, None
            compared.append(name)
        if factory is not None:
            globs[f"_f_{name}"] = factory
            params.append(f"{name}=_NONE")
            body.append(f"  _set(self, {name!r}, _f_{name}() if {name} is _NONE else {name})")
        else:
            if default is not _MISSING:
                globs[f"_d_{name}"] = default
            params.append(name if default is _MISSING else f"{name}=_d_{name}")
            body.append(f"  _set(self, {name!r}, {name})")
    source = f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body or ["  pass"])
    exec(source, globs)  # noqa: S102 - our own field names, as dataclasses does
    namespace = {k: v for k, v in cls.__dict__.items() if k not in names and k not in ("__dict__", "__weakref__")}
    namespace.update(_methods(names, tuple(compared)), __slots__=names, __match_args__=names,
                     __init__=globs["__init__"], __record_fields__=names)
    record: type[T] = type(cls)(cls.__name__, cls.__bases__, namespace)  # type: ignore[misc]  # metaclass call
    record.__qualname__ = cls.__qualname__
    return record


def _methods(names: tuple[str, ...], compared: tuple[str, ...]) -> dict[str, Callable[..., Any]]:
    def key(record: Any) -> tuple[Any, ...]:
        return tuple(getattr(record, n) for n in compared)

    def __eq__(self: Any, other: Any) -> Any:
        return key(self) == key(other) if other.__class__ is self.__class__ else NotImplemented

    def __hash__(self: Any) -> int:
        return hash(key(self))

    def __repr__(self: Any) -> str:
        return f"{type(self).__qualname__}(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in names) + ")"

    def __getstate__(self: Any) -> list[Any]:
        return [getattr(self, n) for n in names]

    def __setstate__(self: Any, state: list[Any]) -> None:
        for name, value in zip(names, state):
            object.__setattr__(self, name, value)

    return {"__eq__": __eq__, "__hash__": __hash__, "__repr__": __repr__, "__getstate__": __getstate__,
            "__setstate__": __setstate__, "__setattr__": _refuse, "__delattr__": _refuse}


def _refuse(self: Any, name: str, *value: Any) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r}")


def replace(record: T, **changes: Any) -> T:
    """A copy of ``record`` with ``changes`` (``dataclasses.replace``)."""
    names: tuple[str, ...] = getattr(record, "__record_fields__")
    unknown = set(changes) - set(names)
    if unknown:
        raise TypeError(f"{type(record).__name__} has no field {sorted(unknown)[0]!r}")
    return type(record)(**{n: changes[n] if n in changes else getattr(record, n) for n in names})
