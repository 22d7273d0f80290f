"""Search by meaning: its vectors are built with the index and only for what is new, forgotten
with the messages they were made from, and everything fails open (no model, no vectors, damaged
vectors, meaning turned off) with a one-line reason."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agent_logs import build_index, claude_session
from cli_process import REPO, cli_env
from conftest import FIXED_NOW
from indexer import Index, only_roots
from indexer.search.meaning import meaning_hits, meaning_status
from indexer.vectors import model as vector_model
from indexer.vectors import store
from indexer.vectors.codes import EMBEDDED_WHERE, embedded_text, to_codes

LOCKED = ["sqlite keeps raising database is locked when two workers write at once",
          "Switch the journal to WAL and give every connection a busy timeout so a writer waits"]
CRON = ["the scheduled workflow fails every Monday morning but pushes are green",
        "The cron line 0 6 * * 1 runs weekly; its restored cache key had expired, so I pinned the runner"]
BUTTON = ["make the login button blue", "Changed the colour of the login button in the stylesheet"]


@pytest.fixture
def logs(tmp_path: Path) -> Path:
    root = tmp_path / "logs"
    claude_session(root, "s-locked", "ledger", LOCKED, day=1)
    claude_session(root, "s-cron", "pipelines", CRON, day=2)
    claude_session(root, "s-button", "web", BUTTON, day=3)
    return root


@pytest.fixture
def embedded(monkeypatch) -> list[str]:
    """Every text the real model embeds while building vectors (queries are embedded elsewhere)."""
    seen: list[str] = []
    real = vector_model.WordLlamaEmbedder.embed

    def counting(self, texts):
        seen.extend(texts)
        return real(self, texts)

    import indexer.vectors.build as build

    real_codes_of = build.codes_of
    monkeypatch.setattr(build, "codes_of", lambda embedder, texts: (seen.extend(texts), real_codes_of(embedder, texts))[1])
    return seen


def update(root: Path, db: Path) -> None:
    with Index(db) as index:
        index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW)


def stored(db: Path) -> dict[int, bytes]:
    conn = sqlite3.connect(db)
    try:
        ids, codes = store.read_all(conn, 32)
    finally:
        conn.close()
    return {int(i): codes[k].tobytes() for k, i in enumerate(ids)}


def expected(db: Path) -> dict[int, bytes]:
    """What the codes must be: one per message that gets a vector, made from its text as it is now."""
    conn = sqlite3.connect(db)
    rows = conn.execute(f"SELECT id, text FROM messages WHERE {EMBEDDED_WHERE} ORDER BY id").fetchall()
    conn.close()
    embedder = vector_model.load_embedder()
    codes = to_codes(embedder.embed([embedded_text(t) for _, t in rows]))
    return {i: codes[k].tobytes() for k, (i, _) in enumerate(rows)}


def session_of(db: Path, message_id: int) -> str:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT s.session_id FROM messages m JOIN sessions s ON s.id = m.session_rowid"
                            " WHERE m.id = ?", (message_id,)).fetchone()[0]
    finally:
        conn.close()


def test_an_index_run_builds_a_code_for_every_message_people_and_agents_wrote(logs, tmp_path, embedded):
    db = build_index(logs, tmp_path / "index.sqlite3")
    assert stored(db) == expected(db)
    assert len(embedded) == 6  # user and assistant text; no tool calls or output here
    assert "ready (6 messages)" in meaning_status(db)


def test_the_paraphrase_finds_the_session_that_shares_no_words_with_it(logs, tmp_path):
    db = build_index(logs, tmp_path / "index.sqlite3")
    hits = meaning_hits(db, "the time the db kept saying it was locked", 3)
    assert hits and session_of(db, hits[0][0]) == "s-locked"
    assert [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
    assert len(meaning_hits(db, "styling the sign in control", 1)) == 1


def test_an_appended_line_is_the_only_message_embedded(logs, tmp_path, embedded, monkeypatch):
    import indexer.vectors.build as build

    db = build_index(logs, tmp_path / "index.sqlite3")
    monkeypatch.setattr(build, "EMBED_FROM", 1)  # one new message is enough to embed
    embedded.clear()
    log = next(logs.rglob("s-button.jsonl"))
    with log.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"type": "user", "uuid": "s-button-9", "sessionId": "s-button", "cwd": "/w/web",
                             "timestamp": "2026-03-03T10:09:00Z",
                             "message": {"role": "user", "content": "now make the logout link red as well"}}) + "\n")
    update(logs, db)
    assert embedded == ["now make the logout link red as well"]
    assert stored(db) == expected(db)
    embedded.clear()
    update(logs, db)  # nothing new: the model is not even loaded
    assert embedded == []


def test_a_few_new_messages_wait_for_a_later_run_and_a_search_by_meaning_finds_them(logs, tmp_path, monkeypatch,
                                                                                     embedded):
    """A run that finds fewer than ``EMBED_FROM`` new messages leaves them (a hook's run after a
    turn would pay ~170 ms to load the model); a search by meaning embeds them from their text
    meanwhile, and the run that finds ``EMBED_FROM`` embeds them all."""
    import indexer.vectors.build as build

    db = build_index(logs, tmp_path / "index.sqlite3")
    before = stored(db)
    embedded.clear()
    claude_session(logs, "s-docker", "deploy", ["the docker image is far too big to push to the registry",
                                                "Moved to a slim base image with a multi-stage build"], day=4)
    update(logs, db)
    assert embedded == [] and stored(db) == before  # left waiting
    assert "the 2 newest embedded as they are searched" in meaning_status(db)
    hits = meaning_hits(db, "shrinking the container so the upload is smaller", 3)
    assert hits and session_of(db, hits[0][0]) == "s-docker"
    monkeypatch.setattr(build, "EMBED_FROM", 3)
    claude_session(logs, "s-docker-2", "deploy", ["and the layer cache keeps missing on CI"], day=5)
    update(logs, db)
    assert len(embedded) == 3 and stored(db) == expected(db)
    assert "ready (" in meaning_status(db) and "newest" not in meaning_status(db)


def test_new_tool_calls_and_output_alone_do_not_load_the_model(logs, tmp_path, monkeypatch):
    db = build_index(logs, tmp_path / "index.sqlite3")
    loads = []
    monkeypatch.setattr(vector_model, "load_embedder", lambda *a: loads.append(a) or pytest.fail("model loaded"))
    log = next(logs.rglob("s-button.jsonl"))
    env = {"sessionId": "s-button", "cwd": "/w/web", "timestamp": "2026-03-03T10:09:00Z"}
    with log.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"type": "assistant", "uuid": "s-button-8", **env, "message": {
            "id": "msg_s-button_8", "role": "assistant", "model": "claude-x", "content": [
                {"type": "tool_use", "id": "toolu_8", "name": "Bash", "input": {"command": "ls"}}]}}) + "\n")
        fh.write(json.dumps({"type": "user", "uuid": "s-button-9", **env, "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_8", "content": "style.css"}]}}) + "\n")
    update(logs, db)
    conn = sqlite3.connect(db)
    top = conn.execute("SELECT max(id) FROM messages").fetchone()[0]
    assert int(store.meta_value(conn, "meaning_through")) == top
    conn.close()
    assert loads == []
    monkeypatch.undo()
    assert stored(db) == expected(db)


def test_a_log_read_again_from_its_start_drops_its_old_codes_and_embeds_its_new_messages(logs, tmp_path):
    db = build_index(logs, tmp_path / "index.sqlite3")
    before = stored(db)
    old = {i for i in before if session_of(db, i) == "s-cron"}
    claude_session(logs, "s-cron", "pipelines", ["rename the settings page", "Renamed it to Preferences"], day=2)
    update(logs, db)
    after = stored(db)
    assert after == expected(db)
    assert not old & set(after) or all(after[i] != before[i] for i in old & set(after))
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM meaning_gone").fetchone()[0] == 0
    conn.close()


def test_an_id_given_again_to_another_message_gets_that_message_code(logs, tmp_path):
    """SQLite gives out the largest id plus one: a deleted last message's id comes back with
    other text, which the trigger's log makes the update embed again."""
    from indexer.vectors.build import update_meaning

    db = build_index(logs, tmp_path / "index.sqlite3")
    conn = sqlite3.connect(db, isolation_level=None)
    top = conn.execute("SELECT max(id) FROM messages").fetchone()[0]
    row = conn.execute("SELECT session_rowid, file_id, ordinal, role, kind FROM messages WHERE id = ?", (top,)).fetchone()
    before = stored(db)[top]
    conn.execute("DELETE FROM messages WHERE id = ?", (top,))
    conn.execute("INSERT INTO messages (id, session_rowid, file_id, ordinal, role, kind, text, indexed)"
                 " VALUES (?, ?, ?, ?, ?, ?, 'a different message about tax forms', 1)", (top, *row))
    assert update_meaning(conn) == []
    conn.close()
    assert stored(db) == expected(db)
    assert stored(db)[top] != before


