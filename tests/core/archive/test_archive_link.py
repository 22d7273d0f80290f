"""The archive's hard links: while the agent keeps a log the archived copy is a link to it (no
space, no compression), re-made when the log is replaced, sealed into zstd frames when the log
is deleted; where no link can be made, zstd frames as before."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

from indexer import Index
from indexer.archive import archive_size
from indexer.archive.manifest import Manifest, data_path, link_path, load_manifest, manifest_path

from agent_logs import claude_session
from conftest import FIXED_NOW
from test_archive import append_turn, index_logs, restore


def copy_of(tmp_path: Path, log: Path):
    mf = manifest_path(tmp_path / "archive", str(log))
    return mf, load_manifest(mf, str(log))


def test_a_kept_log_is_linked_and_its_deletion_seals_it_into_frames(tmp_path):
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two 漢字"])
    assert index_logs(db, root).archive_bytes == 0  # shared with the live log
    mf, manifest = copy_of(tmp_path, log)
    link = link_path(mf, manifest.generation)
    assert manifest.linked and not manifest.frames and not data_path(mf, manifest.generation).exists()
    assert link.stat().st_ino == log.stat().st_ino == manifest.link_inode
    index_logs(db, root)  # nothing changed: the same link, the same generation
    assert copy_of(tmp_path, log)[1] == manifest
    original = log.read_bytes()
    log.unlink()
    summary = index_logs(db, root)
    assert summary.files_missing == 1 and not summary.problems
    mf, sealed = copy_of(tmp_path, log)
    assert not sealed.linked and len(sealed.frames) == 1 and sealed.length == len(original)
    assert sealed.generation == manifest.generation + 1 and not link.exists()
    assert 0 < summary.archive_bytes == data_path(mf, sealed.generation).stat().st_size
    restore(db, "s1")
    assert log.read_bytes() == original


def test_a_log_moved_away_and_back_is_confirmed_by_its_hashes_not_read_again(tmp_path):
    """Its folder away for a run (moved, unmounted): the run marks it gone and seals its copy.
    Back as it was, the next run checks its hashes and marks it present; nothing is read again
    (20,000 logs back once took 40 s, each read and stored again) and its copy still restores."""
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["the pelican notes", "two"])
    kept = claude_session(root, "s2", "demo", ["other words"])
    index_logs(db, root)
    with Index(db) as index:
        ids = [r[0] for r in index.conn.execute("SELECT id FROM messages ORDER BY id")]
    original = log.read_bytes()
    away = tmp_path / "away.jsonl"
    os.rename(log, away)
    assert index_logs(db, root).files_missing == 1
    os.rename(away, log)
    back = index_logs(db, root)
    assert (back.files_returned, back.files_confirmed, back.files_changed, back.bytes_read) == (1, 1, 0, 0)
    with Index(db) as index:
        assert [r[0] for r in index.conn.execute("SELECT id FROM messages ORDER BY id")] == ids
        hits = index.search("pelican", now=FIXED_NOW, closest=False).hits
        assert hits and not hits[0].session.source_missing
    again = index_logs(db, root)
    assert (again.files_returned, again.files_confirmed, again.files_changed) == (0, 0, 0)
    assert kept.exists()
    log.unlink()
    index_logs(db, root)
    restore(db, "s1")
    assert log.read_bytes() == original


def test_a_name_left_by_a_crash_before_the_manifest_is_replaced_by_the_new_link(tmp_path):
    """A crash between making the link and writing the manifest leaves the link's name taken:
    the next copy links the log through a temp name over it."""
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two"])
    mf = manifest_path(tmp_path / "archive", str(log))
    stale = link_path(mf, 0)
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"left by a crash")
    assert index_logs(db, root).archive_bytes == 0
    manifest = load_manifest(mf)
    assert manifest.linked and link_path(mf, manifest.generation).stat().st_ino == log.stat().st_ino
    original = log.read_bytes()
    log.unlink()
    index_logs(db, root)
    restore(db, "s1")
    assert log.read_bytes() == original


def test_a_link_left_unsealed_restores_and_counts_its_size_when_alone(tmp_path):
    """A crash (or no run yet) between the deletion and the sealing: the link is the copy."""
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two"])
    index_logs(db, root)
    original = log.read_bytes()
    log.unlink()
    assert archive_size(tmp_path / "archive").bytes == len(original)  # st_nlink 1: its own space
    restored = restore(db, "s1")
    assert not restored.unchanged and restored.bytes == len(original) and log.read_bytes() == original
    assert restore(db, "s1").unchanged


def test_appended_bytes_show_in_the_link_and_restore(tmp_path):
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two"])
    index_logs(db, root)
    generation = copy_of(tmp_path, log)[1].generation
    append_turn(log, "s1", 10, "appended before any run")
    restore(db, "s1", to=str(tmp_path / "now.jsonl"))
    assert (tmp_path / "now.jsonl").read_bytes() == log.read_bytes()
    assert index_logs(db, root).files_appended == 1
    append_turn(log, "s1", 11, "appended after the run")
    assert copy_of(tmp_path, log)[1].generation == generation  # no new copy for an append
    grown = log.read_bytes()
    log.unlink()
    index_logs(db, root)
    restore(db, "s1")
    assert log.read_bytes() == grown


def test_a_replaced_log_is_linked_again(tmp_path):
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two"])
    index_logs(db, root)
    mf, before = copy_of(tmp_path, log)
    rewritten = log.with_name("rewrite.tmp")
    rewritten.write_bytes(log.read_bytes().splitlines(keepends=True)[0])
    os.replace(rewritten, log)  # rewritten via rename: a new inode
    assert index_logs(db, root).files_reindexed == 1
    _, after = copy_of(tmp_path, log)
    assert after.linked and after.generation == before.generation + 1
    assert after.link_inode == log.stat().st_ino != before.link_inode
    assert not link_path(mf, before.generation).exists()
    short = log.read_bytes()
    log.unlink()
    index_logs(db, root)
    restore(db, "s1")
    assert log.read_bytes() == short


def test_no_link_possible_keeps_zstd_frames(tmp_path, frames_only):
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two"])
    original = log.read_bytes()
    summary = index_logs(db, root)
    mf, manifest = copy_of(tmp_path, log)
    assert not manifest.linked and len(manifest.frames) == 1 and not link_path(mf, 0).exists()
    assert 0 < summary.archive_bytes < len(original) + 100 and not summary.problems
    log.unlink()
    index_logs(db, root)
    restore(db, "s1")
    assert log.read_bytes() == original


def test_a_stale_link_that_cannot_be_made_again_falls_back_to_frames(tmp_path, monkeypatch):
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two"])
    index_logs(db, root)
    mf, linked = copy_of(tmp_path, log)
    replacement = log.with_name("rewrite.tmp")
    replacement.write_bytes(log.read_bytes() + log.read_bytes().splitlines(keepends=True)[0])
    os.replace(replacement, log)
    monkeypatch.setattr("indexer.archive.link.os.link", lambda *a, **k: (_ for _ in ()).throw(PermissionError(1, "no")))
    index_logs(db, root)
    _, framed = copy_of(tmp_path, log)
    assert not framed.linked and framed.generation == linked.generation + 1 and framed.length == log.stat().st_size
    assert not link_path(mf, linked.generation).exists()
    expected = log.read_bytes()
    log.unlink()
    restore(db, "s1")
    assert log.read_bytes() == expected


def test_a_link_left_alone_by_a_run_without_the_archive_is_sealed_by_the_next(tmp_path):
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two"])
    index_logs(db, root)
    original = log.read_bytes()
    log.unlink()
    index_logs(db, root, archive=False)  # marked missing, nothing sealed
    mf, manifest = copy_of(tmp_path, log)
    assert manifest.linked and link_path(mf, manifest.generation).stat().st_nlink == 1
    assert not mf.exists()  # a first link: no manifest names the log, the files table's key does
    summary = index_logs(db, root)  # nothing changed in the index; the archive walk finds the lone link
    _, sealed = copy_of(tmp_path, log)
    assert not sealed.linked and sealed.length == len(original) and not summary.problems
    assert not link_path(mf, manifest.generation).exists()
    restore(db, "s1")
    assert log.read_bytes() == original


def test_making_a_link_does_not_make_the_next_run_read_the_log_again(tmp_path):
    """A new link moves the log's inode change time, which the index compares: it keeps the new one."""
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    claude_session(root, "s1", "demo", ["one", "two"])
    claude_session(root, "s2", "demo", ["three", "four"])
    index_logs(db, root)  # linked while read
    again = index_logs(db, root)
    assert again.bytes_read == 0 and again.files_changed == 0
    shutil.rmtree(tmp_path / "archive")
    index_logs(db, root, archive=False)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE files SET archived = 0")  # as before the archive was switched on
    assert index_logs(db, root).archive_files == 2  # linked by the backfill
    again = index_logs(db, root)
    assert again.bytes_read == 0 and again.files_changed == 0


