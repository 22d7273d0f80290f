"""A prepared file crosses the pipe from the helper process pickled, its rows as plain tuples
(cheaper both ways than named tuples): the writer must get back the very rows it would have
made itself, as ``MessageRow``s it reads by name."""

from __future__ import annotations

import pickle

from indexer.ingest.job_list import FileJob
from indexer.ingest.prepare import for_the_writer, prepare_safely
from indexer.store.rows import MessageRow

from conftest import CORPUS, FIXED_NOW


def _prepared(path):
    st = path.stat()
    return for_the_writer(prepare_safely(FileJob("claude-code", str(path), st.st_size, st.st_mtime_ns, st.st_ino, None, None), FIXED_NOW))


def test_rows_come_back_as_the_same_message_rows():
    prepared_logs = [_prepared(log) for log in sorted((CORPUS / "claude-code").rglob("*.jsonl"))[:12]]
    with_rows = [prepared for prepared in prepared_logs if prepared.rows and prepared.problem is None]
    assert len(with_rows) >= 3
    for prepared in with_rows:
        payload = pickle.dumps(prepared, protocol=pickle.HIGHEST_PROTOCOL)
        assert b"MessageRow" not in payload  # rows travel as plain tuples
        back = pickle.loads(payload)
        assert all(type(row) is MessageRow for row in back.rows)
        assert back.rows == prepared.rows
        assert back.rows[0].text == prepared.rows[0].text  # read by name, as the writer reads them
        assert {k: v for k, v in vars(back).items() if k != "rows"} == {k: v for k, v in vars(prepared).items() if k != "rows"}
