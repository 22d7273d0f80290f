"""The index's health told truthfully, and no traceback from any command (issue 11): damaged
pages in either file, read-only media and files, a lock held by another program, a full disk,
a --db that is a folder, a lock file that is a folder, an index from a newer version, arguments
that are not UTF-8, a helper process that dies, and the last-resort handler. Each is a real
``threadback`` process; disks are real tmpfs mounts (skipped where mounting is not allowed)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from indexer import Index, only_roots
from indexer.ingest import stream
from indexer.store.connection import busy_timeout_ms

from cli_process import REPO, assert_one_line_no_traceback, cli_env, start, threadback, threadback_many
from conftest import CORPUS, FIXED_NOW

ROOTS = ["--claude-dir", str(CORPUS / "claude-code" / "projects"), "--codex-dir", str(CORPUS / "codex" / "sessions"),
         "--pi-dir", str(CORPUS / "pi")]


@pytest.fixture
def index_copy(corpus_index_path, tmp_path) -> Path:
    path = tmp_path / "index.sqlite3"
    shutil.copy(corpus_index_path, path)
    shutil.copy(str(corpus_index_path) + ".side", str(path) + ".side")
    return path


def damage(path: Path, first: float, pages: int | None = None) -> None:
    """Overwrite whole pages (headers included) from ``first`` (a fraction of the file) on."""
    size = path.stat().st_size
    with path.open("r+b") as fh:
        page_size = int.from_bytes(fh.read(18)[16:18], "big")  # the header's page size (16 KB now)
        start = int(size * first) // page_size
        end = size // page_size if pages is None else start + pages
        for page in range(max(start, 1), end):
            fh.seek(page * page_size)
            fh.write(b"\xde\xad" * (page_size // 2))


def remount(point: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(point)], check=True, capture_output=True)


def test_a_damaged_main_file_is_told_with_the_rebuild_hint(index_copy):
    damage(index_copy, 0.2)
    db = ["--db", str(index_copy)]
    (search_code, _, search_err), (index_code, _, index_err) = threadback_many([["search", "the", *db], ["index", *db, *ROOTS]])
    for code, err in ((search_code, search_err), (index_code, index_err)):
        assert code == 3 and "Traceback" not in err
        assert "is damaged" in err and "threadback index --rebuild" in err


def damage_table_cells(path: Path, table: str) -> None:
    """Overwrite the cell content of every page of ``table`` (page headers left whole), so
    SQLite opens the file and only a read of those cells fails."""
    conn = sqlite3.connect(path)
    try:
        pages = [row[0] for row in conn.execute("SELECT pageno FROM dbstat WHERE name = ? AND pagetype != 'internal'",
                                                (table,))]
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    except sqlite3.OperationalError:
        pytest.skip("this SQLite has no dbstat table to find a table's pages")
    finally:
        conn.close()
    with path.open("r+b") as fh:
        for page in pages:
            fh.seek((page - 1) * page_size + page_size // 3)
            fh.write(b"\xde\xad" * (page_size // 3))


def test_damaged_full_text_pages_are_told_by_every_reader_once_found(index_copy):
    """The full-text table's pages damaged: the first command that reads them finds it (here
    `index --compact`, which merges every segment; an index run merges only after it wrote, so
    one with nothing to do reads no full-text page), and from then on `search` (even for words
    whose hits come from elsewhere), `sessions`, `show`, `events` and `index` say so too (exit
    3), instead of answering from what they can still read."""
    with Index(index_copy, readonly=True) as index:
        session_id = next(iter(index.sessions(limit=1))).session_id
    damage_table_cells(index_copy, "fts")
    damage_table_cells(index_copy, "fts_data")
    db = ["--db", str(index_copy)]
    commands = [["index", "--compact", *db], ["search", "error", *db], ["sessions", *db],
                ["show", session_id, *db], ["events", *db], ["index", *db, *ROOTS]]
    results = threadback_many(commands)
    for argv, (code, _, err) in zip(commands, results):
        assert code == 3 and "Traceback" not in err, (argv, code, err)
        assert "is damaged" in err and "threadback index --rebuild" in err, (argv, err)


def test_a_damaged_side_file_is_told_and_rebuilt_by_the_next_run(index_copy):
    damage(Path(str(index_copy) + ".side"), 0.0)
    db = ["--db", str(index_copy)]
    results = threadback_many([["search", "the", *db], ["index", *db, *ROOTS], ["search", "the", "-n", "1", *db]])
    (code, _, err), (index_code, _, index_err), (after, out, _) = results
    assert code == 3 and "side index" in err and "run `threadback index`" in err and "--rebuild" not in err
    assert index_code == 0 and "was found damaged; it has been rebuilt" in index_err
    assert after == 0 and out


def test_a_lock_held_by_another_program_is_not_damage_and_hooks_answer_fast(index_copy, tmp_path):
    holder = sqlite3.connect(index_copy, isolation_level=None)
    holder.execute("PRAGMA locking_mode = EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO meta(key, value) VALUES ('held', 'by a browser')")
    try:
        # Both at once: each waits out its busy timeout (5 s for a person's command, lowered
        # here to 0.5 s: the same wait and the same answer, sooner) and then says why.
        running = [start(*argv, "--db", str(index_copy), THREADBACK_BUSY_TIMEOUT_MS="500")
                   for argv in (["index", *ROOTS], ["search", "the"])]
        for started in running:
            out, err = started.communicate(timeout=60)
            proc = subprocess.CompletedProcess(started.args, started.returncode, out, err)
            assert proc.returncode == 75
            line = assert_one_line_no_traceback(proc)
            assert "locked by another program" in line and "--rebuild" not in line
        payload = {"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit",
                   "prompt": "didn't we fix the flaky websocket test last week?"}
        hook = subprocess.run([sys.executable, "-m", "tui.cli", "hook", "prompt"], input=json.dumps(payload).encode(),
                              capture_output=True, env=cli_env(THREADBACK_DB=str(index_copy)), cwd=REPO, timeout=30)
        assert hook.returncode == 0 and b"Traceback" not in hook.stderr
        usage = [json.loads(x) for x in (Path(os.environ["THREADBACK_HOME"]) / "usage.jsonl").read_text().splitlines()]
        # The hook's own answer time (opening the index and searching; the interpreter's start
        # is the agent's cost either way): not the 5 s a default busy wait would take.
        assert usage[-1]["kind"] == "hook-prompt" and usage[-1]["ms"] < 1000
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_a_persons_command_waits_five_seconds_for_a_lock_unless_told_otherwise(tmp_path, monkeypatch):
    with Index(tmp_path / "index.sqlite3") as index:
        assert index.conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000
    monkeypatch.setenv("THREADBACK_BUSY_TIMEOUT_MS", "500")
    assert busy_timeout_ms() == 500
    monkeypatch.setenv("THREADBACK_BUSY_TIMEOUT_MS", "soon")  # not a number: the default
    assert busy_timeout_ms() == 5000


def test_read_only_media_search_works_and_index_says_why_not(index_copy, tmpfs):
    disk = tmpfs("32m")
    for name in ("index.sqlite3", "index.sqlite3.side"):
        shutil.copy(index_copy.parent / name, disk / name)
    remount(disk, "ro")
    db = ["--db", str(disk / "index.sqlite3")]
    (search, out, _), (sessions, listed, _) = threadback_many([["search", "the", "-n", "1", *db], ["sessions", *db]])
    assert search == 0 and out and sessions == 0 and listed
    proc = threadback("index", *db, *ROOTS)
    assert proc.returncode == 6
    line = assert_one_line_no_traceback(proc)
    assert "cannot be written" in line and "searching still works" in line and "--rebuild" not in line


def test_read_only_index_files_search_works_and_index_says_why_not(index_copy):
    mounted = []
    try:
        for name in ("index.sqlite3", "index.sqlite3.side"):
            f = index_copy.parent / name
            if subprocess.run(["mount", "--bind", str(f), str(f)], capture_output=True).returncode:
                pytest.skip("cannot bind-mount here (needs root)")
            mounted.append(f)
            remount(f, "ro,bind")
        proc = threadback("search", "the", "-n", "1", "--db", str(index_copy))
        assert proc.returncode == 0 and proc.stdout
        proc = threadback("index", "--db", str(index_copy), *ROOTS)
        assert proc.returncode == 6 and "--rebuild" not in assert_one_line_no_traceback(proc)
    finally:
        for f in mounted:
            subprocess.run(["umount", "-l", str(f)], capture_output=True)


def test_a_full_disk_loses_nothing_and_says_so(tmpfs, tmp_path):
    disk = tmpfs("400k")
    db = disk / "index.sqlite3"
    proc = threadback("index", "--db", str(db), *ROOTS)
    assert proc.returncode == 7
    line = assert_one_line_no_traceback(proc)
    assert "is full" in line and "--rebuild" not in line and "cannot rollback" not in line
    remount(disk, "size=64m")
    proc = threadback("index", "--db", str(db), *ROOTS)
    assert proc.returncode == 0, proc.stderr
    with Index(db) as index, Index(tmp_path / "reference.sqlite3") as reference:
        reference.update(only_roots({"claude-code": [CORPUS / "claude-code" / "projects"],
                                     "codex": [CORPUS / "codex" / "sessions"], "pi": [CORPUS / "pi"]}), now=FIXED_NOW)
        assert index.stats().messages == reference.stats().messages


def test_a_full_disk_during_memory_and_rules_writes_is_one_line(tmpfs):
    disk = tmpfs("64k")
    memory = disk / "memory"
    memory.mkdir()
    episodic = b'{"id":"ep-00000001","summary":"kept"}\n'
    (memory / "episodic.jsonl").write_bytes(episodic)
    (memory / "episodic.jsonl.bak").write_bytes(b"the previous backup\n")
    with (disk / "filler").open("wb") as fh:
        try:
            fh.write(b"\0" * 200_000)
        except OSError:
            pass
    for argv in (["memory", "--memory-dir", str(memory), "add", "--summary", "lost?"],
                 ["rules", "--memory-dir", str(memory), "propose", "--text", "always run the tests"]):
        proc = threadback(*argv)
        assert proc.returncode == 7
        assert "disk is full" in assert_one_line_no_traceback(proc)
    assert (memory / "episodic.jsonl").read_bytes() == episodic
    assert (memory / "episodic.jsonl.bak").read_bytes() == b"the previous backup\n"


def test_paths_that_are_folders_and_newer_indexes_get_one_line(index_copy, tmp_path):
    folder = tmp_path / "a-folder"
    folder.mkdir()
    newer = tmp_path / "newer.sqlite3"
    shutil.copy(index_copy, newer)
    with sqlite3.connect(newer) as conn:
        conn.execute("PRAGMA user_version = 99")
    locked = tmp_path / "locked" / "index.sqlite3"
    locked.parent.mkdir()
    shutil.copy(index_copy, locked)
    Path(str(locked) + ".lock").mkdir()
    cases = [
        (["search", "the", "--db", str(folder)], "it is a folder"),
        (["index", "--db", str(folder), *ROOTS], "it is a folder"),
        (["sessions", "--db", str(folder)], "it is a folder"),
        (["search", "the", "--db", str(newer)], "newer than this Threadback"),
        (["index", "--db", str(newer), *ROOTS], "newer than this Threadback"),
        (["index", "--db", str(locked), *ROOTS], "index.sqlite3.lock is a folder"),
    ]
    results = threadback_many([argv for argv, _ in cases])
    for (argv, words), (code, _, err) in zip(cases, results):
        assert code == 3 and "Traceback" not in err, (argv, err)
        assert words in err and "--rebuild" not in err, (argv, err)


def test_arguments_that_are_not_utf8_are_text_with_replacements_and_paths_as_given(tmp_path, index_copy):
    odd = tmp_path / os.fsdecode(b"caf\xe9")
    odd.mkdir()
    db = odd / "index.sqlite3"
    shutil.copy(index_copy, db)
    memory = tmp_path / "mem"
    for argv in ([b"search", b"caf\xe9 tmux", b"--db", os.fsencode(db)],
                 [b"sessions", b"--db", os.fsencode(db), b"--project", b"\xff"],
                 [b"memory", b"--memory-dir", os.fsencode(memory), b"add", b"--summary", b"caf\xe9 bytes"]):
        proc = subprocess.run([sys.executable, "-m", "tui.cli", *argv], capture_output=True, env=cli_env(), cwd=REPO,
                              timeout=60)
        assert proc.returncode in (0, 1), proc.stderr
        assert b"Traceback" not in proc.stderr and b"not UTF-8" in proc.stderr
    assert json.loads((memory / "episodic.jsonl").read_text())["summary"] == "caf\ufffd bytes"


def test_files_with_an_argument_or_a_folder_that_is_not_utf8_warns_and_goes_on(tmp_path, index_copy):
    odd = tmp_path / os.fsdecode(b"d\xe9p\xf4t")
    odd.mkdir()
    for argv, cwd in (([b"files", b"src/caf\xe9.py", b"--db", os.fsencode(index_copy)], REPO),
                      ([b"files", b"app.py", b"--db", os.fsencode(index_copy)], odd)):
        proc = subprocess.run([sys.executable, "-m", "tui.cli", *argv], capture_output=True, env=cli_env(), cwd=cwd,
                              timeout=60)
        assert proc.returncode in (0, 1), proc.stderr
        assert b"Traceback" not in proc.stderr and b"not UTF-8" in proc.stderr, proc.stderr


def test_every_folder_argument_keeps_its_bytes(tmp_path):
    """``memory allow/disallow DIR``, ``rules --memory-dir``, ``rules import --claude-dir``."""
    odd = tmp_path / os.fsdecode(b"m\xe9m")
    odd.mkdir()
    (odd / "rules.jsonl").write_text(json.dumps({"id": "r-00000001", "text": "odd folder rule", "status": "pending",
                                                 "proposed_at": 1.0}) + "\n")
    (odd / "projects").mkdir()
    cases = [([b"memory", b"disallow", os.fsencode(odd)], 2, b"was not allowed"),
             ([b"rules", b"list", b"--memory-dir", os.fsencode(odd)], 0, b""),
             ([b"rules", b"import", b"--memory-dir", os.fsencode(odd), b"--claude-dir", os.fsencode(odd)], 0, b"")]
    for argv, code, said in cases:
        proc = subprocess.run([sys.executable, "-m", "tui.cli", *argv], capture_output=True, env=cli_env(), cwd=REPO,
                              timeout=60)
        assert proc.returncode == code and said in proc.stderr and b"not UTF-8" not in proc.stderr, (argv, proc.stderr)
        if argv[:2] == [b"rules", b"list"]:
            assert b"odd folder rule" in proc.stdout


# A bug planted in the real command: an index run that divides by zero.
PLANTED_BUG = ("import sys, indexer.index\n"
               "indexer.index.Index.update = lambda *a, **k: 1 / 0\n"
               "sys.argv[0] = 'threadback'\n"
               "from tui.cli.main import run\n"
               "raise SystemExit(run())")


def test_an_unexpected_error_is_one_line_and_a_saved_trace(tmp_path):
    proc = subprocess.run([sys.executable, "-c", PLANTED_BUG, "index", "--db", str(tmp_path / "i.sqlite3")],
                          capture_output=True, text=True, env=cli_env(), cwd=REPO, timeout=60)
    assert proc.returncode == 70
    line = assert_one_line_no_traceback(proc)
    saved = Path(line.split("the full trace is in ")[1].split(". Please")[0])
    assert saved.is_relative_to(Path(os.environ["THREADBACK_HOME"])) and "Traceback" in saved.read_text()


def test_more_than_a_thousand_terms_never_give_a_traceback(index_copy):
    terms = [f"w{n}x" for n in range(1200)]
    proc = threadback("search", *terms, "--db", str(index_copy))
    assert proc.returncode in (0, 1, 2) and "Traceback" not in proc.stderr


def test_a_helper_process_that_dies_costs_nothing(tmp_path, monkeypatch):
    """The helper is killed (SIGKILL) as the run starts: the run reads everything in one
    process instead, says so, and every message is there."""
    monkeypatch.setattr(stream, "PARALLEL_MIN_BYTES", 0)
    roots = only_roots({"claude-code": [CORPUS / "claude-code" / "projects"], "codex": [CORPUS / "codex" / "sessions"],
                        "pi": [CORPUS / "pi"]})
    killed: list[int] = []
    running = threading.Event()
    running.set()

    def kill_helper() -> None:  # the moment it appears: before it has answered anything
        while running.is_set() and not killed:
            for pid in os.listdir("/proc"):
                if pid.isdigit() and _is_our_helper(int(pid)):
                    os.kill(int(pid), signal.SIGKILL)
                    killed.append(int(pid))
            time.sleep(0.002)

    killer = threading.Thread(target=kill_helper, daemon=True)
    killer.start()
    with Index(tmp_path / "i.sqlite3") as index, Index(tmp_path / "reference.sqlite3") as reference:
        summary = index.update(roots, now=FIXED_NOW)
        running.clear()
        killer.join()
        assert killed, "no helper process was started"
        assert any("helper process failed" in p and "went on in one process" in p for p in summary.problems)
        reference.update(roots, now=FIXED_NOW)
        assert index.stats().messages == reference.stats().messages
        assert index.search("tmux", now=FIXED_NOW).total == reference.search("tmux", now=FIXED_NOW).total


def _is_our_helper(pid: int) -> bool:
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return False
    return ppid == os.getpid() and b"indexer.ingest.helper" in cmdline