def test_a_linked_manifest_is_one_a_build_from_before_the_links_refuses(tmp_path):
    """A log's first link has no manifest file (a build from before sees no copy and links the
    log again); a later link's manifest says version 2, which a build from before the links
    refuses; sealed, version 1, which any build reads."""
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one"])
    index_logs(db, root)
    mf, manifest = copy_of(tmp_path, log)
    assert manifest.linked and manifest.generation == 0 and not mf.exists()
    assert load_manifest(mf) is None  # what a caller without the key (or an older build) sees
    replaced = log.with_name("new.jsonl")
    replaced.write_bytes(log.read_bytes().replace(b'"one"', b'"two"'))  # rewritten: a new inode
    os.replace(replaced, log)
    index_logs(db, root)
    mf, manifest = copy_of(tmp_path, log)
    assert manifest.linked and manifest.generation == 1 and json.loads(mf.read_bytes())["version"] == 2
    assert not link_path(mf, 0).exists()
    log.unlink()
    index_logs(db, root)
    assert json.loads(mf.read_bytes())["version"] == 1  # sealed: frames, readable by any build


_KILLED_WHILE_SEALING = """
import os, signal, sys
from pathlib import Path
sys.path[:0] = {folders!r}
import indexer.archive.seal as seal
real = seal._seal
done = []
def seal_then_die(manifest_file, key):
    real(manifest_file, key)
    done.append(manifest_file)
    if len(done) == 1:
        os.kill(os.getpid(), signal.SIGKILL)  # kill -9 after the first of three links is sealed
seal._seal = seal_then_die
from test_archive import index_logs
index_logs(Path({db!r}), Path({root!r}))
"""


