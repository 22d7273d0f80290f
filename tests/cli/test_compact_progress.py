"""``index --compact`` tells where it is: ``compact_index`` reports each step to a callback,
and the CLI shows them on stderr (plain lines in a pipe, one redrawn line on a terminal)
while its report and JSON on stdout stay exactly what they were without them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from itertools import groupby
from pathlib import Path

import pytest

from indexer import Index
from indexer.upkeep.compact import MERGE, REFER, VACUUM, compact_index

from cli_process import REPO, cli_env, threadback
from conftest import FIXED_NOW, corpus_roots

JSON_KEYS = {"bytes_before", "bytes_after", "outputs_referred", "arguments_referred", "files"}
FILE_KEYS = {"path", "bytes_before", "bytes_after", "page_size_before", "page_size_after"}


@pytest.fixture(scope="module")
def packed_build(tmp_path_factory) -> Path:
    """The corpus indexed with the archive on, its tool output packed as before references
    existed: a compaction then has logs to go through as well as tables to merge."""
    folder = tmp_path_factory.mktemp("packed")
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr("indexer.ingest.prepare.reference_for", lambda *args: None)
        with Index(folder / "index.sqlite3") as index:
            index.update(corpus_roots(), now=FIXED_NOW, archive=True)
    return folder


@pytest.fixture
def packed_index(packed_build, tmp_path) -> Path:
    """A copy of ``packed_build`` (the index, its side file and the archive beside them)."""
    folder = tmp_path / "data"
    shutil.copytree(packed_build, folder)
    return folder / "index.sqlite3"


def test_the_callback_sees_every_phase_in_order_and_the_logs_reach_their_total(packed_index):
    steps = []
    result = compact_index(packed_index, progress=steps.append)
    assert result.outputs_referred > 0
    side = Path(str(packed_index) + ".side")
    phases = [(phase, next(group).file) for phase, group in groupby(steps, key=lambda s: s.phase)]
    assert phases == [(REFER, None), (MERGE, packed_index), (VACUUM, packed_index), (MERGE, side), (VACUUM, side)]
    logs = [(s.done, s.total) for s in steps if s.phase == REFER]
    total = logs[0][1]
    assert total > 1 and logs == [(done, total) for done in range(total + 1)]  # 0, then after each log
    for file in (packed_index, side):
        merges = [s for s in steps if s.phase == MERGE and s.file == file]
        assert [s.done for s in merges] == list(range(len(merges))) and {s.total for s in merges} == {len(merges)}
        assert all(s.table and "." not in s.table for s in merges)
        (vacuum,) = [s for s in steps if s.phase == VACUUM and s.file == file]
        assert vacuum.size > 0
    assert {s.table for s in steps if s.file == side} >= {"fts_side", "cjk2"}


def test_without_a_callback_compacting_is_as_before(packed_index):
    assert compact_index(packed_index).outputs_referred > 0


def test_stderr_in_a_pipe_names_each_phase_and_the_json_is_unchanged(packed_build, tmp_path):
    """One plain line as each step starts (no carriage return); ``-q`` none; stdout the same."""
    told, quiet = tmp_path / "told", tmp_path / "quiet"
    for folder in (told, quiet):
        shutil.copytree(packed_build, folder)
    proc = threadback("index", "--compact", "--json", "--db", str(told / "index.sqlite3"))
    silent = threadback("index", "--compact", "--json", "-q", "--db", str(quiet / "index.sqlite3"))
    assert proc.returncode == silent.returncode == 0, proc.stderr + silent.stderr
    lines = proc.stderr.splitlines()
    assert "\r" not in proc.stderr and "\x1b" not in proc.stderr
    assert lines[0].startswith("compact: replacing packed tool output") and lines[0].endswith(" logs")
    assert any(line.startswith("compact: merging full-text table fts of index.sqlite3 (1 of ") for line in lines)
    assert any(line.startswith("compact: merging full-text table fts_side of index.sqlite3.side") for line in lines)
    vacuums = [line.split(" (")[0] for line in lines if line.startswith("compact: VACUUM of ")]
    assert vacuums == ["compact: VACUUM of index.sqlite3", "compact: VACUUM of index.sqlite3.side"]
    assert silent.stderr == ""
    report = json.loads(proc.stdout)
    assert proc.stdout.count("\n") == 1 and set(report) == JSON_KEYS
    assert all(set(f) == FILE_KEYS for f in report["files"]) and report["outputs_referred"] > 0
    assert proc.stdout.replace(str(told), str(quiet)) == silent.stdout


def test_the_text_report_is_the_same_with_progress_on_stderr(packed_build, tmp_path):
    told, quiet = tmp_path / "told", tmp_path / "quiet"
    for folder in (told, quiet):
        shutil.copytree(packed_build, folder)
    proc = threadback("index", "--compact", "--db", str(told / "index.sqlite3"))
    silent = threadback("index", "--compact", "-q", "--db", str(quiet / "index.sqlite3"))
    assert proc.returncode == silent.returncode == 0
    assert "compact: VACUUM of index.sqlite3 (" in proc.stderr and "compact:" not in proc.stdout
    assert proc.stdout == silent.stdout and "compacted: " in proc.stdout


def test_on_a_terminal_one_line_is_redrawn_and_cleared(packed_index):
    """Stderr a pseudo-terminal, stdout a pipe: the steps overwrite one line, which is wiped
    at the end, and the JSON on stdout is what it is anywhere else."""
    master, slave = os.openpty()
    shown: list[bytes] = []

    def read_terminal() -> None:
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the child and we have closed the terminal's other side
                return
            if not chunk:
                return
            shown.append(chunk)

    reader = threading.Thread(target=read_terminal, daemon=True)
    reader.start()
    try:
        proc = subprocess.run([sys.executable, "-m", "tui.cli", "index", "--compact", "--json",
                               "--db", str(packed_index)], stdout=subprocess.PIPE, stderr=slave,
                              env=cli_env(), cwd=REPO, timeout=60, text=True)
    finally:
        os.close(slave)
        reader.join(5)
        os.close(master)
    text = b"".join(shown).decode("utf-8", "replace")
    assert proc.returncode == 0 and set(json.loads(proc.stdout)) == JSON_KEYS
    assert "\n" not in text  # no line of its own: every step redrawn in place
    assert "\rcompact: replacing packed tool output " in text and " logs" in text
    assert "\rcompact: merging full-text table " in text and "\rcompact: VACUUM of index.sqlite3.side (" in text
    assert text.endswith("\r\x1b[K")  # the last thing drawn is the line wiped


def test_in_a_pipe_the_log_count_is_a_line_now_and_then_and_no_logs_is_no_line(capsys, monkeypatch):
    from indexer.upkeep.compact import CompactStep
    from tui.cli.compact import CompactReporter

    reporter = CompactReporter(on_terminal=False)
    reporter(CompactStep(REFER, 0, 0))  # nothing packed: nothing to say
    assert capsys.readouterr().err == ""
    reporter(CompactStep(REFER, 0, 3))
    reporter(CompactStep(REFER, 1, 3))  # within the minute: no line
    monkeypatch.setattr(CompactReporter, "PLAIN_COUNT_EVERY", 0.0)
    reporter(CompactStep(REFER, 2, 3))
    reporter(CompactStep(REFER, 3, 3))  # the end needs no count: the next step's line follows
    reporter.close()
    assert capsys.readouterr().err.splitlines() == [
        "compact: replacing packed tool output with references, 3 logs", "compact: ... 2/3 logs"]


def _without_stderr(*argv: str) -> subprocess.CompletedProcess:
    """``threadback ARGV 2>&-``: started with no stderr at all (Python makes ``sys.stderr`` None)."""
    def close_stderr() -> None:
        os.close(2)

    return subprocess.run([sys.executable, "-m", "tui.cli", *argv], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                          preexec_fn=close_stderr, env=cli_env(), cwd=REPO, text=True, timeout=120)


def test_started_without_stderr_compact_and_index_still_work_and_stdout_stays_clean(packed_build, tmp_path):
    """``2>&-`` (a cron line, a daemon): progress and warnings go nowhere, never into stdout."""
    shutil.copytree(packed_build, tmp_path / "data")
    db = str(tmp_path / "data" / "index.sqlite3")
    compacted = _without_stderr("index", "--compact", "--json", "--db", db)
    assert compacted.returncode == 0
    assert set(json.loads(compacted.stdout)) == JSON_KEYS  # the only thing on stdout
    indexed = _without_stderr("--claude-dir", str(tmp_path / "none"), "index", "--db", db)
    assert indexed.returncode == 0 and "unexpected error" not in indexed.stdout


def test_stderr_closed_by_its_reader_ends_the_lines_not_the_compaction(packed_build, tmp_path):
    """``threadback index --compact 2>&1 | head -1``: the reader goes away; the compaction runs
    to its end (every log, every table, both VACUUMs) and still reports on stdout."""
    shutil.copytree(packed_build, tmp_path / "data")
    proc = subprocess.Popen([sys.executable, "-m", "tui.cli", "index", "--compact", "--json", "--db",
                             str(tmp_path / "data" / "index.sqlite3")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=cli_env(), cwd=REPO, text=True)
    proc.stderr.close()  # before the first progress line: every write to stderr now fails
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 0
    report = json.loads(out)
    quiet = tmp_path / "quiet"
    shutil.copytree(packed_build, quiet)
    told = json.loads(threadback("index", "--compact", "--json", "-q", "--db", str(quiet / "index.sqlite3")).stdout)
    assert report["outputs_referred"] == told["outputs_referred"] > 0
    assert len(report["files"]) == 2 and report["files"][0]["bytes_after"] < report["files"][0]["bytes_before"]


def test_a_status_line_whose_terminal_is_gone_stops_drawing_without_raising(monkeypatch):
    from tui.cli.render import StatusLine

    closed = open(os.devnull, "w")
    closed.close()
    monkeypatch.setattr(sys, "stderr", closed)
    line = StatusLine()
    line.show("compact: merging", now=True)  # ValueError: I/O operation on a closed file
    line.show("compact: VACUUM", now=True)
    line.clear()
