"""Files and commands (issue 17): the paths tool calls touched, normalised, per session;
`threadback files PATH`; the `file:` filter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer import Index, only_roots
from indexer.sources.touched_files import DELETE, EDIT, READ, SHELL, WRITE, touches_of

from cli_process import threadback
from conftest import FIXED_NOW

CWD = "/w/shop"


@pytest.mark.parametrize("tool, args, expected", [
    ("Read", {"file_path": "/w/shop/src/../lib/db.py"}, [("/w/shop/lib/db.py", READ)]),
    ("Edit", {"file_path": "src/app.py", "old_string": "a", "new_string": "b"}, [("/w/shop/src/app.py", EDIT)]),
    ("MultiEdit", {"file_path": "/w/shop/src/app.py", "edits": []}, [("/w/shop/src/app.py", EDIT)]),
    ("Write", {"file_path": "./notes/plan.md", "content": "x"}, [("/w/shop/notes/plan.md", WRITE)]),
    ("NotebookEdit", {"notebook_path": "nb/a.ipynb"}, [("/w/shop/nb/a.ipynb", EDIT)]),
    ("read", {"path": "README.md"}, [("/w/shop/README.md", READ)]),  # Pi
    ("apply_patch", "*** Begin Patch\n*** Update File: src/app.py\n@@\n-x\n+y\n*** Add File: src/new.py\n+z\n"
                    "*** Delete File: src/old.py\n*** End Patch",
     [("/w/shop/src/app.py", EDIT), ("/w/shop/src/new.py", WRITE), ("/w/shop/src/old.py", DELETE)]),
    ("shell", {"command": ["bash", "-lc", "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a/b.ts\n"
                                          "cat should_not_count.py\n*** End Patch\nEOF"], "workdir": "/w/other"},
     [("/w/other/a/b.ts", EDIT)]),
    ("Bash", {"command": "cat README.md && sed -i 's/a/b/' src/x.py; rm -rf build/out.txt > log.txt"},
     [("/w/shop/README.md", READ), ("/w/shop/src/x.py", EDIT), ("/w/shop/log.txt", WRITE),
      ("/w/shop/build/out.txt", DELETE)]),
    ("Bash", {"command": "mv a.txt b/c.txt; git add src/a.py; sed -n '1,20p' foo/bar.py"},
     [("/w/shop/a.txt", DELETE), ("/w/shop/b/c.txt", WRITE), ("/w/shop/src/a.py", SHELL), ("/w/shop/foo/bar.py", READ)]),
    # Conservative: variables, globs, substitutions, unknown programs and unclosed quotes give nothing.
    ("Bash", {"command": "cat $HOME/x.py src/*.py $(ls) && python run.py && grep -rn foo src/ && echo 'x"}, []),
    ("Grep", {"pattern": "TODO", "path": "src/app.py"}, []),
])
def test_tool_calls_name_their_files(tool, args, expected):
    assert [(t.path, t.kind) for t in touches_of(tool, args, CWD)] == expected


def claude_log_with_tools(root: Path, sid: str, calls: list[tuple[str, dict]], *, hour: int = 10) -> Path:
    folder = root / "-w-shop"
    folder.mkdir(parents=True, exist_ok=True)
    lines = [{"type": "user", "uuid": f"{sid}-u", "sessionId": sid, "cwd": CWD, "timestamp": f"2026-03-01T{hour:02d}:00:00Z",
              "message": {"role": "user", "content": f"work on the shop ({sid})"}}]
    for i, (name, args) in enumerate(calls, 1):
        lines.append({"type": "assistant", "uuid": f"{sid}-{i}", "sessionId": sid, "cwd": CWD,
                      "timestamp": f"2026-03-01T{hour:02d}:{i:02d}:00Z", "message": {
                          "id": f"msg_{sid}_{i}", "role": "assistant", "model": "claude-x",
                          "content": [{"type": "tool_use", "id": f"toolu_{sid}_{i}", "name": name, "input": args}]}})
    path = folder / f"{sid}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture()
def shop(tmp_path):
    root = tmp_path / "logs"
    claude_log_with_tools(root, "older", [("Read", {"file_path": "src/app.py"})], hour=9)
    claude_log_with_tools(root, "newer", [("Edit", {"file_path": "/w/shop/src/app.py"}),
                                          ("Bash", {"command": "rm src/app.py"})], hour=11)
    claude_log_with_tools(root, "elsewhere", [("Read", {"file_path": "/w/other/app.py"})], hour=12)
    db = tmp_path / "i.sqlite3"
    with Index(db) as index:
        index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW)
    return db, root


def test_sessions_that_touched_a_file_newest_first(shop):
    db, _ = shop
    with Index(db) as index:
        found = index.files_touched("src/app.py")  # a suffix: /w/other/app.py is not it
        assert [(t.session.session_id, t.kinds, t.count) for t in found] == [
            ("newer", ("edit", "delete"), 2), ("older", ("read",), 1)]
        assert [t.session.session_id for t in index.files_touched("app.py", cwd="/w/other")] == ["elsewhere"]
        assert {t.session.session_id for t in index.files_touched("app.py")} == {"newer", "older", "elsewhere"}
        assert index.files_touched("pp.py") == []  # a suffix ends at a folder boundary
        assert [t.session.session_id for t in index.files_touched("./src/../src/app.py", cwd="/elsewhere")] == [
            "newer", "older"]  # not under the current folder: the normalised suffix
        assert index.files_touched("/w/shop/src/../src/app.py")[0].session.session_id == "newer"


def test_the_files_command_and_the_file_filter(shop, tmp_path):
    db, root = shop
    done = threadback("--db", str(db), "files", "src/app.py")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if not line.startswith("    ")]
    assert "newer" in lines[0] and "edit/delete" in lines[0] and "older" in lines[1]
    data = json.loads(threadback("--db", str(db), "files", "src/app.py", "--json").stdout)
    assert [(d["session"]["session_id"], d["kinds"], d["calls"]) for d in data] == [
        ("newer", ["edit", "delete"], 2), ("older", ["read"], 1)]
    assert threadback("--db", str(db), "files", "nothing/here.py").returncode == 1
    with Index(db) as index:
        hits = index.search("shop file:src/app.py", by_session=True).hits
        assert {h.session.session_id for h in hits} == {"newer", "older"}
        assert {h.session.session_id for h in index.search("shop file:/w/other/app.py").hits} == {"elsewhere"}


def test_a_rewritten_log_replaces_its_touches(shop):
    db, root = shop
    claude_log_with_tools(root, "newer", [("Write", {"file_path": "src/other.py"})], hour=11)
    with Index(db) as index:
        index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW)
        assert [t.session.session_id for t in index.files_touched("src/app.py")] == ["older"]
        assert [t.kinds for t in index.files_touched("src/other.py")] == [("write",)]


def test_each_agents_real_logs_name_their_files(corpus_index):
    """The shared corpus: Codex shell calls (with a workdir, and apply_patch in a here-document)
    and Pi's read/edit tools."""
    read = corpus_index.files_touched("LM Studio configuration.md")
    assert [(t.session.agent, t.path, t.kinds) for t in read] == [
        ("codex", "/home/user/projects/temp/chatbot-ui/LM Studio configuration.md", ("read",))]
    patched = corpus_index.files_touched("components/chat/chat-helpers/index.ts")
    assert patched and {t.session.agent for t in patched} == {"codex"} and all("edit" in t.kinds for t in patched)
    edited = corpus_index.files_touched("/Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/main.ts")
    assert {(t.session.agent, t.kinds) for t in edited} >= {("pi", ("edit",))}
