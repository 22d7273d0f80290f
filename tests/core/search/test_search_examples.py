"""Every example of issue 13 finds the session where the work happened, on the labelled sessions
of bench/quality/ranking (real logs and hand-written ones in the agents' formats), and the ranking set
holds its floor."""

from __future__ import annotations

import json

import pytest

from bench.quality.ranking.adapter import build_index, session_ranker
from bench.quality.ranking.score import evaluate, figures, load_queries
from indexer import Index
from tui.cli import exits
from tui.cli.main import main

from conftest import FIXED_NOW

NGINX = "88380f75-ea86-4928-935e-cbc110ae09e2"
COMPOSE = "4880f0cb-467e-49e6-bf33-272d507cd0f5"
FLAKY = "ab2ebad5-559c-4e78-9b2a-ca230c1f2672"
BIG5 = "5aa7b6a7-1178-48f7-99a9-272761199482"
POEM = "5fd1e58c-9635-410e-a644-133a96057c90"
ORDERS = "6b380573-7c79-40f7-8e37-aa8098b18422"
ACT = "fe869ecb-c176-478f-9734-7e4b8ef12cff"
WORKTREES = "ef958aa1-0e93-49f0-bb71-150f63befcd1"
RELEASE = "019d3f7d-c3e0-7cd5-a412-7de3160ef92c"
PORT = "38037d89-ef33-43ea-9e10-a3346dfa0018"
TY = "326189cf-5676-4237-8cde-1ce80aae4a9f"
MOMENT = "019c940f-f640-7df0-a77e-19b178460918"
ROLLBACK = "019dfb3e-f360-7ae1-b1a4-6804b8c5ec65"
RUNBOOK = "1d6dd367-117d-49f0-bfb1-289df18b5158"
INVOICE = "14dfb1cd-e9b7-4e62-aef3-e0093ebadfee"


@pytest.fixture(scope="module")
def rankset(tmp_path_factory) -> Index:
    index = build_index(tmp_path_factory.mktemp("rankset") / "index.sqlite3")
    yield index
    index.close()


def resumable(session) -> str:
    return session.parent_session_id if session.session_id.startswith("agent-") else session.session_id


def ranked(index: Index, query: str) -> list[str]:
    return [resumable(s.session) for s in index.search(query, by_session=True, limit=20, now=FIXED_NOW).sessions]


@pytest.mark.parametrize(("query", "where"), [
    # 1. One-character words and short flags: never refused, and the session that ran it first.
    ("nginx -s reload", {NGINX}),
    ("docker compose up -d", {COMPOSE}),
    ("pytest -q tests/test_loader.py", {FLAKY}),
    ("iconv -f BIG5", {BIG5}),
    ("write a poem", {POEM}),
    ("orders 表 欄位", {ORDERS}),
    # 2. Flags are words to find, not exclusions.
    ("act --container-architecture", {ACT}),
    ("git merge --no-ff", {WORKTREES, RELEASE}),
    # 3. Words in different messages of one session.
    ("flaky test timezone", {FLAKY}),
    # 4. A whole word over a substring; the exact tool line over prose holding the words.
    ("port 3000 in use", {PORT}),
    ("act -l", {ACT}),
    ("uv run ty check", {TY}),
    # 5. Evidence added up: ~290 messages of the work over an 80-character note, and over a
    #    16,000-character runbook that names everything once.
    ("moment date-fns", {MOMENT}),
    ("websocket heartbeat", {"019db48f-8d80-7ea8-ab00-38ed2b50451a"}),
    # 6. Traditional and Simplified fold together.
    ("迁移 幂等", {ORDERS}),
])
def test_each_example_finds_its_session_first(rankset, query, where):
    assert ranked(rankset, query)[0] in where


def test_simplified_rollback_finds_the_traditional_session_too(rankset):
    found = ranked(rankset, "回滚")
    assert ORDERS in found and ROLLBACK in found  # 回滾 (Traditional) and 回滚 (Simplified)


def test_the_runbook_never_wins_on_words_it_only_names(rankset):
    for query in ("nginx -s reload", "docker compose up -d", "flaky test timezone", "iconv -f BIG5", "git merge --no-ff"):
        assert ranked(rankset, query)[0] != RUNBOOK, query


def test_a_subagent_hit_names_its_parent_and_resume_target(rankset, capsys):
    args = ["--db", str(rankset.path), "search", "billing.models", "-n", "50", "--json"]
    assert main(args) == exits.OK
    hits = json.loads(capsys.readouterr().out)["hits"]
    sub = next(h for h in hits if h["session_id"].startswith("agent-"))
    assert sub["parent_session_id"] == INVOICE
    assert sub["resume"]["session_id"] == INVOICE
    assert sub["resume"]["command"].endswith(f"claude --resume {INVOICE}")
    top = next(h for h in hits if not h["session_id"].startswith("agent-"))
    assert top["parent_session_id"] is None and top["resume"]["session_id"] == top["session_id"]


def test_the_ranking_set_holds_its_floor(rankset):
    """bench/quality/ranking: hit@1 100% and no refusals when this was written (228 queries)."""
    result = figures(evaluate(load_queries(), session_ranker(rankset)))
    assert result.refusals == 0
    assert result.hit1 >= 0.98 and result.hit3 >= 0.99