def test_a_kill_during_sealing_leaves_the_rest_for_the_next_run_and_the_size_right(tmp_path):
    """kill -9 while a run seals three deleted logs' links: the next run seals the two left, and
    the archive's size counts them (not the 0 of a stale figure from before the deletions)."""
    import subprocess
    import sys

    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    logs = [claude_session(root, f"s{i}", "demo", [f"question {i} " + "x" * 4000, "answer"]) for i in range(3)]
    assert index_logs(db, root).archive_bytes == 0  # three links shared with the live logs
    originals = {log: log.read_bytes() for log in logs}
    for log in logs:
        log.unlink()
    script = _KILLED_WHILE_SEALING.format(folders=[str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[2] / "support")], db=str(db), root=str(root))
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == -9, run.stderr
    linked = [log for log in logs if copy_of(tmp_path, log)[1].linked]
    assert len(linked) == 2  # killed after sealing one
    summary = index_logs(db, root)
    assert not summary.problems
    assert not any(copy_of(tmp_path, log)[1].linked for log in logs)
    on_disk = sum(p.stat().st_size for p in (tmp_path / "archive").rglob("*.zst"))
    assert summary.archive_bytes == on_disk > 0
    for log in logs:
        restore(db, log.stem)
        assert log.read_bytes() == originals[log]


