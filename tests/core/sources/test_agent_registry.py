"""Every registered agent through the same checks: a new agent gets them all by being registered.

Per agent (``indexer.sources.AGENTS``): its entry sets every field; its parser module fulfils
``AgentParser``; its fixtures (``tests/data/<name>/``, laid out as under the agent's home) are
found under its default roots, parse without a problem into sessions with messages, and are
found by search; reading a log again after it grew (or was rewritten) gives what one fresh read
gives; the resume command opens the right session in the right folder; the approval guard
knows its processes; and its transcript export matches the stored snapshot
(``pytest --snapshot-update`` rewrites it after a deliberate change).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from indexer import Index, only_roots
from indexer.agents.launch_argv import LaunchRefused, plan_launch
from indexer.config import default_launch_templates, load_roots
from indexer.export.collect import collect_export
from indexer.export.markdown import to_markdown
from indexer.ingest.discover import discover
from indexer.rules.review import agent_of
from indexer.sources import AGENTS, Agent, missing_fields, plugin_problem
from indexer.sources.interface import AgentParser

from conftest import FIXED_NOW

DATA = Path(__file__).resolve().parents[2] / "data"
NAMES = [agent.name for agent in AGENTS]


def fixture_home(agent: Agent) -> Path:
    """``tests/data/<name>/``: the agent's home as the fixtures lay it out (Claude Code, Codex
    and Pi keep theirs in tests/data/newest)."""
    own = DATA / agent.name
    return own if own.is_dir() else DATA / "newest" / agent.name


def fixture_root(agent: Agent, home: Path | None = None) -> Path:
    home = home or fixture_home(agent)
    return home / agent.log_folder if agent.log_folder else home


@pytest.fixture(scope="module")
def indexed(tmp_path_factory) -> dict[str, Index]:
    """Each agent's fixtures in an index of their own."""
    out = {}
    for agent in AGENTS:
        index = Index(tmp_path_factory.mktemp(agent.name) / "index.sqlite3")
        summary = index.update(only_roots({agent.name: [fixture_root(agent)]}), now=FIXED_NOW)
        assert not summary.problems, (agent.name, summary.problems)
        out[agent.name] = index
    yield out
    for index in out.values():
        index.close()


# -- the entry ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_the_entry_sets_every_field(name):
    agent = next(a for a in AGENTS if a.name == name)
    assert missing_fields(agent) == []
    assert fixture_home(agent).is_dir(), f"{name}: no fixtures in tests/data/{name}/"
    assert isinstance(agent.parser, AgentParser), f"{agent.parser_module} lacks part of the parser interface"


def test_an_entry_missing_a_field_is_caught():
    complete = AGENTS[0]
    assert missing_fields(complete._replace(programs=(), packages=())) == [
        "programs or packages (the approval guard must know its processes)"]
    assert "resume_argv or no_resume (how to resume it, or why it cannot be)" in missing_fields(
        complete._replace(resume_argv=(), no_resume=""))
    assert missing_fields(complete._replace(resume_argv=(), no_resume="it keeps no session ids")) == []
    assert "reading ('lines' or 'whole')" in missing_fields(complete._replace(reading="sometimes"))
    assert "label" in missing_fields(complete._replace(label=""))
    with pytest.raises(TypeError):  # a field left out entirely does not even build
        Agent("x", "X", "m", "--x-dir", "logs")  # type: ignore[call-arg]


def test_a_third_party_entry_is_checked_like_a_built_in_one():
    assert "is a dict" in plugin_problem({"name": "x"}, {})
    assert "taken" in plugin_problem(AGENTS[0], {})
    incomplete = AGENTS[0]._replace(name="windsurf", programs=(), packages=())
    assert "leaves unset" in plugin_problem(incomplete, {})
    assert plugin_problem(AGENTS[0]._replace(name="windsurf"), {}) == ""


def test_names_flags_and_spellings_are_unique():
    for field in ("name", "dir_option", "label"):
        values = [getattr(a, field) for a in AGENTS]
        assert len(values) == len(set(values)), field
    spellings = [s for a in AGENTS for s in (a.name, *a.aliases)]
    assert len(spellings) == len(set(spellings))


# -- discovery under the agent's own home ---------------------------------------------------------
@pytest.mark.parametrize("name", [a.name for a in AGENTS if a.home])
def test_its_logs_are_found_where_the_agent_keeps_them(name, tmp_path, monkeypatch):
    agent = next(a for a in AGENTS if a.name == name)
    monkeypatch.setenv("HOME", str(tmp_path))
    for variable in {v for a in AGENTS for v in a.home_env} | {"XDG_DATA_HOME"}:
        monkeypatch.delenv(variable, raising=False)
    home = tmp_path / agent.home.removeprefix("~/")
    shutil.copytree(fixture_home(agent), home)
    roots = load_roots(config_file=tmp_path / "no-config.toml")
    problems: list[str] = []
    found = [path for who, path, _ in discover(roots, problems) if who == name]
    roots_here = agent.default_roots()
    assert roots_here and all(str(r).startswith(str(home)) for r in roots_here), roots_here
    expected = [p for r in roots_here for p in r.rglob("*") if p.is_file() and agent.parser.is_log_file(p.name)]
    assert sorted(found) == sorted(str(p) for p in expected) and found, (found, problems)
    others = [(who, path) for who, path, _ in discover(roots, problems) if who != name]
    assert others == [], "another agent took this agent's files for its own"


