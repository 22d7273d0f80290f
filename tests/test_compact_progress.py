"""``index --compact`` tells where it is: ``compact_index`` reports each step to a callback."""

from __future__ import annotations

import shutil
from itertools import groupby
from pathlib import Path

import pytest

from indexer import Index
from indexer.ingest.compact import MERGE, REFER, VACUUM, compact_index

from conftest import FIXED_NOW, corpus_roots


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
