"""Every kind of half-remembered query issue 32 names finds its session, through the CLI (a
real subprocess), the app (Pilot) and the MCP tool (the SDK client).

The sessions are the labelled set's own (tests/data/recall_search/logs, real Claude Code and
Codex formats), each query written from a memory of the session, not copied from it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from indexer import Index, only_roots

from cli_process import threadback
from conftest import FIXED_NOW
from search_quality import LOGS

sys.path[:0] = [str(Path(__file__).resolve().parents[2] / "bench" / "quality"), str(Path(__file__).resolve().parents[2] / "scripts")]
from write_labelled import session_id  # noqa: E402

# (class, query, the session's key, how the first session matched)
EXAMPLES = [
    ("exact stays first", "database is locked", "sqlite-locked", "all words"),
    ("wrong status code", "nginx 504 on big file uploads gunicorn", "nginx-502", "some words"),
    ("colour for color", "dark mode sidebar colour unreadable", "colour-theme", "spelling"),
    ("typo dokcer", "dokcer buildx arm64", "docker-buildx", "spelling"),
    ("typo pyteset", "pyteset fixture scope leak", "pytest-fixture", "spelling"),
    ("typo migraiton", "alembic migraiton two heads", "alembic-migration", "spelling"),
    ("stack-trace line", "FAILED: Multiple head revisions are present for given argument 'head'; please specify "
                         "a specific target revision", "alembic-migration", "some words"),
    ("Japanese sentence", "テストが夜中だけ落ちる件", "ja-nightly-test", "some words"),
    ("Chinese sentence", "导出的文件中文变成乱码", "zh-export-garbled", "some words"),
    ("Simplified for Taiwan vocabulary", "软件安装程序被防毒软件删掉", "zh-software-install", "some words"),
    ("Taiwan for Simplified vocabulary", "伺服器啟動找不到預設設定檔", "zh-default-config", "some words"),
    ("error seen only in tool output", "test_bulk_checkout failing", "out-bulk-checkout", "some words"),
    ("a query in another language", "数据库被锁住了", "sqlite-locked", "some words"),
    ("an English query for a Chinese session", "database connection pool exhausted under load", "zh-db-pool",
     "some words"),
]
IDS = [e[0] for e in EXAMPLES]


@pytest.fixture(scope="module")
def recall_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("recall") / "index.sqlite3"
    with Index(path) as index:
        index.update(only_roots({"claude-code": [LOGS / "claude-code" / "projects"],
                                 "codex": [LOGS / "codex" / "sessions"]}), now=FIXED_NOW)
    return path


@pytest.mark.parametrize(("name", "query", "key", "how"), EXAMPLES, ids=IDS)
def test_the_library_finds_it_and_says_how(recall_db, name, query, key, how):
    with Index(recall_db, readonly=True) as index:
        sessions = index.search(query, by_session=True, limit=20, now=FIXED_NOW)
        messages = index.search(query, limit=50, now=FIXED_NOW)
    assert sessions.sessions[0].session.session_id == session_id(key), name
    assert sessions.sessions[0].matched == how
    assert messages.hits[0].session.session_id == session_id(key), name
    if how == "all words":
        assert sessions.closest_from >= 1  # the exact answer comes before any closest match
    else:
        assert sessions.closest_from == 0 and sessions.exact_total == 0


@pytest.mark.parametrize(("name", "query", "key", "how"), EXAMPLES, ids=IDS)
def test_the_cli_finds_it(recall_db, name, query, key, how):
    proc = threadback("search", query, "--sessions", "--json", "--db", str(recall_db))
    assert proc.returncode == 0, proc.stderr
    body = json.loads(proc.stdout)
    first = body["sessions"][0]
    assert (first["session_id"], first["matched"]) == (session_id(key), how), name
    if how == "spelling":
        assert body["showing_results_for"] and body["showing_results_for"] != query


def test_the_cli_text_marks_closest_matches_and_spelling(recall_db):
    proc = threadback("search", "dokcer buildx arm64", "--db", str(recall_db))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "showing results for 'docker buildx arm64'"
    assert lines[1].startswith("── not an exact match")
    assert "(spelling)" in lines[2] and session_id("docker-buildx") in lines[2]


def test_no_hits_names_what_was_tried_and_not_searched(recall_db):
    proc = threadback("search", "qqzzyx wwvvkk", "--db", str(recall_db))
    assert proc.returncode == 1
    assert "tried: every word in one place" in proc.stdout
    assert "near spellings, none found for: qqzzyx, wwvvkk" in proc.stdout


def test_meaning_says_when_search_is_lexical(recall_db):
    with Index(recall_db, readonly=True) as index:
        result = index.search("why does each message show up two times", by_session=True, now=FIXED_NOW)
    assert result.meaning in ("used", "no match", "unavailable")
    if result.meaning == "unavailable":
        assert any("meaning" in left and "lexical" in left for left in result.not_searched)


def test_tool_output_filter_reads_as_a_filter():
    from indexer.search.query import parse_query

    assert parse_query("pytest in:output", FIXED_NOW).output == "only"
    assert parse_query("pytest -in:output", FIXED_NOW).output == "none"
    assert parse_query("pytest NOT in:output", FIXED_NOW).output == "none"
    assert [t.text for t in parse_query("pytest -in:output", FIXED_NOW).positive_terms] == ["pytest"]
    assert "not a place" in parse_query("pytest in:nowhere", FIXED_NOW).warnings[0]


@pytest.mark.parametrize(("name", "query", "key", "how"), EXAMPLES, ids=IDS)
async def test_the_app_finds_it_under_a_divider(recall_db, name, query, key, how):
    from tui.widgets.result_list import CLOSEST_DIVIDER, ResultList
    from tui_fixtures import SIZE, app_for, type_query

    roots = only_roots({"claude-code": [LOGS / "claude-code" / "projects"], "codex": [LOGS / "codex" / "sessions"]})
    app = app_for(recall_db, roots, project_scope=None)
    async with app.run_test(size=SIZE) as pilot:
        await type_query(pilot, query)
        results = app.screen.query_one(ResultList)
        assert results.hits and results.hits[0].session.session_id == session_id(key), name
        first_row = str(results.get_option_at_index(0).prompt)
        assert (CLOSEST_DIVIDER in first_row) == (how != "all words")
        info = str(app.screen.query_one("#search-info").render())
        assert ("showing results for" in info) == (how == "spelling")


def test_the_mcp_tool_finds_each_compactly(recall_db, tmp_path):
    from test_mcp_server import call_all, stdio_params

    env = {k: v for k, v in os.environ.items() if not k.startswith(("THREADBACK_", "CLAUDE_"))}
    env.update({"THREADBACK_DB": str(recall_db), "THREADBACK_MEMORY_DIR": str(tmp_path / "memory"),
                "THREADBACK_HOME": str(tmp_path / "home")})
    params = stdio_params(command=sys.executable, args=["-m", "tui.cli", "mcp"], env=env,
                          cwd=str(Path(__file__).resolve().parents[2]))
    _, results = call_all(params, [("search", {"query": q, "per_session": True}) for _, q, _, _ in EXAMPLES])
    for (name, query, key, how), result in zip(EXAMPLES, results):
        body = result.structured_content
        first = body["sessions"][0]
        assert (first["session"], first["matched"]) == (session_id(key), how), name
        assert first["lines"] and first["open"].startswith(f"show(session='{session_id(key)}'")
        assert len(json.dumps(body, ensure_ascii=False)) < 4000  # a page of hits in about 1,000 tokens


def test_the_app_gets_the_exact_answer_first_then_the_closest(recall_db):
    """The search box shows what holds every word as fast as before; closest matches follow."""
    from indexer.search.unified import SearchRequest, search_everything, with_closest

    with Index(recall_db, readonly=True) as index:
        request = SearchRequest(text="database is locked")
        first = search_everything(index, lambda: None, request, FIXED_NOW, closest=False)
        assert first.sessions.hits and all(h.matched == "all words" for h in first.sessions.hits)
        more = with_closest(index, first, FIXED_NOW)
        assert more.sessions.hits[: len(first.sessions.hits)] == first.sessions.hits  # exact ones kept first
        assert {h.matched for h in more.sessions.hits[len(first.sessions.hits):]} <= {"some words", "spelling", "meaning"}
        assert len(more.sessions.hits) > len(first.sessions.hits)
        full = search_everything(index, lambda: None, SearchRequest(text="docker"), FIXED_NOW, closest=False)
        assert with_closest(index, full, FIXED_NOW) is None  # one word found: nothing to add


def test_a_command_line_is_not_read_for_its_meaning(recall_db):
    """``docker buildx build --platform linux/arm64`` describes nothing: its words are matched as
    typed; a description of as many words is read for its meaning too."""
    with Index(recall_db, readonly=True) as index:
        command = index.search("docker buildx build --platform linux/arm64 missing", by_session=True, limit=20,
                               now=FIXED_NOW)
        described = index.search("docker buildx build platform linux arm64 missing", by_session=True, limit=20,
                                 now=FIXED_NOW)
    assert command.meaning == "not needed"
    assert described.meaning != "not needed"
