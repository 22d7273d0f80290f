"""The steps a run takes once every log is read (search by meaning, merging the index) reach the
progress callback, and the command line's progress line says them: a long build's last minutes
are not a silent 100%, in the app either."""

from __future__ import annotations

from indexer import Index
from indexer.ingest.progress import IndexProgress
from tui.cli.render import ProgressLine

from conftest import FIXED_NOW, corpus_roots


def test_the_steps_after_reading_are_told(tmp_path):
    told: list[tuple[int, int, str]] = []
    with Index(tmp_path / "index.sqlite3") as index:
        summary = index.update(corpus_roots(), now=FIXED_NOW, archive=False,
                               progress=lambda p: told.append((p.files_done, p.files_total, p.step)))
    assert summary.files_changed > 0
    steps = [step for _, _, step in told]
    assert steps[-3:] == ["search by meaning", "merging the index", ""]
    assert all(done == total for done, total, step in told if step)  # told once the logs are read
    assert all(step == "" for step in steps[:-3])


def test_the_progress_line_shows_the_step(monkeypatch):
    lines: list[str] = []
    line = ProgressLine()
    monkeypatch.setattr(line, "show", lambda text, now=False: lines.append(text))
    line(IndexProgress(files_total=3, files_done=3, bytes_total=10, bytes_done=10, step="merging the index"))
    line(IndexProgress(files_total=3, files_done=1, bytes_total=10, bytes_done=4))
    assert lines[0].endswith("· merging the index…") and "left" not in lines[0]
    assert "…" not in lines[1]


def test_the_app_status_shows_the_step():
    from tui.app_context import IndexActivity
    from tui.widgets.status_bar import describe_activity

    done = IndexProgress(files_total=3, files_done=3, bytes_total=10, bytes_done=10, step="search by meaning")
    assert describe_activity(IndexActivity(done, show_bar=True)).endswith("· search by meaning…")
    reading = IndexProgress(files_total=3, files_done=1, bytes_total=10, bytes_done=4)
    assert "…" not in describe_activity(IndexActivity(reading, show_bar=True))
