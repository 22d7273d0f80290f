"""``threadback index --compact``: the index rewritten smaller, its sizes before and after.

Errors (busy, read-only, a full disk) come out as one line through ``index``'s command wrapper.
Progress goes to stderr, never stdout, so the report and its JSON are the same with or without
it: ``-q`` for none. Stderr a terminal: one line redrawn in place, cleared at the end. Stderr a
pipe or a file (CI, a log): a plain line as each step starts, and while the logs are read again,
a count at most once a minute; never a carriage return.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from indexer.upkeep.compact import MERGE, REFER, CompactStep, compact_index
from indexer.output import json_shapes as output
from tui.cli.exits import OK
from tui.cli.render import ProgressOutput, StatusLine, progress_bar
from tui.cli.terminal import safe_text


def compact_and_report(path: Path, *, as_json: bool, quiet: bool = False) -> int:
    reporter = None if quiet else CompactReporter(sys.stderr.isatty())
    try:
        result = compact_index(path, progress=reporter)
    finally:
        if reporter is not None:
            reporter.close()
    if as_json:
        print(output.dumps({
            "bytes_before": result.bytes_before,
            "bytes_after": result.bytes_after,
            "outputs_referred": result.outputs_referred,
            "arguments_referred": result.arguments_referred,
            "files": [{"path": str(f.path), "bytes_before": f.bytes_before, "bytes_after": f.bytes_after,
                       "page_size_before": f.page_size_before, "page_size_after": f.page_size_after}
                      for f in result.files],
        }))
        return OK
    for f in result.files:
        pages = (f"; pages {f.page_size_before // 1024} KB -> {f.page_size_after // 1024} KB"
                 if f.page_size_before != f.page_size_after else "")
        print(safe_text(f"{f.path.name}: {_mb(f.bytes_before)} -> {_mb(f.bytes_after)}{pages}"))
    if result.outputs_referred:
        print(f"tool output: {result.outputs_referred:,} packed copies replaced by references into the archive")
    if result.arguments_referred:
        print(f"tool-call arguments: {result.arguments_referred:,} packed copies replaced by references into the archive")
    saved = result.bytes_before - result.bytes_after
    share = saved / result.bytes_before if result.bytes_before else 0.0
    print(f"compacted: {_mb(result.bytes_before)} -> {_mb(result.bytes_after)} "
          f"({_mb(saved)} saved, {share:.0%})")
    return OK


def _mb(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


class CompactReporter:
    """``compact_index``'s steps on stderr: a ``StatusLine`` on a terminal, plain lines elsewhere."""

    PLAIN_COUNT_EVERY = 60.0  # seconds between two plain "n/total logs" lines

    def __init__(self, on_terminal: bool) -> None:
        self._line = StatusLine() if on_terminal else None
        self._phase_started = 0.0
        self._last_plain = 0.0
        self._plain = ProgressOutput()

    def __call__(self, step: CompactStep) -> None:
        now = time.monotonic()
        starts = step.phase != REFER or step.done == 0
        if starts:
            self._phase_started = self._last_plain = now
        if step.phase == REFER and not step.total:
            return  # nothing packed to replace: no step worth a line
        if self._line is not None:
            self._line.show(_terminal_text(step, now - self._phase_started), now=starts or step.done == step.total)
        elif starts:
            self._plain.write(_plain_text(step) + "\n")
        elif now - self._last_plain >= self.PLAIN_COUNT_EVERY and step.done < step.total:
            self._last_plain = now
            self._plain.write(f"compact: ... {step.done:,}/{step.total:,} logs\n")

    def close(self) -> None:
        if self._line is not None:
            self._line.clear()


def _plain_text(step: CompactStep) -> str:
    if step.phase == REFER:
        return f"compact: replacing packed tool output with references, {step.total:,} logs"
    name = safe_text(step.file.name if step.file else "")
    if step.phase == MERGE:
        return f"compact: merging full-text table {safe_text(step.table)} of {name} ({step.done + 1} of {step.total})"
    return f"compact: VACUUM of {name} ({_mb(step.size)})"


def _terminal_text(step: CompactStep, elapsed: float) -> str:
    if step.phase != REFER:
        return _plain_text(step)
    fraction = step.done / step.total
    left = elapsed * (step.total - step.done) / step.done if step.done and elapsed >= 0.5 else None
    return (f"compact: replacing packed tool output {progress_bar(fraction)} {step.done:,}/{step.total:,} logs"
            + (f" · ~{left:.0f}s left" if left is not None else ""))