def test_a_log_rewritten_with_fewer_messages_leaves_no_code_behind(logs, tmp_path):
    db = build_index(logs, tmp_path / "index.sqlite3")
    claude_session(logs, "s-locked", "ledger", ["only one line now"], day=1)
    update(logs, db)
    assert stored(db) == expected(db)
    hits = meaning_hits(db, "database is locked", 10)
    assert all(session_of(db, m) != "s-locked" or m in expected(db) for m, _ in hits)


def test_meaning_turned_off_drops_the_vectors_and_says_so(logs, tmp_path, private_threadback_home):
    db = build_index(logs, tmp_path / "index.sqlite3")
    (private_threadback_home / "config.toml").write_text("[meaning]\nenabled = false\n")
    update(logs, db)
    conn = sqlite3.connect(db)
    assert not store.has_tables(conn)
    conn.close()
    assert meaning_hits(db, "database locked", 5) is None
    assert "off" in meaning_status(db) and "[meaning]" in meaning_status(db)
    (private_threadback_home / "config.toml").write_text("[meaning]\nenabled = true\n")
    assert meaning_hits(db, "database locked", 5) is None
    assert "next index run" in meaning_status(db)
    update(logs, db)
    assert stored(db) == expected(db)


def test_a_bad_switch_value_is_a_config_error_naming_the_line(logs, tmp_path, private_threadback_home):
    """Like every other setting (``indexer.config_file``): a value that is not a boolean is one
    ``ConfigError`` naming the file and line, never a silent default."""
    from indexer.config import ConfigError, load_meaning_setting

    (private_threadback_home / "config.toml").write_text("[meaning]\nenabled = \"no\"\n")
    with pytest.raises(ConfigError) as caught:
        load_meaning_setting()
    assert ":2: [meaning] enabled must be true or false" in str(caught.value)


