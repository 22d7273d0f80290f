"""The filter registry (``indexer.search.filters``) is the one place a filter is defined: the
parser, the SQL, the suggestions, the help screen, the placeholder, ``search --help`` and the
MCP schema all follow it, and the README documents every key."""

from __future__ import annotations

import argparse
import io
import re
from pathlib import Path

import pytest
from rich.console import Console
from textual.widgets import Input

from indexer.agents.mcp_tools import HistoryTools
from indexer.search import filters
from indexer.search.candidates import Filters
from indexer.search.plan import make_plan
from indexer.search.query import Query, parse_query
from indexer.search.suggestions import suggestions_for
from tui.cli import index as index_cli
from tui.cli.mcp_server import build_server
from tui.cli.verbs import VERB_TABLE
from tui.screens.help import HelpScreen

from launch_logs import build, three_agent_tree
from tui_fixtures import app_for, settle

README = Path(__file__).resolve().parents[3] / "README.md"
NOW = 1_780_000_000.0


def readme_query_table() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("### Query language")
    end = text.index("\n#", start + 1)
    return text[start:end]


@pytest.mark.parametrize("key", [f.key for f in filters.FILTERS])
def test_the_readme_documents_every_filter(key):
    documented = set(re.findall(r"`-?([a-z]+):", readme_query_table()))
    assert key in documented


def test_every_session_filter_fills_a_field_of_the_query():
    for f in filters.session_filters():
        assert f.field in Query._fields, f"{f.key}: add a `{f.field}` field to Query"
        assert f.parse is not None and (f.messages or f.sessions), f.key
    for f in filters.memory_only_filters():
        assert f.memory is not None and not f.field, f.key


def test_the_search_verbs_summary_names_registered_keys():
    """The top-level help is built without importing the registry (start-up): its summary
    may name only keys the registry has."""
    named = re.findall(r"([a-z]+):", VERB_TABLE["search"][1])
    assert named and all(filters.named(k) is not None for k in named)


def test_memory_only_filters_stay_words_in_a_session_search():
    q = parse_query("type:failure tag:safety", NOW)
    assert not q.has_filters and [t.text for t in q.positive_terms] == ["type:failure", "tag:safety"]


MODEL = filters.Filter("model", "sessions run with this model", "model:opus", field="project",
                       shown=(filters.PLACEHOLDER, filters.SCREEN), parse=lambda value, now: value.lower(),
                       sessions=lambda value: ("s.model LIKE ?", [f"{value}%"]))


@pytest.fixture
def with_model(monkeypatch):
    """A new entry, as an engineer adding ``model:`` would write it."""
    monkeypatch.setattr(filters, "FILTERS", [*filters.FILTERS, MODEL])


def test_a_new_entry_reaches_the_parser_the_sql_and_the_suggestions(with_model):
    q = parse_query("deploy model:Opus-4", NOW)
    assert q.project == "opus-4" and [t.text for t in q.positive_terms] == ["deploy"]
    where = Filters(make_plan(q)).where
    assert "s.model LIKE ?" in where
    assert "drop the filter model:opus-4" in suggestions_for(q)


def test_without_the_entry_the_key_is_a_word():
    q = parse_query("deploy model:Opus-4", NOW)
    assert q.project is None and "model:Opus-4" in [t.text for t in q.positive_terms]


def test_a_new_entry_reaches_search_help(with_model):
    parser = argparse.ArgumentParser(prog="threadback")
    index_cli.register(parser.add_subparsers())
    search = parser._subparsers._group_actions[0].choices["search"]  # type: ignore[union-attr]
    text = search.format_help()
    assert "model:opus" in text and "sessions run with this model" in text
    assert "in:output" in text and "file:src/app.py" in text


async def test_a_new_entry_reaches_the_mcp_schema(with_model, tmp_path):
    server = build_server(HistoryTools(db_path=tmp_path / "none.sqlite3"))
    tools = {t.name: t for t in await server.list_tools()}
    description = tools["search"].input_schema["properties"]["query"]["description"]
    for f in filters.session_filters():
        assert f"{f.key}:" in description
    assert "model:" in description and "-in:output" in description


async def test_a_new_entry_reaches_the_help_screen_and_the_placeholder(with_model, tmp_path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    roots = three_agent_tree(tmp_path / "logs", cwd, prompt="fix the login page")
    app = app_for(build(roots, tmp_path / "index.sqlite3"), roots)
    async with app.run_test() as pilot:
        await settle(pilot)
        assert "model:" in app.screen.query_one("#query", Input).placeholder
        await pilot.press("f1")  # the search box has the focus: ? is a character there
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(app.screen._table())
        shown = console.export_text()
        assert "agent:codex project:name session:id role:user since:7d until:2026-05-01 model:opus" in shown
