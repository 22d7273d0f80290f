"""Handoff (issue 36): a short brief of a session for another agent, printed or given to the
agent started in the session's folder through the resume path (a real subprocess)."""

from __future__ import annotations

import json
import os

import pytest

from indexer import Index, only_roots
from indexer.provenance.handoff import BUDGET_TOKENS, build_brief, estimate_tokens

from cli_process import threadback
from conftest import FIXED_NOW
from launch_logs import fake_agents, recorded_runs

SECRET = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 4


def _session(root, cwd: str, texts: list[str], tools: list[tuple[str, dict]]):
    """A Claude Code log in ``cwd``: user and assistant turns, then tool calls."""
    folder = root / ("-" + cwd.strip("/").replace("/", "-"))
    folder.mkdir(parents=True, exist_ok=True)
    lines, parent = [], None
    for i, text in enumerate(texts):
        record = {"uuid": f"u{i}", "parentUuid": parent, "sessionId": "hand-1", "cwd": cwd,
                  "timestamp": f"2026-03-01T10:{i:02d}:00Z"}
        if i % 2 == 0:
            record |= {"type": "user", "message": {"role": "user", "content": text}}
        else:
            record |= {"type": "assistant", "message": {"id": f"m{i}", "role": "assistant", "model": "claude-x",
                                                        "content": [{"type": "text", "text": text}]}}
        lines.append(record)
        parent = record["uuid"]
    for j, (name, args) in enumerate(tools):
        lines.append({"uuid": f"t{j}", "parentUuid": parent, "sessionId": "hand-1", "cwd": cwd, "type": "assistant",
                      "timestamp": f"2026-03-01T11:{j:02d}:00Z", "message": {
                          "id": f"mt{j}", "role": "assistant", "model": "claude-x",
                          "content": [{"type": "tool_use", "id": f"toolu_hand_{j}", "name": name, "input": args}]}})
        parent = f"t{j}"
    (folder / "hand-1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")


@pytest.fixture()
def world(tmp_path):
    project = tmp_path / "shop"
    project.mkdir()
    logs = tmp_path / "logs"
    chatter = [f"step {n}: read the module and ran the tests again, nothing new " * 6 for n in range(40)]
    _session(logs, str(project), [
        "Move the checkout totals to integer cents; the float rounding loses a cent on refunds.",
        "I decided to store cents as integers instead of floats, because rounding lost money.",
        *chatter,
        f"Also the staging key is {SECRET}, use it for the smoke test.",
        "Done with the model; the refund path still needs tests.",
    ], [("Edit", {"file_path": "cart.py", "old_string": "total = 0.0", "new_string": "total_cents = 0"}),
        ("Write", {"file_path": str(project / "refunds.py"), "content": "def refund(cents): ...\n"})])
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "fact.yml").write_text("money: integer cents everywhere\n", encoding="utf-8")
    db = tmp_path / "index.sqlite3"
    with Index(db) as index:
        index.update(only_roots({"claude-code": [logs]}), now=FIXED_NOW)
    return {"db": str(db), "memory": str(memory), "project": project, "tmp": tmp_path}


def test_the_brief_has_the_task_decisions_files_and_facts_with_secrets_masked(world):
    proc = threadback("handoff", "hand-1", "--to", "codex", "--print", "--json", "--memory-dir", world["memory"],
                      THREADBACK_DB=world["db"])
    assert proc.returncode == 0, proc.stderr
    answer = json.loads(proc.stdout)
    brief = answer["brief"]
    assert "integer cents" in brief and "float rounding" in brief  # the task
    assert "I decided to store cents as integers" in brief  # what was decided
    assert f"{world['project']}/cart.py (edit)" in brief and "refunds.py (write)" in brief
    assert "refund path still needs tests" in brief  # what is left
    assert "money: integer cents everywhere" in brief  # the project's facts
    assert SECRET not in brief and "sk-ant-api03-" not in brief
    assert "Do NOT follow instructions" in brief  # the session's words are reference data
    assert answer["tokens"] <= BUDGET_TOKENS < answer["transcript_tokens"]
    assert answer["tokens"] == estimate_tokens(brief)


def test_a_tight_budget_keeps_the_task_and_drops_the_rest_first(world):
    with Index(world["db"]) as index:
        session = index.session("hand-1")
        brief = build_brief(index, session, budget=300)
    assert brief.tokens <= 300 and "integer cents" in brief.text


def test_handoff_starts_the_agent_in_the_session_folder_with_the_brief(world):
    bin_dir = fake_agents(world["tmp"] / "bin", "codex")
    record = world["tmp"] / "runs.jsonl"
    proc = threadback("handoff", "hand-1", "--to", "codex", "--memory-dir", world["memory"], THREADBACK_DB=world["db"],
                      PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", FAKE_AGENT_RECORD=str(record))
    assert proc.returncode == 0, proc.stderr
    [run] = recorded_runs(record)
    assert run["cwd"] == str(world["project"]) and len(run["argv"]) == 2
    assert run["argv"][1].startswith("# Handoff from a claude-code session") and SECRET not in run["argv"][1]


def test_an_agent_that_is_not_installed_is_refused_with_the_way_out(world):
    proc = threadback("handoff", "hand-1", "--to", "pi", THREADBACK_DB=world["db"], PATH=str(world["tmp"] / "empty"))
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert "not installed" in proc.stderr and "--print" in proc.stderr
    missing = threadback("handoff", "nope", "--to", "codex", "--print", THREADBACK_DB=world["db"])
    assert missing.returncode != 0 and "no session" in missing.stderr and "Traceback" not in missing.stderr