def test_damaged_vectors_fail_open_and_the_next_run_builds_them_again(logs, tmp_path):
    db = build_index(logs, tmp_path / "index.sqlite3")
    conn = sqlite3.connect(db)
    conn.execute("UPDATE meaning_blocks SET codes = x'00'")
    conn.commit()
    conn.close()
    assert meaning_hits(db, "database locked", 5) is None
    assert "failed" in meaning_status(db) and "block 0" in meaning_status(db)
    with Index(db) as index:
        summary = index.update(only_roots({"claude-code": [logs]}), now=FIXED_NOW)
    assert any("damaged" in p for p in summary.problems)
    update(logs, db)
    assert stored(db) == expected(db)
    assert meaning_hits(db, "database locked", 5)


def test_an_index_without_vectors_yet_says_when_they_come(logs, tmp_path):
    assert "no index" in meaning_status(tmp_path / "none.sqlite3")
    assert meaning_hits(tmp_path / "none.sqlite3", "anything", 5) is None


# The model's packages made impossible to import, in a fresh process: the index run works, the
# search by meaning answers None, and the status names the missing package.
WITHOUT_PACKAGES = r"""
import json, sys
from importlib.abc import MetaPathFinder

class Refuse(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {BLOCKED}:
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None

sys.meta_path.insert(0, Refuse())
from pathlib import Path
from indexer import Index, only_roots
from indexer.search.meaning import meaning_hits, meaning_status
db = Path(sys.argv[1])
with Index(db) as index:
    summary = index.update(only_roots({"claude-code": [Path(sys.argv[2])]}))
    found = index.search("locked").hits
print(json.dumps({"hits": meaning_hits(db, "database locked", 5), "status": meaning_status(db),
                  "problems": summary.problems, "words": len(found)}))
"""


@pytest.mark.parametrize("blocked", [("wordllama",), ("tokenizers", "safetensors"), ("numpy",)])
def test_without_the_model_package_search_is_by_words_and_says_why(logs, tmp_path, blocked):
    code = WITHOUT_PACKAGES.replace("{BLOCKED}", repr(set(blocked)))
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "index.sqlite3"), str(logs)],
                          capture_output=True, text=True, env=cli_env(), cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["hits"] is None
    assert out["problems"] == []
    assert out["words"] >= 1
    assert out["status"].startswith("search by meaning is unavailable")
    assert any(name in out["status"] for name in blocked), out["status"]


