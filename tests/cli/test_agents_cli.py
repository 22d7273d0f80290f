"""Each newer agent from a fresh install, as a person runs it: ``threadback index`` with the
agent's folder flag finds its sessions, ``search`` finds a prompt, ``export`` writes the session,
and ``resume --exec`` starts the agent in the session's folder (a stand-in agent on ``PATH``
records what it was given). Real subprocesses throughout; the fixtures are copied with their
project folders moved into the test's own folder, so the folders exist.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from indexer.sources import AGENTS, Agent

from cli_process import threadback

DATA = Path(__file__).resolve().parents[1] / "data"
NEW = [a for a in AGENTS if (DATA / a.name).is_dir()]

STAND_IN = """#!{python}
import json, os, sys
with open({record!r}, "w") as fh:
    json.dump({{"argv": sys.argv[1:], "cwd": os.getcwd()}}, fh)
"""


def copy_moving_projects(agent: Agent, target: Path, projects: Path) -> Path:
    """The agent's fixtures under ``target``, every ``/home/dev/`` in them (and Cursor's
    folder names, which spell the path with ``-``) pointing into ``projects``."""
    shutil.copytree(DATA / agent.name, target)
    encoded = str(projects).strip("/").replace("/", "-")
    for path in sorted(target.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.is_file():
            data = path.read_bytes().replace(b"/home/dev/", f"{projects}/".encode())
            path.write_bytes(data)
        if path.name.startswith("home-dev-"):
            path.rename(path.with_name(path.name.replace("home-dev-", encoded + "-", 1)))
    return target / agent.log_folder if agent.log_folder else target


@pytest.mark.parametrize("agent", NEW, ids=[a.name for a in NEW])
def test_found_searched_exported_and_resumed_from_a_fresh_install(agent: Agent, tmp_path: Path):
    projects = tmp_path / "projects"
    for name in ("shop", "billing", "weather", "ledger", "pipeline", "mailer", "chat"):
        (projects / name).mkdir(parents=True)
    root = copy_moving_projects(agent, tmp_path / "home", projects)
    db = str(tmp_path / "index.sqlite3")
    env = {"THREADBACK_HOME": str(tmp_path / "tb"), "THREADBACK_CONFIG": str(tmp_path / "none.toml")}

    indexed = threadback("--db", db, agent.dir_option, str(root), "index", **env)
    assert indexed.returncode == 0 and "Traceback" not in indexed.stderr, indexed.stderr

    listed = threadback("--db", db, "sessions", "--json", **env)
    sessions = [s for s in json.loads(listed.stdout) if s["agent"] == agent.name]
    assert sessions, listed.stdout
    session = next(s for s in sessions if s.get("title"))
    word = max(re.findall(r"[A-Za-z]{5,}", session["title"]), key=len)
    found = threadback("--db", db, "search", f"{word} agent:{agent.name}", "--json", **env)
    assert found.returncode == 0, found.stderr
    assert session["session_id"] in found.stdout

    exported = threadback("--db", db, "export", session["session_id"], "-o", str(tmp_path / "out.md"), **env)
    assert exported.returncode == 0, exported.stderr
    assert word in (tmp_path / "out.md").read_text(encoding="utf-8")

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "ran.json"
    program = bin_dir / agent.resume_argv[0]
    program.write_text(STAND_IN.format(python=os.sys.executable, record=str(record)))
    program.chmod(0o755)
    path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    resumed = threadback("--db", db, "resume", session["session_id"], "--exec", PATH=path, **env)
    assert resumed.returncode == 0, resumed.stderr + resumed.stdout
    ran = json.loads(record.read_text())
    sid = session["session_id"]
    assert ran["argv"] == [part.replace("{id}", sid).replace("{session}", sid.split("/", 1)[0])
                           for part in agent.resume_argv[1:]]
    assert Path(ran["cwd"]).resolve() == Path(session["project_path"]).resolve()
    assert Path(ran["cwd"]).resolve().is_relative_to(tmp_path.resolve())

    routing = threadback("hooks", "print", "--agent", agent.name, **env)
    assert routing.returncode == 0 and "## Past sessions and memory: Threadback" in routing.stdout
    assert any(f in routing.stdout for f in agent.instructions), routing.stdout[-300:]