def test_a_run_that_only_grew_logs_reports_the_archive_size_it_remembered_for_ten_minutes(tmp_path):
    """The archive's size is a walk with a stat per copy (50,000 logs: 50,000 stats), so a run
    that only found logs grown (a hook's, after each turn: no copy added or gone) reports the
    figure remembered in ``size.json`` while it is under 10 minutes old; a new log, or an older
    figure, walks again."""
    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    log = claude_session(root, "s1", "demo", ["one", "two"])
    assert index_logs(db, root).archive_files == 1
    remembered = tmp_path / "archive" / "size.json"
    figure = json.loads(remembered.read_text())
    remembered.write_text(json.dumps({**figure, "files": 7}))  # a walk would say 1
    append_turn(log, "s1", 5, "three")
    summary = index_logs(db, root)
    assert summary.files_appended == 1 and summary.archive_files == 7  # remembered
    eleven_minutes_ago = remembered.stat().st_mtime - 660
    os.utime(remembered, (eleven_minutes_ago, eleven_minutes_ago))
    append_turn(log, "s1", 6, "four")
    assert index_logs(db, root).archive_files == 1  # walked again
    remembered.write_text(json.dumps({**figure, "files": 7}))
    claude_session(root, "s2", "demo", ["a new log"])
    assert index_logs(db, root).archive_files == 2  # a copy added: walked


def test_a_first_link_has_no_manifest_file_and_reads_as_one(tmp_path):
    """A log's first link is the whole copy: no manifest file beside it (creating one was most of
    a many-small-logs build's archive cost), yet it is counted, read by range and restored."""
    from indexer.archive.ranges import clear_range_cache, read_range

    db, root = tmp_path / "i.sqlite3", tmp_path / "logs"
    logs = [claude_session(root, sid, "demo", ["one", f"two {sid}"]) for sid in ("s1", "s2")]
    summary = index_logs(db, root)
    assert summary.archive_files == 2 and summary.archive_bytes == 0
    for log in logs:
        mf, manifest = copy_of(tmp_path, log)
        assert not mf.exists() and manifest == Manifest(str(log), 0, [], log.stat().st_ino)
    assert sorted(p.name.split(".", 1)[1] for p in (tmp_path / "archive").rglob("*.*.link")) == ["0.link"] * 2
    clear_range_cache()
    assert read_range(tmp_path / "archive", str(logs[0]), 5, 20) == logs[0].read_bytes()[5:25]
    original = logs[0].read_bytes()
    logs[0].unlink()
    assert index_logs(db, root).archive_files == 2  # sealed: frames and a manifest file now
    restore(db, "s1")
    assert logs[0].read_bytes() == original


def test_a_log_whose_path_is_not_its_key_keeps_a_manifest_file(tmp_path):
    """A name that is not UTF-8 is stored under a key of ``\\xNN`` escapes: the key cannot stand
    for the path, so its first link gets a manifest file naming the path, as every link did."""
    from indexer.archive.writer import archive_read_bytes
    from indexer.text.storable import storable_path

    folder = tmp_path / "logs"
    folder.mkdir()
    raw = os.fsencode(folder) + b"/odd-\xff.jsonl"
    with open(raw, "wb") as fh:
        fh.write(b'{"type": "user"}\n')
    path = os.fsdecode(raw)
    key = storable_path(path)
    assert key != path
    outcome = archive_read_bytes(tmp_path / "archive", key, path, 0, b'{"type": "user"}\n')
    mf = manifest_path(tmp_path / "archive", key)
    assert outcome.archived and mf.exists()
    manifest = load_manifest(mf, key)
    assert manifest.linked and manifest.path == path and manifest.link_inode == os.stat(raw).st_ino