# The network made unreachable: loading the model and searching never tries it, and never loads
# the download code of wordllama's own loader.
OFFLINE = r"""
import json, socket, sys
def refuse(*args, **kwargs):
    raise OSError("network is blocked in this test")
socket.socket.connect = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
from pathlib import Path
from indexer import Index, only_roots
from indexer.search.meaning import meaning_hits
db = Path(sys.argv[1])
with Index(db) as index:
    index.update(only_roots({"claude-code": [Path(sys.argv[2])]}))
hits = meaning_hits(db, "the time the db kept saying it was locked", 3)
print(json.dumps({"hits": hits, "loaded": sorted(m for m in sys.modules if m.split(".")[0] in
                  ("requests", "urllib3", "huggingface_hub", "wordllama", "pydantic"))}))
"""


def test_the_model_loads_and_searches_with_the_network_blocked(logs, tmp_path):
    done = subprocess.run([sys.executable, "-c", OFFLINE, str(tmp_path / "index.sqlite3"), str(logs)],
                          capture_output=True, text=True, env=cli_env(), cwd=REPO, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["hits"] and session_of(tmp_path / "index.sqlite3", out["hits"][0][0]) == "s-locked"
    assert out["loaded"] == []


def test_hamming_ranking_agrees_with_the_codes_bit_for_bit():
    from indexer.vectors.codes import hamming

    rng = np.random.default_rng(3)
    codes = rng.integers(0, 256, size=(50, 32), dtype=np.uint8)
    query = rng.integers(0, 256, size=32, dtype=np.uint8)
    by_bits = (np.unpackbits(codes, axis=1) != np.unpackbits(query)).sum(axis=1)
    assert (hamming(codes, query) == by_bits).all()


def test_importing_the_search_by_meaning_loads_neither_numpy_nor_the_model():
    code = ("import sys; import indexer.search.meaning; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'tokenizers', 'safetensors')"
            " or m.startswith('indexer.vectors')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=cli_env(), cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_much_waiting_work_is_embedded_in_a_process_of_its_own(logs: Path, tmp_path: Path, monkeypatch, embedded):
    """A cold build of a big history embeds in a child process (the writer's page cache and the
    model's tables apart, each process under its memory target): the codes it stores are the
    ones the index run would have made itself, and nothing was embedded in this process."""
    import indexer.vectors.build as build

    monkeypatch.setattr(build, "APART_FROM", 1)  # this small history counts as a big one
    monkeypatch.setattr(build, "EMBED_FROM", 1)  # and what a later run adds is embedded at once
    db = tmp_path / "index.sqlite3"
    update(logs, db)
    assert embedded == []  # not here: in the child
    assert stored(db) == expected(db) and len(stored(db)) >= 6
    claude_session(logs, "s-more", "web", ["the navbar overlaps the hero image on phones", "Gave the hero a top margin"],
                   day=4)
    update(logs, db)  # the same way for what a later run adds
    assert embedded == [] and stored(db) == expected(db)


def test_a_big_run_embeds_while_it_reads_in_a_process_beside_it(logs: Path, tmp_path: Path, monkeypatch, embedded):
    """A run reading much starts an embedding process before it reads (``indexer.vectors.follow``):
    the codes are the ones the run would have made itself, nothing is embedded in this process,
    and the run's own embedding step finds nothing left."""
    import indexer.vectors.follow as follow

    started = []
    real_start = follow.EmbeddingAlongside.__init__

    def counting_start(self, db_path):
        started.append(db_path)
        real_start(self, db_path)

    monkeypatch.setattr(follow, "ALONGSIDE_FROM_BYTES", 1)  # this small history counts as a big one
    monkeypatch.setattr(follow.EmbeddingAlongside, "__init__", counting_start)
    db = tmp_path / "index.sqlite3"
    update(logs, db)
    assert len(started) == 1 and embedded == []
    assert stored(db) == expected(db) and len(stored(db)) >= 6
    update(logs, db)  # nothing to read: nothing started
    assert len(started) == 1


def test_the_embedding_beside_a_run_takes_messages_as_they_are_committed(logs: Path, tmp_path: Path, embedded,
                                                                         private_threadback_home):
    """``follow`` embeds what the runs commit until told they are done, then stores it all and
    embeds the rest: messages committed while it waits are embedded, a message deleted after it
    was embedded loses its code, and what is stored is what an embedding after the run stores."""
    import threading
    import time

    from indexer.vectors.follow import follow

    config = private_threadback_home / "config.toml"
    config.write_text("[meaning]\nenabled = false\n")  # the runs below embed nothing themselves
    db = tmp_path / "index.sqlite3"
    update(logs, db)
    first = LOCKED + CRON + BUTTON
    done = threading.Event()
    problems: list[list[str]] = []
    worker = threading.Thread(target=lambda: problems.append(follow(str(db), done)))
    worker.start()
    try:
        deadline = time.monotonic() + 30
        while len(embedded) < len(first) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert sorted(embedded) == sorted(first)  # the first run's messages, before the next run commits
        more = ["the navbar overlaps the hero image on phones", "Gave the hero a top margin"]
        claude_session(logs, "s-more", "web", more, day=4)
        update(logs, db)  # committed while it follows
        conn = sqlite3.connect(db)
        conn.execute("DELETE FROM messages WHERE text = ?", (LOCKED[0],))
        conn.commit()
        conn.close()
        config.write_text("[meaning]\nenabled = true\n")
    finally:
        done.set()
        worker.join(timeout=60)
    assert problems == [[]]
    assert embedded[len(first):] == more
    codes = stored(db)
    assert codes == expected(db) and len(codes) == len(first) - 1 + len(more)


@pytest.mark.parametrize("as_product, matrix_cells", [(True, vector_model.POOL_MATRIX_MAX), (True, 0), (False, vector_model.POOL_MATRIX_MAX)],
                         ids=["as-one-product", "matrix-too-big", "blas-on-many-threads"])
def test_a_text_vector_is_the_mean_of_its_token_rows_in_either_width_of_table(as_product, matrix_cells, monkeypatch):
    """Pooling (as one product where BLAS runs on one thread, else and when the batch's matrix
    would be too big a text at a time) against the plain mean of each text's rows of the
    table; the float32 table a search widens to gives the float16 one's vectors."""
    monkeypatch.setattr(vector_model, "POOL_MATRIX_MAX", matrix_cells)
    embedder = vector_model.load_embedder(vector_model.DEFAULT_MODEL)
    embedder.pool_as_product = as_product
    texts = ["the database is locked", "", "retry", "a longer text " * 40, "数据库", "retry the locked database"]
    flat, lengths = embedder._token_ids(texts)
    ids = np.frombuffer(flat, dtype=np.uint16).astype(np.int64)
    rows = embedder.table[ids].astype(np.float64)
    ends = np.cumsum(lengths)
    expected = np.array([rows[end - n:end].mean(axis=0) if n else np.zeros(embedder.dim)
                         for n, end in zip(lengths, ends)])
    pooled = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    embedder._pool(ids, np.array(lengths), pooled)
    assert 0 in lengths and np.abs(pooled - expected).max() < 1e-5
    narrow = embedder.embed(texts)
    embedder.for_search()
    assert embedder.table.dtype == np.float32 and np.abs(embedder.embed(texts) - narrow).max() < 1e-6


def test_the_embedding_processes_pool_as_one_product_on_one_blas_thread():
    """They are started with BLAS on one thread, which is when pooling is one product a batch;
    a process started otherwise (the app's searches) pools a text at a time."""
    from indexer.vectors.build import child_env

    script = ("from indexer.vectors.model import load_embedder, DEFAULT_MODEL;"
              " print(load_embedder(DEFAULT_MODEL).pool_as_product)")
    plain = {k: v for k, v in child_env().items() if k not in vector_model.BLAS_THREADS}
    asked = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60).stdout.strip()
             for env in (child_env(), plain)]
    assert asked == ["True", "False"]


