"""Resume commands for each agent, for subagents, and for paths that need quoting."""

from __future__ import annotations


from indexer import Session, resume_command

BASE = Session(id=1, agent="claude-code", session_id="abc", parent_session_id=None, source_path="/logs/abc.jsonl",
               project_path="/work/my app", project_name="my app", git_branch=None, model=None, title=None,
               start_ts=None, end_ts=None, message_count=1)


def test_each_agent_from_its_directory():
    assert resume_command(BASE) == "cd '/work/my app' && claude --resume abc"
    assert resume_command(BASE._replace(agent="codex")) == "cd '/work/my app' && codex resume abc"
    pi = BASE._replace(agent="pi", source_path="/home/u/.pi/agent/sessions/--w--/t_abc.jsonl")
    assert resume_command(pi) == "cd '/work/my app' && pi --session /home/u/.pi/agent/sessions/--w--/t_abc.jsonl"
    assert resume_command(BASE._replace(project_path=None)) == "claude --resume abc"


def test_subagents_resume_their_parent_but_a_pi_branch_resumes_itself():
    child = BASE._replace(session_id="agent-1", parent_session_id="abc", project_path="/work/my app/.wt/agent-1")
    assert resume_command(child, BASE) == "cd '/work/my app' && claude --resume abc"
    assert resume_command(child) == "cd '/work/my app/.wt/agent-1' && claude --resume abc"
    branch = BASE._replace(agent="pi", session_id="b2", parent_session_id="abc", source_path="/p/t_b2.jsonl")
    assert resume_command(branch, BASE._replace(agent="pi")) == "cd '/work/my app' && pi --session /p/t_b2.jsonl"


def test_a_kimi_agent_log_resumes_its_session_by_the_id_kimi_takes():
    """Kimi's newer layout names each agent's log ``<session>/<agent>``; ``kimi --session``
    takes the session part (the shell line and the argv ``resume --exec`` runs alike)."""
    from indexer.agents.launch_argv import plan_launch

    agent_log = BASE._replace(agent="kimi", session_id="5f0c1d2e/coder", source_path="/k/5f0c1d2e/agents/coder/wire.jsonl")
    assert resume_command(agent_log) == "cd '/work/my app' && kimi --session 5f0c1d2e"
    assert plan_launch(agent_log, None, {}).argv == ("kimi", "--session", "5f0c1d2e")
    legacy = agent_log._replace(session_id="6d1e2f3a-4b5c", source_path="/k/h/6d1e2f3a-4b5c/wire.jsonl")
    assert resume_command(legacy) == "cd '/work/my app' && kimi --session 6d1e2f3a-4b5c"
