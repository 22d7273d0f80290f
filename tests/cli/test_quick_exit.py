"""``threadback`` (``tui.cli.main.run``) ends a plain ``search`` or ``hook`` line with
``os._exit`` once its output is flushed, skipping the interpreter's teardown, and only then:
another line, a thread or an ``atexit`` callback gets the usual exit. The exit code and the
output are the same either way."""

from __future__ import annotations

import sys

import pytest

from agent_logs import build_index, claude_session
from cli_process import threadback
from tui.cli import main as cli_main


class Exited(Exception):
    def __init__(self, code: int):
        self.code = code


@pytest.fixture
def db(tmp_path):
    claude_session(tmp_path / "logs", "s1", "alpha", ["the websocket timeout again", "raised the timeout to 30 s"])
    return build_index(tmp_path / "logs", tmp_path / "index.sqlite3")


@pytest.fixture
def exits(monkeypatch):
    """``os._exit`` raising instead, with threads and exit callbacks as in a plain CLI run."""
    def fake_exit(code: int) -> None:
        raise Exited(code)

    monkeypatch.setattr(cli_main.os, "_exit", fake_exit)
    monkeypatch.delitem(sys.modules, "threading")  # pytest runs threads; a plain search does not
    monkeypatch.setattr(cli_main, "_no_exit_callbacks", lambda: True)
    return monkeypatch


def test_a_search_line_exits_at_once_with_its_code(db, exits, capsys):
    exits.setattr(sys, "argv", ["threadback", "--db", str(db), "search", "websocket"])
    with pytest.raises(Exited) as found:
        cli_main.run()
    assert found.value.code == 0
    assert "websocket" in capsys.readouterr().out
    exits.setattr(sys, "argv", ["threadback", "--db", str(db), "search", "nosuchwordanywhere"])
    with pytest.raises(Exited) as found:
        cli_main.run()
    assert found.value.code == 1  # NOTHING_FOUND, as the usual exit gives


def test_other_lines_threads_and_exit_callbacks_get_the_usual_exit(db, exits, capsys):
    exits.setattr(sys, "argv", ["threadback", "--db", str(db), "sessions"])
    assert cli_main.run() == 0  # not a line quick_args reads
    exits.setattr(sys, "argv", ["threadback", "--db", str(db), "search", "websocket"])
    exits.setitem(sys.modules, "threading", __import__("threading"))
    assert cli_main.run() == 0  # a thread may still run
    exits.delitem(sys.modules, "threading")
    exits.setattr(cli_main, "_no_exit_callbacks", lambda: False)
    assert cli_main.run() == 0  # an atexit callback is waiting
    assert "websocket" in capsys.readouterr().out


def test_the_command_exits_the_same_way(db):
    """Through ``python -m tui.cli``: the hits, a "no hits" and its code, and a hook's answer."""
    found = threadback("--db", str(db), "search", "websocket")
    assert found.returncode == 0 and "websocket" in found.stdout and found.stderr == ""
    none = threadback("--db", str(db), "search", "nosuchwordanywhere")
    assert none.returncode == 1 and "no hits for 'nosuchwordanywhere'" in none.stdout
