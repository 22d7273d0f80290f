"""Run a hook's pieces of work against a deadline: what is not ready by then is left out.

A hook must finish within ``HOOK_BUDGET_SECONDS`` whatever it reads: a huge ``episodic.jsonl``,
a slow disk, a ``fact.yml`` that takes ruamel seconds to parse. On POSIX the pieces run in a
forked child that sends each result as soon as it is ready; at the deadline the child is
killed, so nothing it was doing (even a C call that never lets go of the GIL) can hold the hook
up. Elsewhere a daemon thread does the same, less strictly.
"""

from __future__ import annotations

import gc
import os
import select
import time
from collections.abc import Callable, Mapping, Sequence
from indexer import errors
from indexer.errors import ThreadbackError

HOOK_BUDGET_SECONDS = 1.0
BUDGET_ENV_VAR = "THREADBACK_HOOK_BUDGET"  # seconds, to give a slow machine more (or tests)
EXIT_MARGIN_SECONDS = 0.2  # the interpreter starting before us, and printing and exiting after
_HEADER_SIZE = 4  # each result is sent as its length (4 bytes, big-endian), then its pickle

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Piece = tuple[str, Callable[[], Any]]


def hook_budget(env: Mapping[str, str] | None = None) -> float:
    """``$THREADBACK_HOOK_BUDGET`` when it is a number of seconds from 0.2 to 9, else 1."""
    value = (os.environ if env is None else env).get(BUDGET_ENV_VAR, "")
    try:
        seconds = float(value)
    except ValueError:
        return HOOK_BUDGET_SECONDS
    return seconds if 0.2 <= seconds <= 9 else HOOK_BUDGET_SECONDS


def hook_deadline(started: float, budget: float | None = None) -> float:
    """The ``time.monotonic()`` by which a hook that started at ``started`` must have its
    answer, leaving time to print it."""
    return started + (hook_budget() if budget is None else budget) - EXIT_MARGIN_SECONDS


def run_pieces(pieces: Sequence[Piece], deadline: float) -> dict[str, Any]:
    """Run ``pieces`` in order and return the results ready by ``deadline`` (monotonic), by
    name. A piece that raised gives ``PieceFailed``; one not finished is absent."""
    if hasattr(os, "fork"):
        return _run_forked(pieces, deadline)
    return _run_threaded(pieces, deadline)


class PieceFailed(ThreadbackError):
    """A piece raised: its message, carried back from the child."""
    kind = errors.INTERNAL


def _outcome(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - reported as a problem line, never raised in a hook
        return PieceFailed(f"{type(exc).__name__}: {exc}")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _run_forked(pieces: Sequence[Piece], deadline: float) -> dict[str, Any]:
    # Only the session-start hook runs pieces: the prompt hook, which needs the deadline
    # alone, does not load these. The C pickler alone: the ``pickle`` module around it (its
    # pure-Python twin) and ``signal`` (which builds enums) cost ~2 ms before the fork.
    try:
        from _pickle import dumps, loads
    except ImportError:  # an interpreter without the C pickler
        from pickle import dumps, loads
    from _signal import SIGKILL  # built in, loaded at start-up: ``signal.SIGKILL`` is this number

    read_fd, write_fd = os.pipe()
    # The parent's objects are frozen across the fork (``gc.freeze``, O(1)): the child's
    # collections then leave them alone instead of writing to, so copying, their pages
    # (~1 ms of a session start, more when a module was imported just before).
    gc.freeze()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, and leave without running the parent's cleanup
        try:
            os.close(read_fd)
            for name, fn in pieces:
                data = dumps((name, _outcome(fn)))
                _write_all(write_fd, len(data).to_bytes(_HEADER_SIZE, "big") + data)
        finally:
            os._exit(0)
    gc.unfreeze()
    os.close(write_fd)
    results: dict[str, Any] = {}
    buffer = b""
    try:
        while len(results) < len(pieces):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            ready, _, _ = select.select([read_fd], [], [], remaining)
            if not ready:
                break
            chunk = os.read(read_fd, 1 << 20)
            if not chunk:
                break  # the child ended (or died)
            buffer += chunk
            while len(buffer) >= _HEADER_SIZE:
                size = int.from_bytes(buffer[:_HEADER_SIZE], "big")
                if len(buffer) < _HEADER_SIZE + size:
                    break
                name, value = loads(buffer[_HEADER_SIZE:_HEADER_SIZE + size])
                results[name] = value
                buffer = buffer[_HEADER_SIZE + size:]
    finally:
        os.close(read_fd)
        try:
            os.kill(pid, SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    return results


def _run_threaded(pieces: Sequence[Piece], deadline: float) -> dict[str, Any]:
    import threading

    results: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        for name, fn in pieces:
            results[name] = _outcome(fn)
        done.set()

    threading.Thread(target=work, daemon=True, name="hook-pieces").start()
    done.wait(max(0.0, deadline - time.monotonic()))
    return dict(results)