# -- parsing and search ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_its_fixtures_parse_into_sessions_found_by_search(name, indexed):
    index = indexed[name]
    sessions = index.sessions(agent=name, parent=..., limit=None)
    assert sessions and all(s.agent == name for s in sessions)
    with_words = [s for s in sessions if any(m.role == "user" and m.kind == "text" for m in index.messages(s))]
    assert with_words, "no session holds a typed prompt"
    for session in with_words:
        prompt = next(m.text for m in index.messages(session) if m.role == "user" and m.kind == "text")
        word = max(re.findall(r"[A-Za-z]{4,}", prompt), key=len)
        hits = index.search(f"{word} agent:{name}", now=FIXED_NOW).hits
        assert any(h.session.session_id == session.session_id for h in hits), (word, session.session_id)


@pytest.mark.parametrize("name", NAMES)
def test_reading_a_grown_or_rewritten_log_gives_one_fresh_read(name, indexed, tmp_path):
    """Lines agents: the first half of each file, indexed, then the rest appended. Whole-document
    agents: each file rewritten in place (same content, new time) and indexed again."""
    agent = next(a for a in AGENTS if a.name == name)
    home = tmp_path / "home"
    shutil.copytree(fixture_home(agent), home)
    root = fixture_root(agent, home)
    logs = [p for p in root.rglob("*") if p.is_file() and agent.parser.is_log_file(p.name)]
    full = {p: p.read_bytes() for p in logs}
    if agent.reading == "lines":
        for path, data in full.items():
            lines = data.splitlines(keepends=True)
            path.write_bytes(b"".join(lines[: max(1, len(lines) // 2)]))
    index = Index(tmp_path / "index.sqlite3")
    index.update(only_roots({name: [root]}), now=FIXED_NOW)
    for path, data in full.items():
        path.write_bytes(data)
        stat = path.stat()
        import os

        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    summary = index.update(only_roots({name: [root]}), now=FIXED_NOW)
    assert not summary.problems
    assert sorted(_transcripts(index, name).values()) == sorted(_transcripts(indexed[name], name).values())
    index.close()


def _transcripts(index: Index, name: str) -> dict[str, list[tuple[str, str, str]]]:
    return {s.session_id: [(m.role, m.kind, m.text) for m in index.messages(s)]
            for s in index.sessions(agent=name, parent=..., limit=None)}


# -- resume ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_the_resume_command_opens_its_session_in_its_folder(name, indexed):
    agent = next(a for a in AGENTS if a.name == name)
    index = indexed[name]
    templates = default_launch_templates()
    for session in index.sessions(agent=name, parent=..., limit=None):
        parent = index.parent(session)
        try:
            launch = plan_launch(session, parent, templates)
        except LaunchRefused as refused:
            assert not agent.resume_argv or "log file" in str(refused), str(refused)
            continue
        assert launch.argv[0] == agent.resume_argv[0]
        opened = parent if (session.parent_session_id and agent.subagent_resumes_parent and parent) else session
        if "{id}" in agent.resume_argv:
            assert opened.session_id in launch.argv
        assert launch.cwd == (opened.resume_cwd or opened.project_path or session.project_path)
        fork = templates[name].fork
        if not fork:
            with pytest.raises(LaunchRefused, match="cannot fork"):
                plan_launch(session, parent, templates, fork=True)


# -- the approval guard ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_the_approval_guard_knows_its_processes(name):
    agent = next(a for a in AGENTS if a.name == name)
    for program in agent.programs:
        assert agent_of(program, f"/usr/local/bin/{program}", [program]) == (program, agent.label)
        assert agent_of("node", "/usr/bin/node", ["node", f"/usr/local/bin/{program}", "--flag"])[1] == agent.label
    for prefix in agent.program_prefixes:
        assert agent_of(prefix + "x86_64-linux", None, [])[1] == agent.label
    for package in agent.packages:
        cmdline = ["node", f"/usr/lib/node_modules/{package}/dist/index.js"]
        assert agent_of("node", "/usr/bin/node", cmdline) == (package, agent.label)
    assert agent_of("bash", "/bin/bash", ["bash"]) is None


# -- the transcript -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [a.name for a in AGENTS if (DATA / a.name).is_dir()])
def test_the_transcript_export_matches_its_snapshot(name, indexed, snapshot):
    index = indexed[name]
    main = sorted(index.sessions(agent=name, parent=None, limit=None), key=lambda s: s.session_id)
    text = "\n\n".join(to_markdown(collect_export(index, s)) for s in main)
    text = re.sub(r"aider-[0-9a-f]{16}", "aider-<digest of its folder>", text.replace(str(DATA), "<tests/data>"))
    assert text == snapshot


# -- where an agent reads instructions ------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_the_routing_block_says_where_each_agent_reads_it(name):
    from indexer.agents.routing import setup_for

    agent = next(a for a in AGENTS if a.name == name)
    setup = setup_for(agent)
    assert any(f in setup for f in agent.instructions) or name == "claude-code"
    if agent.mcp_config and name not in ("codex", "pi", "claude-code"):
        assert agent.mcp_config in setup
