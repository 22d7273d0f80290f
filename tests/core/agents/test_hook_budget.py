"""Hooks run on a budget: YAML alias expansion is bounded, and whatever is not ready within the
1 s budget is left out with a note. (Exact timings: ``bench/speed/bench_hooks.py``.)"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from indexer.agents.budget import PieceFailed, hook_budget, hook_deadline, run_pieces
from indexer.memory.errors import FactFileError
from indexer.memory.facts import validate
from indexer.memory.yaml_bounds import MAX_ALIAS_EXPANSION

from test_trust_attacks import ALIAS_BOMB, THREADBACK, clean_env, run_measured


def test_the_alias_bomb_is_refused_with_a_clear_message() -> None:
    started = time.process_time()
    issues = validate(ALIAS_BOMB)
    assert time.process_time() - started < 0.5
    assert len(issues) == 1 and "alias bomb" in issues[0].message


def test_aliases_within_reason_load() -> None:
    defaults = "base: &base {retries: 3, timeout: 30}\n" + "".join(
        f"service{i}: *base\n" for i in range(50))
    assert validate(defaults) == []
    wide = "a: &a [" + ", ".join(["1"] * 100) + "]\n" + "".join(f"k{i}: *a\n" for i in range(MAX_ALIAS_EXPANSION // 100 + 5))
    assert validate(wide) and "alias" in validate(wide)[0].message


def test_pieces_not_ready_by_the_deadline_are_left_out() -> None:
    def hog_the_gil() -> str:
        sum(range(10**11))  # a C loop that never lets go of the GIL: only a kill stops it
        return "never"

    def broken() -> str:
        raise FactFileError(None, [])

    started = time.monotonic()
    results = run_pieces([("quick", lambda: "ready"), ("broken", broken), ("slow", hog_the_gil),
                          ("after", lambda: "too late")], started + 0.5)
    assert time.monotonic() - started < 1.0
    assert results["quick"] == "ready" and isinstance(results["broken"], PieceFailed)
    assert "slow" not in results and "after" not in results


@pytest.fixture
def slow_memory(tmp_path: Path) -> Path:
    """A fact.yml ruamel needs many seconds for, beside a small scratchpad."""
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "fact.yml").write_text("".join(f"key{i}: [alpha, beta, {{gamma: {i}}}]\n" for i in range(30000)))
    (memory / "scratchpad.md").write_text("- [ ] the open item\n")
    return memory


def test_the_budget_is_one_second_unless_set() -> None:
    assert hook_budget({}) == 1.0 and hook_budget({"THREADBACK_HOOK_BUDGET": "2.5"}) == 2.5
    assert hook_budget({"THREADBACK_HOOK_BUDGET": "600"}) == 1.0  # no way to switch it off
    assert hook_budget({"THREADBACK_HOOK_BUDGET": "soon"}) == 1.0
    assert hook_deadline(100.0, 1.0) == pytest.approx(100.8)


def test_session_start_answers_within_the_budget_whatever_it_reads(tmp_path: Path, slow_memory: Path) -> None:
    # 3 s rather than 1 s so a loaded test machine still reads the small parts in time; the
    # fact.yml needs far longer than that (bench/speed/bench_hooks.py times the default budget).
    env = clean_env(tmp_path, THREADBACK_MEMORY_DIR=str(slow_memory), THREADBACK_HOOK_BUDGET="3")
    payload = json.dumps({"session_id": "s", "cwd": str(tmp_path), "hook_event_name": "SessionStart"})
    code, out, err, elapsed, _ = run_measured([str(THREADBACK), "hook", "session-start"],
                                              input=payload, env=env, cwd=tmp_path)
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "the open item" in text  # what was ready is there
    assert "facts (fact.yml) left out: not read within the hook's 3 s budget" in text
    assert elapsed < 4.5, elapsed  # ruamel alone needs well over 10 s for this file
