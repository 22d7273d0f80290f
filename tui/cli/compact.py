"""``threadback index --compact``: the index rewritten smaller, its sizes before and after.

Errors (busy, read-only, a full disk) come out as one line through ``index``'s command wrapper.
"""

from __future__ import annotations

from pathlib import Path

from indexer.ingest.compact import compact_index
from tui.cli import output
from tui.cli.exits import OK
from tui.cli.terminal import safe_text


def compact_and_report(path: Path, *, as_json: bool) -> int:
    result = compact_index(path)
    if as_json:
        print(output.dumps({
            "bytes_before": result.bytes_before,
            "bytes_after": result.bytes_after,
            "outputs_referred": result.outputs_referred,
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
    saved = result.bytes_before - result.bytes_after
    share = saved / result.bytes_before if result.bytes_before else 0.0
    print(f"compacted: {_mb(result.bytes_before)} -> {_mb(result.bytes_after)} "
          f"({_mb(saved)} saved, {share:.0%})")
    return OK


def _mb(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"
