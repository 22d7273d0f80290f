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
