"""The archive (issue 17): every log is kept as it is indexed (a hard link while the agent keeps
it, zstd frames once it is deleted or where no link can be made), and `restore` writes it back
byte for byte after the agent deleted it, across appends, rewrites and crashes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer import Index, only_roots
from indexer.archive import ArchiveError, RestoreRefused, archive_size
from indexer.archive.manifest import data_path, load_manifest, manifest_path

from agent_logs import claude_session
from cli_process import assert_one_line_no_traceback, threadback
from conftest import FIXED_NOW


def index_logs(db: Path, root: Path, *, archive: bool | None = True):
    with Index(db) as index:
        return index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW, archive=archive)


def append_turn(log: Path, sid: str, i: int, text: str) -> None:
    line = {"type": "user", "uuid": f"{sid}-{i}", "sessionId": sid, "cwd": "/w/demo",
            "timestamp": f"2026-03-01T11:{i:02d}:00Z", "message": {"role": "user", "content": text}}
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")


def restore(db: Path, sid: str, **kw):
    with Index(db) as index:
        return index.restore(index.session(sid), **kw)


def test_a_deleted_log_comes_back_byte_for_byte(tmp_path):
    log = claude_session(tmp_path / "logs", "s1", "demo", ["first question", "an answer 漢字 ✓"])
    original = log.read_bytes()
    summary = index_logs(tmp_path / "i.sqlite3", tmp_path / "logs")
    assert summary.archive_files == 1 and summary.archive_bytes == 0  # a link shared with the log
    log.unlink()
    summary = index_logs(tmp_path / "i.sqlite3", tmp_path / "logs")  # sealed into frames
    assert summary.archive_files == 1 and 0 < summary.archive_bytes < len(original) + 100
    with Index(tmp_path / "i.sqlite3") as index:
        session = index.session("s1")
        assert session.source_missing and session.archived_only
    restored = restore(tmp_path / "i.sqlite3", "s1")
    assert not restored.unchanged and log.read_bytes() == original
    assert restore(tmp_path / "i.sqlite3", "s1").unchanged  # identical file: nothing written


def test_appends_over_several_runs_and_a_rewrite_restore_exactly(tmp_path, frames_only):
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two"])
    index_logs(db, root)
    for i in range(3):  # each run reads only the new lines: one more frame each
        append_turn(log, "s1", 10 + i, f"appended {i}")
        assert index_logs(db, root).files_appended == 1
    manifest = load_manifest(manifest_path(tmp_path / "archive", str(log)), str(log))
    assert manifest is not None and len(manifest.frames) == 4 and manifest.length == log.stat().st_size
    grown = log.read_bytes()
    log.unlink()
    restore(db, "s1")
    assert log.read_bytes() == grown
    # Rewritten shorter: a new generation replaces the old copy, which is removed.
    log.write_text(grown.decode().splitlines()[0] + "\n", encoding="utf-8")
    assert index_logs(db, root).files_reindexed == 1
    rewritten = load_manifest(manifest_path(tmp_path / "archive", str(log)), str(log))
    assert rewritten.generation == manifest.generation + 1 and len(rewritten.frames) == 1
    assert not data_path(manifest_path(tmp_path / "archive", str(log)), manifest.generation).exists()
    short = log.read_bytes()
    log.unlink()
    restore(db, "s1", to=str(tmp_path / "elsewhere" / "copy.jsonl"))  # parents created
    assert (tmp_path / "elsewhere" / "copy.jsonl").read_bytes() == short


def test_a_crash_between_frame_and_manifest_loses_nothing(tmp_path, frames_only):
    """Bytes a crash left after the last listed frame are ignored, then cut off by the next append."""
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two"])
    index_logs(db, root)
    mf = manifest_path(tmp_path / "archive", str(log))
    with open(data_path(mf, 0), "ab") as fh:
        fh.write(b"half a frame from a crash")
    append_turn(log, "s1", 10, "after the crash")
    index_logs(db, root)
    expected = log.read_bytes()
    log.unlink()
    restore(db, "s1")
    assert log.read_bytes() == expected


def test_switched_off_no_archive_is_kept(tmp_path, monkeypatch):
    config = tmp_path / "config.toml"
    config.write_text("[archive]\nenabled = false\n", encoding="utf-8")
    monkeypatch.setenv("THREADBACK_CONFIG", str(config))
    log = claude_session(tmp_path / "logs", "s1", "demo", ["one", "two"])
    summary = index_logs(tmp_path / "i.sqlite3", tmp_path / "logs", archive=None)
    assert summary.archive_files == 0 and not (tmp_path / "archive").exists()
    log.unlink()
    index_logs(tmp_path / "i.sqlite3", tmp_path / "logs", archive=None)
    with Index(tmp_path / "i.sqlite3") as index:
        assert index.session("s1").source_missing and not index.session("s1").archived_only
    with pytest.raises(ArchiveError, match="no archived copy"):
        restore(tmp_path / "i.sqlite3", "s1")


def test_switching_it_on_later_copies_the_logs_already_indexed(tmp_path):
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two"])
    index_logs(db, root, archive=False)
    assert index_logs(db, root, archive=True).archive_files == 1  # nothing changed, copied all the same
    original = log.read_bytes()
    log.unlink()
    restore(db, "s1")
    assert log.read_bytes() == original


def test_a_different_file_in_the_way_is_kept_unless_forced(tmp_path):
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two"])
    original = log.read_bytes()
    index_logs(db, root)
    log.unlink()  # another file in its place (a new inode: the archived link keeps the log)
    log.write_bytes(b"someone else's file\n")
    with pytest.raises(RestoreRefused):
        restore(db, "s1")
    assert log.read_bytes() == b"someone else's file\n"
    restore(db, "s1", force=True)
    assert log.read_bytes() == original


def test_the_cli_restores_and_a_damaged_archive_is_one_clear_line(tmp_path):
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two"])
    original = log.read_bytes()
    done = threadback("--db", str(db), "--claude-dir", str(root), "index", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["archive_files"] == 1
    log.unlink()
    listed = threadback("--db", str(db), "--claude-dir", str(root), "index")
    assert " · archive " in listed.stdout
    sessions = threadback("--db", str(db), "sessions")
    assert "(archived copy only)" in sessions.stdout
    assert json.loads(threadback("--db", str(db), "sessions", "--json").stdout)[0]["archived_only"] is True
    done = threadback("--db", str(db), "restore", "s1")
    assert done.returncode == 0 and log.read_bytes() == original, done.stderr
    log.unlink()
    mf = manifest_path(tmp_path / "archive", str(log))
    zst = data_path(mf, load_manifest(mf).generation)  # the link, sealed when the log was gone
    damaged = bytearray(zst.read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    zst.write_bytes(bytes(damaged))
    done = threadback("--db", str(db), "restore", "s1")
    assert done.returncode == 4 and "damaged" in assert_one_line_no_traceback(done)
    assert not log.exists()  # nothing half-written
    assert archive_size(tmp_path / "archive").files == 1


def test_a_damaged_manifest_is_one_clear_line_and_a_new_copy_replaces_it(tmp_path):
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two"])
    index_logs(db, root)
    mf = manifest_path(tmp_path / "archive", str(log))
    mf.write_text("{not json", encoding="utf-8")
    log.unlink()
    done = threadback("--db", str(db), "restore", "s1")
    assert done.returncode == 4 and "manifest is damaged" in assert_one_line_no_traceback(done)
    # The log comes back by other means and is indexed again: the archive starts a fresh copy.
    claude_session(root, "s1", "demo", ["one", "two", "three"])
    index_logs(db, root)
    expected = log.read_bytes()
    log.unlink()
    restore(db, "s1")
    assert log.read_bytes() == expected


def test_a_damaged_manifest_with_no_copy_beside_it_is_replaced_when_the_log_is_linked_again(tmp_path):
    """The new link takes generation 0, which alone needs no manifest file: the damaged one is
    still replaced, or it would hide the link from every reader."""
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two"])
    index_logs(db, root)
    mf = manifest_path(tmp_path / "archive", str(log))
    for part in mf.parent.glob(f"{mf.stem}.*"):
        part.unlink()
    mf.write_text("{not json", encoding="utf-8")
    append_turn(log, "s1", 9, "three")
    index_logs(db, root)
    manifest = load_manifest(mf, str(log))  # raises while the damaged file is left
    assert manifest.linked and manifest.link_inode == log.stat().st_ino
    expected = log.read_bytes()
    log.unlink()
    index_logs(db, root)
    restore(db, "s1")
    assert log.read_bytes() == expected
