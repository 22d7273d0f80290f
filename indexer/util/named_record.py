"""``typing.NamedTuple``'s class syntax without importing ``typing``.

Every record a search or a hook builds is a NamedTuple. ``typing`` (with ``contextlib`` and
``warnings``) is ~2–3 ms of each such command, and its ``NamedTuple`` checks every annotation
(compiling a quoted one) on top of ``collections.namedtuple``: ~0.1 ms a class against ~0.05.
This one makes the same class from the same statement: fields are the annotations, in order,
kept as written (``from __future__ import annotations``: strings); defaults, methods, the
docstring and the other attributes are copied as ``typing`` copies them. Type checkers see
``typing.NamedTuple`` itself. Not supported (nothing here uses them): the call form
``NamedTuple("Name", [...])`` and generic records.
For the start-up path only (``START_UP_PATH`` in ``tests/project/test_startup_imports.py``);
every other module uses the standard library.
"""

from collections import namedtuple as _namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    # What a NamedTuple class body may not define, and what is not copied onto the class
    # (``typing``'s own lists, Python 3.11).
    _PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
                             "_make", "_replace", "_asdict", "_source"})
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})

    class _NamedTupleMeta(type):
        """Turns ``class Name(NamedTuple): ...`` into a ``collections.namedtuple`` class."""

        def __new__(cls, typename, bases, ns):
            types = ns.get("__annotations__", {})
            default_names = []
            for name in types:
                if name in ns:
                    default_names.append(name)
                elif default_names:
                    raise TypeError(f"Non-default namedtuple field {name} cannot follow default "
                                    f"field{'s' if len(default_names) > 1 else ''} {', '.join(default_names)}")
            record = _namedtuple(typename, types, defaults=[ns[n] for n in default_names], module=ns["__module__"])
            record.__annotations__ = record.__new__.__annotations__ = dict(types)
            for key in ns:
                if key in _PROHIBITED:
                    raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
                if key not in _SPECIAL and key not in record._fields:
                    setattr(record, key, ns[key])
            return record

    NamedTuple = type.__new__(_NamedTupleMeta, "NamedTuple", (), {"__module__": __name__})
