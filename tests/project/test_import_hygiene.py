"""The core stays headless: importing every indexer module pulls in no UI library."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import indexer

UI_PACKAGES = ("textual", "rich", "pygments", "humanize", "tui")


def test_indexer_imports_no_ui_package():
    modules = [m.name for m in pkgutil.walk_packages(indexer.__path__, "indexer.")]
    assert "indexer.ingest.writer" in modules and "indexer.search.fts" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {UI_PACKAGES!r})\n"
        "print(','.join(bad))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[2], timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "", f"indexer pulled in UI modules: {proc.stdout.strip()}"
