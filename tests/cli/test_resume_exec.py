"""``threadback resume --exec``: the agent runs in the session's folder with the argv of its
template, as a real subprocess; a fake agent on PATH records what it was given."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from indexer import Index, Session, only_roots
from indexer.agents.launch_argv import LaunchRefused, launch_problem, plan_launch
from indexer.config import ConfigError, LaunchTemplates, default_launch_templates, load_launch_templates
from tui.cli.exits import NOT_FOUND, REFUSED, USAGE

from cli_process import assert_one_line_no_traceback, threadback
from launch_logs import CLAUDE_ID, CODEX_ID, PI_ID, build, claude_log, fake_agents, recorded_runs, three_agent_tree


@pytest.fixture
def world(tmp_path):
    """An index of one session per agent, all in ``project/``, and fake agents on PATH."""
    cwd = tmp_path / "my project"
    cwd.mkdir()
    db = build(three_agent_tree(tmp_path / "logs", cwd), tmp_path / "index.sqlite3")
    bin_dir = fake_agents(tmp_path / "bin", "claude", "codex", "pi", "my-claude")
    record = tmp_path / "runs.jsonl"
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "FAKE_AGENT_RECORD": str(record),
           "THREADBACK_CONFIG": str(tmp_path / "config.toml")}
    return {"tmp": tmp_path, "cwd": cwd, "db": db, "bin": bin_dir, "record": record, "env": env}


def run(world, *argv: str, **env: str):
    return threadback("--db", str(world["db"]), *argv, **{**world["env"], **env})


def test_each_agent_runs_in_the_sessions_folder_with_its_own_arguments(world):
    for sid in (CLAUDE_ID, CODEX_ID, PI_ID):
        proc = run(world, "resume", "--exec", sid)
        assert proc.returncode == 0, proc.stderr
    runs = recorded_runs(world["record"])
    assert [r["argv"][1:] for r in runs[:2]] == [["--resume", CLAUDE_ID], ["resume", CODEX_ID]]
    assert runs[2]["argv"][1] == "--session" and runs[2]["argv"][2].endswith(f"{PI_ID}.jsonl")
    assert Path(runs[2]["argv"][2]).is_file()
    assert {Path(r["cwd"]) for r in runs} == {world["cwd"]}


def test_the_agents_exit_code_is_passed_through(world):
    proc = run(world, "resume", "--exec", CLAUDE_ID[:8], FAKE_AGENT_EXIT="3")
    assert proc.returncode == 3
    assert proc.stderr == f"threadback: resuming in {world['cwd']}: claude --resume {CLAUDE_ID}\n"
    assert recorded_runs(world["record"])[0]["argv"][1:] == ["--resume", CLAUDE_ID]


def test_fork_runs_claude_with_fork_session(world):
    proc = run(world, "resume", "--exec", "--fork", CLAUDE_ID)
    assert proc.returncode == 0, proc.stderr
    assert recorded_runs(world["record"])[0]["argv"][1:] == ["--resume", CLAUDE_ID, "--fork-session"]
    printed = run(world, "resume", "--fork", CLAUDE_ID)
    assert printed.stdout.strip().endswith(f"claude --resume {CLAUDE_ID} --fork-session")


def test_codex_and_pi_fork_with_their_own_flags(world):
    for sid in (CODEX_ID, PI_ID):
        assert run(world, "resume", "--exec", "--fork", sid).returncode == 0
    codex, pi = recorded_runs(world["record"])
    assert codex["argv"][1:] == ["fork", CODEX_ID]
    assert pi["argv"][1] == "--fork" and pi["argv"][2].endswith(f"{PI_ID}.jsonl")


def test_fork_on_an_agent_whose_fork_is_turned_off_is_refused_and_runs_nothing(world):
    (world["tmp"] / "config.toml").write_text("[resume.codex]\nfork = []\n", encoding="utf-8")
    proc = run(world, "resume", "--exec", "--fork", CODEX_ID)
    assert proc.returncode == REFUSED
    assert "forking is turned off for Codex CLI" in assert_one_line_no_traceback(proc)
    assert recorded_runs(world["record"]) == []


def test_a_missing_agent_binary_says_so_and_prints_the_command_to_copy(world):
    (world["bin"] / "codex").unlink()
    proc = run(world, "resume", "--exec", CODEX_ID, PATH=str(world["bin"]))
    assert proc.returncode == NOT_FOUND
    assert "'codex' is not installed" in assert_one_line_no_traceback(proc)
    assert proc.stdout.strip() == f"cd '{world['cwd']}' && codex resume {CODEX_ID}"


def test_a_missing_folder_says_so_and_runs_nothing(world):
    world["cwd"].rename(world["tmp"] / "moved away")
    proc = run(world, "resume", "--exec", CLAUDE_ID)
    assert proc.returncode == NOT_FOUND
    assert "no longer exists" in assert_one_line_no_traceback(proc)
    assert f"claude --resume {CLAUDE_ID}" in proc.stdout
    assert recorded_runs(world["record"]) == []


def test_a_deleted_log_says_to_restore_it_first(world):
    """Issue 33 item 14: the agent cannot resume a session whose log is gone; the archive can
    bring it back, and both ``resume`` and ``resume --exec`` say how."""
    shown = threadback("--db", str(world["db"]), "show", CLAUDE_ID, "--json", **world["env"])
    log = Path(__import__("json").loads(shown.stdout)["session"]["source_path"])
    log.unlink()
    proc = run(world, "resume", "--exec", CLAUDE_ID)
    assert proc.returncode == NOT_FOUND and recorded_runs(world["record"]) == []
    line = assert_one_line_no_traceback(proc)
    assert "is gone: the agent cannot resume it" in line and f"`threadback restore {CLAUDE_ID}`" in line
    printed = run(world, "resume", CLAUDE_ID)
    assert printed.returncode == 0 and printed.stdout.strip().endswith(f"claude --resume {CLAUDE_ID}")
    assert f"note: the log file {log} is gone" in printed.stderr and f"threadback restore {CLAUDE_ID}" in printed.stderr


def test_the_template_comes_from_the_config_file(world):
    (world["tmp"] / "config.toml").write_text(
        '[resume.claude-code]\nresume = ["my-claude", "--dir={cwd}", "-r", "{id}"]\n', encoding="utf-8")
    proc = run(world, "resume", "--exec", CLAUDE_ID)
    assert proc.returncode == 0, proc.stderr
    (only,) = recorded_runs(world["record"])
    assert Path(only["argv"][0]).name == "my-claude"
    assert only["argv"][1:] == [f"--dir={world['cwd']}", "-r", CLAUDE_ID]
    printed = run(world, "resume", CLAUDE_ID)  # what it prints is what --exec runs
    assert printed.stdout == f"cd '{world['cwd']}' && my-claude '--dir={world['cwd']}' -r {CLAUDE_ID}\n"


def test_a_bad_template_in_the_config_file_is_one_line(world):
    (world["tmp"] / "config.toml").write_text('[resume.codex]\nresume = "codex resume {id}; rm -rf ~"\n')
    proc = run(world, "resume", "--exec", CODEX_ID)
    assert proc.returncode == USAGE
    assert "must be a list of strings" in assert_one_line_no_traceback(proc)
    assert recorded_runs(world["record"]) == []


# -- the plan itself: ids from a log are data, never shell text -------------------------------
SESSION = Session(id=1, agent="claude-code", session_id="x", parent_session_id=None, source_path="/l/x.jsonl",
                  project_path="/w/app", project_name="app", git_branch=None, model=None, title=None,
                  start_ts=None, end_ts=None, message_count=1)


def test_an_id_with_spaces_and_a_semicolon_stays_one_argument():
    launch = plan_launch(SESSION._replace(session_id="a b; touch pwned"), None, default_launch_templates())
    assert launch.argv == ("claude", "--resume", "a b; touch pwned")
    assert launch.shell_line() == "cd /w/app && claude --resume 'a b; touch pwned'"


@pytest.mark.parametrize("bad", ["--dangerously-skip-permissions", "id\u001b[2J", "id\u202eevil", "", "x" * 300])
def test_ids_that_could_pass_for_options_or_hide_characters_are_refused(bad):
    with pytest.raises(LaunchRefused):
        plan_launch(SESSION._replace(session_id=bad), None, default_launch_templates())


def test_a_relative_or_unknown_folder_from_a_log_is_refused_with_the_command_to_copy():
    for folder, reason in (("-rf", "not an absolute path"), (None, "folder is not known")):
        launch = plan_launch(SESSION._replace(project_path=folder), None, default_launch_templates())
        problem = launch_problem(launch, which=lambda name: "/usr/bin/" + name)
        assert problem is not None and reason in str(problem) and problem.copyable.endswith("claude --resume x")


def test_a_subagent_resumes_its_parent_from_the_parents_folder():
    parent = SESSION._replace(session_id="p1", project_path="/w/app")
    child = SESSION._replace(session_id="agent-1", parent_session_id="p1", project_path="/w/app/.wt/a1")
    launch = plan_launch(child, parent, default_launch_templates())
    assert launch.argv == ("claude", "--resume", "p1") and launch.cwd == "/w/app"


def test_config_templates_are_checked(tmp_path):
    config = tmp_path / "c.toml"
    config.write_text('[resume.pi]\nfork = ["pi", "--fork={file}"]\n[resume.codex]\nfork = []\n')
    templates = load_launch_templates(config)
    assert templates["pi"] == LaunchTemplates(("pi", "--session", "{file}"), ("pi", "--fork={file}"))
    assert templates["codex"] == LaunchTemplates(("codex", "resume", "{id}"), ())
    for bad, message in (('[resume.pi]\nresume = ["pi", "{nope}"]\n', "unknown placeholder {nope}"),
                         ('[resume.vim]\nresume = ["vim"]\n', "unknown agent 'vim'"),
                         ('[resume.pi]\nresume = []\n', "must not be empty")):
        config.write_text(bad)
        with pytest.raises(ConfigError, match=message.replace("{", r"\{").replace("}", r"\}")):
            load_launch_templates(config)


def test_the_real_index_plans_each_agent(tmp_path):
    cwd = tmp_path / "p"
    cwd.mkdir()
    with Index(build(three_agent_tree(tmp_path / "logs", cwd), tmp_path / "i.sqlite3")) as index:
        pi = index.session(PI_ID)
        launch = plan_launch(pi, None, default_launch_templates())
    assert launch.argv == ("pi", "--session", pi.source_path) and launch.cwd == str(cwd)


def test_an_odd_id_from_a_real_log_reaches_the_agent_as_one_argument(world):
    odd = "odd id; touch pwned"
    claude_log(world["tmp"] / "odd", str(world["cwd"]), sid=odd)
    build(only_roots({"claude-code": [world["tmp"] / "odd"]}), world["db"])
    proc = run(world, "resume", "--exec", f"claude-code:{odd}")
    assert proc.returncode == 0, proc.stderr
    (only,) = recorded_runs(world["record"])
    assert only["argv"][1:] == ["--resume", odd]
    assert not (world["cwd"] / "pwned").exists() and not Path("pwned").exists()
