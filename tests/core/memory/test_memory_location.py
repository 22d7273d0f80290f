"""Which memory folder is used, and that the core never imports a UI library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from indexer.config import global_memory_dir, project_memory_dir, resolve_memory_dir
from indexer.memory import MemoryStore


def test_resolution_order(tmp_path, monkeypatch):
    monkeypatch.setenv("THREADBACK_HOME", str(tmp_path / "home"))
    project = tmp_path / "proj"
    (project / "memory").mkdir(parents=True)
    env = {"THREADBACK_MEMORY_DIR": str(tmp_path / "envmem")}

    assert resolve_memory_dir(tmp_path / "flag", project, env) == (tmp_path / "flag",
                                                                   "--memory-dir")
    assert resolve_memory_dir(None, project, env)[0] == tmp_path / "envmem"
    # An empty project memory/ folder does not count ...
    folder, reason = resolve_memory_dir(None, project, {})
    assert folder == tmp_path / "home" / "memory" == global_memory_dir()
    assert "global" in reason
    # ... one holding any tier file does.
    (project / "memory" / "scratchpad.md").write_text("- [ ] x\n", encoding="utf-8")
    folder, reason = resolve_memory_dir(None, project, {})
    assert folder == project / "memory" == project_memory_dir(project)
    assert "project" in reason
    store = MemoryStore.open(None, project, {})
    assert store.folder == project / "memory" and store.reason == reason


def test_indexer_memory_imports_no_ui_library():
    code = (
        "import sys, indexer.memory; "
        "ui = ('textual', 'rich', 'pygments', 'humanize', 'tui'); "
        "bad = [m for m in ui if m in sys.modules]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
