"""Tool output is searchable by the lines that say what went wrong (issue 32): the pytest
``FAILED`` line, a traceback's last line, a compiler error. Real Claude Code logs, a real index,
the real CLI; ranked below what the person and the agent wrote; ``in:output`` asks for it alone,
``-in:output`` leaves it out; an index from before is filled in by its next runs."""

from __future__ import annotations

import json
import sqlite3

import pytest

from indexer import Index, only_roots
from indexer.store.side_file import side_path
from indexer.text.output_excerpt import LINE_CHARS, TOTAL_CHARS, output_excerpt

from cli_process import threadback

SESSION = "aaaa1111-0000-4000-8000-000000000001"
OTHER = "bbbb2222-0000-4000-8000-000000000002"
PYTEST_RUN = "\n".join([
    "============================= test session starts ==============================",
    "collected 12 items",
    "tests/test_cart.py ........F...                                          [100%]",
    "=================================== FAILURES ===================================",
    "E       AssertionError: assert 3 == 4",
    "FAILED tests/test_cart.py::test_bulk_checkout - AssertionError: assert 3 == 4",
    "========================= 1 failed, 11 passed in 0.42s =========================",
    *(f"collected module number {k}" for k in range(400)),  # a long output, stored packed
])


def _log(folder, session: str, turns: list[tuple[str, object]]) -> None:
    records, parent = [], None
    for i, (kind, content) in enumerate(turns):
        uuid = f"{session[:4]}-{i}"
        role = "assistant" if kind in ("assistant", "call") else "user"
        if kind == "call":
            content = [{"type": "tool_use", "id": f"t{i}", "name": content[0], "input": content[1]}]
        elif kind == "result":
            content = [{"type": "tool_result", "tool_use_id": f"t{i - 1}", "content": content}]
        message = {"role": role, "content": content, **({"id": f"m{uuid}", "model": "x"} if role == "assistant" else {})}
        records.append({"type": role, "uuid": uuid, "parentUuid": parent, "sessionId": session, "cwd": "/w/shop",
                        "timestamp": f"2026-03-01T10:{i:02d}:00.000Z", "message": message})
        parent = uuid
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{session}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


@pytest.fixture()
def world(tmp_path):
    logs = tmp_path / "logs" / "-w-shop"
    _log(logs, SESSION, [("user", "run the tests please"), ("call", ("Bash", {"command": "pytest -q"})),
                         ("result", PYTEST_RUN), ("assistant", "One test is red; I will look at the totals.")])
    _log(logs, OTHER, [("user", "why does test_bulk_checkout exist at all?"),
                       ("assistant", "It checks that a bulk order sums its lines.")])
    db = tmp_path / "index.sqlite3"
    return {"logs": tmp_path / "logs", "db": db, "tmp": tmp_path}


def _cli(world, *argv: str):
    none = str(world["tmp"] / "none")
    return threadback("--db", str(world["db"]), "--claude-dir", str(world["logs"]), "--codex-dir", none,
                      "--pi-dir", none, *argv)


def _sessions(world, query: str) -> list[str]:
    done = _cli(world, "search", "--json", query)
    assert done.returncode in (0, 1), done.stderr
    return [json.loads(line)["session_id"] for line in done.stdout.splitlines() if line.startswith("{")]


def test_the_failed_test_is_found_in_the_output_and_ranked_below_what_was_written(world):
    assert _cli(world, "index").returncode == 0
    found = _cli(world, "search", "test_bulk_checkout")
    assert found.returncode == 0, found.stderr
    lines = [line for line in found.stdout.splitlines() if line.startswith("[")]
    assert "user" in lines[0] and OTHER in lines[0]  # what a person wrote comes first
    assert "tool result" in lines[1] and SESSION in lines[1]
    assert "test_bulk_checkout" in found.stdout.split("\n", 3)[3]  # the output's snippet shows the line


def test_in_output_asks_for_output_alone_and_minus_in_output_leaves_it_out(world):
    assert _cli(world, "index").returncode == 0
    only = _cli(world, "search", "test_bulk_checkout in:output").stdout
    assert SESSION in only and OTHER not in only
    without = _cli(world, "search", "AssertionError -in:output").stdout
    assert "tool result" not in without


def test_plain_output_lines_stay_out_of_the_index(world):
    assert _cli(world, "index").returncode == 0
    assert "tool result" not in _cli(world, "search", "collected module number 399").stdout


def test_a_rewritten_log_leaves_no_stale_output_hit(world):
    assert _cli(world, "index").returncode == 0
    _log(world["logs"] / "-w-shop", SESSION, [("user", "run the linter please"), ("assistant", "It is clean.")])
    assert _cli(world, "index").returncode == 0
    assert _cli(world, "search", "test_bulk_checkout in:output").returncode == 1
    with sqlite3.connect(world["db"]) as conn:
        assert conn.execute("SELECT count(*) FROM output_excerpts").fetchone()[0] == 0


