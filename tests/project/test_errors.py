"""One error root (issue 35): every exception class the core defines derives from
``ThreadbackError`` and has a kind; every kind has an exit code (the CLI's one table) and a
severity (the app's one table)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import indexer
from indexer import errors
from tui.cli.exits import EXIT_CODES, exit_code_for
from tui.worker_errors import SEVERITIES


def _core_exception_classes() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.walk_packages(indexer.__path__, "indexer."):
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__ == module.__name__:
                found.append(obj)
    return found


def test_every_core_exception_derives_from_the_root_and_has_a_kind() -> None:
    classes = _core_exception_classes()
    assert len(classes) >= 30  # the walk found them (there were 37 when this was written)
    strays = [f"{c.__module__}.{c.__qualname__}" for c in classes if not issubclass(c, errors.ThreadbackError)]
    assert strays == []
    assert {c.kind for c in classes} <= set(errors.KINDS)


def test_every_kind_has_an_exit_code_and_a_severity() -> None:
    assert set(EXIT_CODES) == set(errors.KINDS)
    assert set(SEVERITIES) == set(errors.KINDS)
    assert set(SEVERITIES.values()) <= {"information", "warning", "error"}


def test_kinds_keep_their_documented_exit_codes() -> None:
    from indexer.store.errors import IndexFullError, IndexLockedError, IndexReadOnlyError
    from indexer.rules import RuleNotFoundError, RuleStateError
    from indexer.config import ConfigError

    assert exit_code_for(ConfigError("x")) == 2
    assert exit_code_for(RuleNotFoundError("x")) == 4
    assert exit_code_for(RuleStateError("x")) == 5
    assert exit_code_for(IndexLockedError("x")) == 75
    assert exit_code_for(IndexReadOnlyError("x", "read-only")) == 6
    assert exit_code_for(IndexFullError("x", "full")) == 7
    assert exit_code_for(OSError(28, "No space left on device")) == 7
    assert exit_code_for(OSError(30, "Read-only file system")) == 6
    assert exit_code_for(PermissionError(13, "Permission denied")) == 6
    assert exit_code_for(FileNotFoundError(2, "No such file")) == 5
    assert exit_code_for(RuntimeError("a bug")) is None  # not ours: the last-resort path