def test_text_of_other_scripts_is_left_out_of_what_is_embedded_and_each_text_keeps_its_own():
    """The English model gets each text's words with every run of another script cut out, as
    the regular expression below defines it: a batch is cleaned at once, so a text must not take
    a neighbour's characters (an astral emoji, a lone surrogate, a long text cut at its head)."""
    import re

    from indexer.vectors.codes import HEAD_CHARS, embedded_texts

    other_scripts = re.compile("[^\x00-\u052f\u1e00-\u1eff\u2000-\u206f]+")
    texts = ["plain ascii text", "数据库 locked again", "café naïve Ωmega Ж", "emoji🙂inside and 日本語の説明",
             "lone \ud800surrogate", "Ḁ\u2014dash\u205fspace\u2070super", "", "中文" * 1500 + " tail words",
             "x" * (HEAD_CHARS - 1) + "字 after the head"]
    cleaned = embedded_texts(texts)
    assert [t.split() for t in cleaned] == [other_scripts.sub(" ", t[:HEAD_CHARS]).split() for t in texts]
    assert cleaned[1].split() == ["locked", "again"] and cleaned[3].split() == ["emoji", "inside", "and"]
    assert embedded_texts(texts, keep_all_scripts=True) == [t[:HEAD_CHARS] for t in texts]
    assert [embedded_texts([t])[0] for t in texts] == cleaned