def test_a_lost_side_file_is_rebuilt_with_the_output_lines(world):
    assert _cli(world, "index").returncode == 0
    for path in side_path(world["db"]).parent.glob(side_path(world["db"]).name + "*"):
        path.unlink()
    assert _cli(world, "index").returncode == 0
    assert SESSION in _cli(world, "search", "test_bulk_checkout in:output").stdout


def test_an_index_from_before_finds_its_stored_output_after_the_next_run(world):
    """Schema 10 had no output lines: the migration marks the stored outputs and the next run
    indexes their lines (reading the packed output back)."""
    with Index(world["db"]) as index:
        index.update(only_roots({"claude-code": [world["logs"]]}), now=0, archive=False)
    with sqlite3.connect(world["db"]) as conn:  # the same index as schema 10 left it
        conn.execute("UPDATE messages SET indexed = 0 WHERE indexed = 3")
        conn.execute("DROP TABLE output_excerpts")
        conn.execute("PRAGMA user_version = 10")
    with sqlite3.connect(side_path(world["db"])) as side:
        side.execute("INSERT INTO fts_side(fts_side) VALUES ('delete-all')")
    assert _cli(world, "search", "test_bulk_checkout in:output").returncode != 0  # nothing yet
    assert _cli(world, "index").returncode == 0
    assert SESSION in _cli(world, "search", "test_bulk_checkout in:output").stdout
    with sqlite3.connect(world["db"]) as conn:
        assert conn.execute("SELECT value FROM meta WHERE key = 'excerpts_below'").fetchone()[0] == "0"


@pytest.mark.parametrize("output, kept", [
    ("Traceback (most recent call last):\n  File \"cart.py\", line 12, in total\nKeyError: 'sku'",
     ["Traceback (most recent call last):", 'File "cart.py", line 12, in total', "KeyError: 'sku'"]),
    ("src/main.ts(4,20): error TS2304: Cannot find name 'join'.\nDone in 2s",
     ["src/main.ts(4,20): error TS2304: Cannot find name 'join'."]),
    ("npm ERR! code ERESOLVE\nnpm ERR! code ERESOLVE\nadded 3 packages", ["npm ERR! code ERESOLVE"]),
    ("2026/03/01 [crit] connect() failed (111: Connection refused) while connecting to upstream",
     ["2026/03/01 [crit] connect() failed (111: Connection refused) while connecting to upstream"]),
    ("total 8\ndrwxr-xr-x 2 me me 4096 app\n-rw-r--r-- 1 me me 10 cart.py", []),
])
def test_the_lines_kept_are_the_ones_that_say_what_went_wrong(output, kept):
    assert output_excerpt(output, "Bash").split("\n") == kept if kept else output_excerpt(output, "Bash") == ""


def test_a_file_shown_by_a_read_tool_and_a_refusal_are_not_output_to_search():
    assert output_excerpt("   1→raise ValueError('bad')", "Read") == ""
    assert output_excerpt("[error] The user doesn't want to proceed with this tool use.", "Edit") == ""


def test_an_output_gives_a_bounded_excerpt():
    excerpt = output_excerpt("\n".join(f"error number {k} " + "x" * 500 for k in range(100)), "Bash")
    assert all(len(line) <= LINE_CHARS for line in excerpt.split("\n"))
    assert len(excerpt) <= TOTAL_CHARS + LINE_CHARS


@pytest.mark.parametrize("call_line, shows", [
    ("[shell] bash -lc 'cd app && sed -n 1,80p cart.py'", True),
    ("[exec_command] rg -n TODO src", True),
    ("[Bash] git diff HEAD~1 # the last change", True),
    ("[Bash] cd app && pytest -q 2>&1 | tail -40", False),
    ("[Bash] npm run build", False),
    ("[Bash] git commit -m 'fix'", False),
    ("[Bash] tail -n 50 /var/log/nginx/error.log", False),  # a log shown: what a program said
    ("[shell] bash -lc 'grep -n ERROR logs/worker.txt'", False),
])
def test_a_command_that_prints_files_gives_no_output_to_search(call_line, shows):
    failing = "src/cart.ts(3,1): error TS2304: Cannot find name 'total'."
    assert (output_excerpt(failing, "shell", call_line) == "") is shows


def test_code_and_diff_lines_are_not_what_went_wrong():
    shown = "\n".join(["+    raise ValueError('bad sku')", "    throw new Error(`no cart`);", "} catch (error) {",
                       "ValueError: bad sku"])
    assert output_excerpt(shown, "Bash") == "ValueError: bad sku"
