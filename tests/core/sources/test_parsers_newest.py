"""Each agent's newest log format, end to end: tests/data/newest (written from FORMATS.md
"Newer records" and issue 19) through ``Index.update``, then search, sessions and ``show``.

Claude Code 2.1.x: a session with a slash command, a queued prompt, Grep and Agent calls, an
API error and refusal, a retracted partial reply, AI and user titles, a PR link, a worktree and
a relocation; a subagent and a workflow agent (with its journal). Codex 0.14x: a parent with
twins, a function-role message, a spawned child, a name, an error and an abort; the child
(``source.subagent.other``); an archived rollout of events only. Pi v3: a session and a fork of
it with an abandoned branch, an aborted and a failed reply and a name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer import Index, only_roots
from tui.cli import exits
from tui.cli.main import main

from conftest import FIXED_NOW

NEWEST = Path(__file__).resolve().parents[2] / "data" / "newest"
CLAUDE = "5e1c0a77-2b1d-4c8e-9f10-0c1a2b3c4d5e"
CODEX_PARENT = "019e2a10-5c4d-7e8f-9a0b-1c2d3e4f5a6b"
CODEX_CHILD = "019e2a11-0000-7abc-8def-000000000001"
CODEX_ARCHIVED = "019b0000-1111-7222-8333-444455556666"
PI_ORIGIN = "0d3f4e5a-6b7c-4d8e-9f00-112233445566"
PI_FORK = "7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d"


def newest_roots(base: Path = NEWEST):
    return only_roots({
        "claude-code": [base / "claude-code" / "projects"],
        "codex": [base / "codex" / "sessions", base / "codex" / "archived_sessions"],
        "pi": [base / "pi" / "sessions"],
    })


@pytest.fixture(scope="module")
def newest(tmp_path_factory) -> Index:
    index = Index(tmp_path_factory.mktemp("newest") / "index.sqlite3")
    summary = index.update(newest_roots(), now=FIXED_NOW)
    assert not summary.problems
    yield index
    index.close()


def hit_texts(index: Index, query: str) -> list[str]:
    return [h.message.text for h in index.search(query, now=FIXED_NOW, closest=False).hits]


def run_cli(capsys, index: Index, *argv: str) -> str:
    assert main(["--db", str(index.path), *argv]) == exits.OK
    return capsys.readouterr().out


# -- 2. queued prompts --------------------------------------------------------------------
def test_a_prompt_typed_while_a_tool_ran_is_user_input(newest, capsys):
    [hit] = newest.search('"billing address in sync"', now=FIXED_NOW).hits
    assert hit.message.role == "user" and hit.message.kind == "text"
    assert hit.message.mark == "typed while the agent worked"
    assert "also keep the billing address in sync" in run_cli(capsys, newest, "show", CLAUDE)


# -- 3. titles ------------------------------------------------------------------------------
def test_the_users_own_names_are_the_titles(newest):
    # custom-title beats ai-title; the worktree's auto-stamped custom-title does not.
    assert newest.session(CLAUDE).title == "Checkout: remember addresses"
    assert newest.session(CODEX_PARENT).title == "Rate limiter bursts"  # thread_name_updated
    assert newest.session(PI_FORK).title == "Meeting action items"  # session_info


# -- 4. Pi branches and forks ---------------------------------------------------------------
def test_a_pi_fork_is_a_session_of_its_own_linked_to_its_origin(newest, capsys):
    fork = newest.session(PI_FORK)
    assert fork.parent_session_id is None and fork.branched_from == PI_ORIGIN
    top_level = {s.session_id for s in newest.sessions(agent="pi", parent=None)}
    assert top_level == {PI_ORIGIN, PI_FORK}
    assert [p.session_count for p in newest.projects("pi")] == [2]
    assert ("2026-05-20", 1) in newest.days("pi", "/w/notes")
    assert [s.session_id for s in newest.sessions_on_day("pi", "/w/notes", "2026-05-20")] == [PI_FORK]
    header = run_cli(capsys, newest, "show", PI_FORK).splitlines()[0]
    assert f"branched from {PI_ORIGIN}" in header and "subagent" not in header
    assert PI_FORK in run_cli(capsys, newest, "sessions", "--agent", "pi")


def test_entries_off_the_active_pi_branch_are_marked(newest, capsys):
    marks = {m.text: m.mark for m in newest.messages(newest.session(PI_FORK))}
    assert marks["Add owners with their full names"] == "abandoned branch"
    assert marks["Owners: Ana Lima —"] == "abandoned branch"
    assert marks["Add owners, first names only"] is None
    assert marks["Action items with owners: launch (Ana), pricing (Ben)."] is None
    assert "user (abandoned branch):" in run_cli(capsys, newest, "show", PI_FORK)
    assert hit_texts(newest, '"full names"')  # an abandoned branch stays searchable


# -- 5. Claude Code workflow agents ---------------------------------------------------------
def test_workflow_agents_belong_to_their_session_and_journals_are_not_transcripts(newest, capsys):
    parent = newest.session(CLAUDE)
    children = {c.session_id: c.title for c in newest.children(parent)}
    assert children == {"agent-a4e2f9c1d0b7a6e58": "Explore: Find address forms",
                        "agent-awf7c3e2b1": "workflow-step: Check migration"}
    assert not hit_texts(newest, "journalsentinel")
    assert newest.session("journal") is None
    # Resuming an agent resumes its session, from where that session's log moved to.
    assert run_cli(capsys, newest, "resume", "agent-awf7c3e2b1").strip() == f"cd /w/shop && claude --resume {CLAUDE}"


# -- 6. and 7. Codex content only in events, and newer child threads ------------------------
def test_codex_event_only_content_is_kept_and_twins_are_read_once(newest):
    archived = newest.session(CODEX_ARCHIVED)
    assert [(m.role, m.text) for m in newest.messages(archived)] == [
        ("user", "Rename the billing cron job to nightly-invoices"),
        ("assistant", "Renamed it in cron.yaml and the deploy script."),
    ]
    assert archived.title == "Rename the billing cron job to nightly-invoices"
    assert len(hit_texts(newest, '"bucket refills once per second"')) == 1
    assert len(hit_texts(newest, '"drop bursts"')) == 1


def test_a_newer_codex_child_is_linked_and_its_spawn_is_searchable(newest):
    child = newest.session(CODEX_CHILD)
    assert child.parent_session_id == CODEX_PARENT and child.title == "explorer Faraday"
    assert [m.text for m in newest.messages(child)][0] == "Map every caller of TokenBucket.refill"
    assert [c.session_id for c in newest.children(newest.session(CODEX_PARENT))] == [CODEX_CHILD]
    [spawn] = [h.message for h in newest.search("Faraday", now=FIXED_NOW).hits if h.message.kind == "tool_call"]
    assert spawn.tool_name == "spawn_agent"
    assert CODEX_CHILD in spawn.text and "(explorer)" in spawn.text and "Map every caller" in spawn.text


# -- 8. tool lines ---------------------------------------------------------------------------
def test_tool_lines_keep_pattern_path_agent_type_and_description(newest):
    assert hit_texts(newest, "saveShippingAddress /w/shop/src/checkout") == [
        "[Grep] saveShippingAddress in /w/shop/src/checkout glob *.ts"]
    [agent] = hit_texts(newest, "Explore postal")
    assert agent == "[Agent] (Explore) Find address forms: List every form that edits a postal address"
    assert hit_texts(newest, '"**/*form*.ts" /w/shop/src') == ["[Glob] **/*form*.ts in /w/shop/src"]


# -- 9. errors and retracted replies -------------------------------------------------------
@pytest.mark.parametrize("query, agent", [
    ("overloaded_error", "claude-code"),
    ("declined card numbers", "claude-code"),
    ("quota exceeded", "codex"),
    ('"Turn aborted: interrupted"', "codex"),
    ("rate_limit_error", "pi"),
    ('"Request was aborted"', "pi"),
])
def test_errors_and_aborts_are_searchable(newest, query, agent):
    [hit] = newest.search(query, now=FIXED_NOW, closest=False).hits
    assert hit.message.kind == "error" and hit.session.agent == agent


def test_a_retracted_partial_reply_is_not_an_answer(newest, capsys):
    assert not hit_texts(newest, '"keeps the addr"')
    [partial] = [m for m in newest.messages(newest.session(CLAUDE)) if m.text == "The checkout form keeps the addr"]
    assert not partial.indexed and partial.mark == "retracted"
    assert "assistant (retracted):" in run_cli(capsys, newest, "show", CLAUDE)


# -- 10. smaller gaps ------------------------------------------------------------------------
def test_relocation_pr_links_function_messages_and_summary_times(newest, capsys):
    session = newest.session(CLAUDE)
    assert session.resume_cwd == "/w/shop" and session.project_path == "/w/shop/.claude/worktrees/addresses"
    assert run_cli(capsys, newest, "resume", CLAUDE).strip() == f"cd /w/shop && claude --resume {CLAUDE}"
    assert hit_texts(newest, '"pull/482"') == ["[PR #482] acme/shop https://github.com/acme/shop/pull/482"]
    assert not hit_texts(newest, "functionrolesentinel")
    [function] = [m for m in newest.messages(newest.session(CODEX_PARENT)) if "functionrolesentinel" in m.text]
    assert function.role == "tool"
    [summary] = [m for m in newest.messages(session) if m.kind == "summary"]
    assert summary.ts == pytest.approx(1778576520.0)  # 2026-05-12T09:02:00Z, the line's own time


# -- the slash-command title, and the whole fixture through the CLI --------------------------
def test_newest_formats_through_sessions_and_show(newest, capsys):
    listed = run_cli(capsys, newest, "sessions")
    for session_id in (CLAUDE, CODEX_PARENT, CODEX_ARCHIVED, PI_ORIGIN, PI_FORK):
        assert session_id in listed
    assert CODEX_CHILD not in listed and "agent-awf7c3e2b1" not in listed
    shown = run_cli(capsys, newest, "show", CODEX_PARENT)
    assert "error:" in shown and "Turn aborted: interrupted" in shown and "[spawn_agent]" in shown
