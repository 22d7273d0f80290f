"""The newer agents in the app's session tree: every agent with fixtures (tests/data/<name>/)
indexed together is a top-level node, and a session with subagents (opencode's task sessions,
Cursor's subagents/ folder) holds them under it."""

from __future__ import annotations

from pathlib import Path

from indexer import Index, only_roots
from indexer.sources import AGENTS
from tui.screens.sessions import SessionsScreen
from tui.widgets.session_tree import SessionTree

from conftest import FIXED_NOW
from tui_fixtures import SIZE, app_for, settle

DATA = Path(__file__).resolve().parents[1] / "data"
NEW = [a for a in AGENTS if (DATA / a.name).is_dir()]


async def expand(pilot, node):
    node.expand()
    await settle(pilot)
    return node.children


async def sessions_under(pilot, agent_node):
    found = []
    for project in await expand(pilot, agent_node):
        for day in await expand(pilot, project):
            found += list(await expand(pilot, day))
    return found


async def test_each_new_agent_is_browsed_with_its_subagents(tmp_path):
    roots = only_roots({a.name: [DATA / a.name / a.log_folder if a.log_folder else DATA / a.name] for a in NEW})
    index = Index(tmp_path / "index.sqlite3")
    assert not index.update(roots, now=FIXED_NOW).problems
    index.close()
    app = app_for(tmp_path / "index.sqlite3", roots)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        tree = app.screen.query_one(SessionTree)
        agents = {str(n.label).split()[0]: n for n in tree.root.children}
        assert set(agents) == {a.name for a in NEW}
        for name in ("opencode", "cursor"):
            sessions = await sessions_under(pilot, agents[name])
            parents = [s for s in sessions if s.allow_expand]
            assert parents, name
            children = await expand(pilot, parents[0])
            assert children and all(c.data.session.parent_session_id == parents[0].data.session.session_id
                                    for c in children)
