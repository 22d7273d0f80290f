"""`threadback memory ...` through the register() function, as the main CLI wires it."""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timedelta, timezone

import pytest

from tui.cli import memory as cli_memory

# The CLI reads the real clock, so the fresh entry is dated yesterday.
YESTERDAY = (datetime.now(timezone.utc) - timedelta(days=1)).isoformat(timespec="seconds")
EPISODIC = (
    '{"id":"ep-00000001","ts":"' + YESTERDAY + '","type":"failure",'
    '"summary":"AI 誤刪設定檔","lesson":"建立 Hook 守門系統","tags":["safety","hook"],'
    '"importance":7}\n'
    "this line is broken\n"
    '{"id":"ep-00000002","ts":"2000-01-01T00:00:00+00:00","type":"note",'
    '"summary":"ancient note","importance":1}\n'
)


@pytest.fixture
def mem(tmp_path, monkeypatch):
    monkeypatch.delenv("THREADBACK_MEMORY_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "mem"
    folder.mkdir()
    (folder / "episodic.jsonl").write_text(EPISODIC, encoding="utf-8")
    (folder / "fact.yml").write_text("# prefs\nname: Alice  # me\nstats: R\n", encoding="utf-8")
    (folder / "scratchpad.md").write_text("- [ ] add hook tests\n- notes\n", encoding="utf-8")
    return folder


def run(folder, *argv):
    parser = argparse.ArgumentParser(prog="threadback")
    sub = parser.add_subparsers(dest="command")
    cli_memory.register(sub)
    args = parser.parse_args(["memory", "--memory-dir", str(folder), *argv])
    return args.func(args)


def run_json(capsys, folder, *argv):
    code = run(folder, *argv, "--json")
    out, err = capsys.readouterr()
    return code, json.loads(out), err


def test_add_then_show_and_list(mem, capsys):
    code, added, err = run_json(capsys, mem, "add", "--type", "lesson", "--summary", "用 uv",
                                "--tags", "tools, python", "--importance", "6",
                                "--ts", "2026-04-03T10:00:00+08:00")
    assert code == 0 and added["summary"] == "用 uv" and added["tags"] == ["tools", "python"]
    assert "episodic.jsonl:2: not valid JSON" in err  # bad line reported, command still ran
    assert err.count("episodic.jsonl:2") == 1

    code, shown, _ = run_json(capsys, mem, "show", added["id"])
    assert code == 0 and shown["importance"] == 6 and shown["breakdown"]["importance_term"] == 0.6

    code, listed, _ = run_json(capsys, mem, "list", "--tier", "episodic", "--tag", "hook")
    assert code == 0 and [e["id"] for e in listed["episodic"]] == ["ep-00000001"]
    code, listed, _ = run_json(capsys, mem, "list")
    assert [f["key"] for f in listed["fact"]] == ["name", "stats"]
    assert [i["line"] for i in listed["scratchpad"]] == [1, 2]
    assert run(mem, "list", "--type", "decision", "--tier", "episodic") == 1

    assert run(mem, "list", "--tier", "fact") == 0
    out = capsys.readouterr().out
    assert out == "name: Alice\nstats: R\n"


def test_search_logs_retrievals_and_exit_codes(mem, capsys):
    code, found, _ = run_json(capsys, mem, "search", "誤刪")
    assert code == 0 and [h["id"] for h in found["hits"]] == ["ep-00000001"]
    log = (mem / "retrievals.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(x)["id"] for x in log] == ["ep-00000001"]
    code, found, _ = run_json(capsys, mem, "search", "hook")
    assert [h["kind"] for h in found["hits"]] == ["episodic", "scratchpad"]
    code, shown, _ = run_json(capsys, mem, "show", "ep-00000001")
    assert shown["breakdown"]["retrieval_count"] == 2

    assert run(mem, "search", "nothing-like-this") == 1
    assert run(mem, "search", "") == 2
    capsys.readouterr()


def test_unknown_ids_exit_4_with_one_line_error(mem, capsys):
    for argv in (["show", "ep-nope"], ["archive", "ep-nope"], ["restore", "nope"],
                 ["promote", "9"], ["link", "ep-00000001", "ep-nope"]):
        assert run(mem, *argv) == 4, argv
        err = capsys.readouterr().err.strip().splitlines()
        assert len([x for x in err if not x.startswith("warning:")]) == 1


def test_archive_restore_entry_and_fact(mem, capsys):
    code, out, _ = run_json(capsys, mem, "archive", "ep-00000001")
    assert code == 0 and out["archived"] is True
    assert run(mem, "search", "誤刪") == 1
    code, out, _ = run_json(capsys, mem, "search", "誤刪", "--archived")
    assert out["hits"][0]["entry"]["archived"] is True
    assert run(mem, "restore", "ep-00000001") == 0
    assert capsys.readouterr().out == "restored ep-00000001 (refreshed: its decay starts again)\n"

    code, out, _ = run_json(capsys, mem, "archive", "name")
    assert code == 0 and out["kind"] == "fact" and out["archived"] is True
    assert "# prefs\nname:\n  archived: true\n" in (mem / "fact.yml").read_text(encoding="utf-8")
    assert run(mem, "restore", "name") == 0
    restored = (mem / "fact.yml").read_text(encoding="utf-8")
    assert restored == "# prefs\nname: Alice  # me\nstats: R\n"
    capsys.readouterr()


def test_promote_decay_and_link(mem, capsys):
    code, out, _ = run_json(capsys, mem, "promote", "1", "--importance", "9")
    assert code == 0 and out["summary"] == "add hook tests" and out["tags"] == ["hook"]
    assert out["importance"] == 9
    pad = (mem / "scratchpad.md").read_text(encoding="utf-8")
    assert pad == f"- [x] add hook tests (→ {out['id']})\n- notes\n"
    assert run(mem, "promote", "1") == 2  # already promoted
    capsys.readouterr()

    code, out, _ = run_json(capsys, mem, "decay")
    assert code == 0 and [e["id"] for e in out["decayed"]] == ["ep-00000002"]
    assert run(mem, "decay", "--archive-all") == 2  # needs --yes
    assert "--yes" in capsys.readouterr().err
    code, out, _ = run_json(capsys, mem, "decay", "--archive-all", "--yes")
    assert out["archived"] == ["ep-00000002"]
    assert run(mem, "decay") == 1

    code, out, _ = run_json(capsys, mem, "link", "ep-00000001", "ep-00000002", "--weight", "0.8")
    assert code == 0 and out["weight"] == 0.8
    code, out, _ = run_json(capsys, mem, "link", "ep-00000001", "ep-00000002", "--remove")
    assert code == 0 and out["removed"][0]["a"] == "ep-00000001"
    assert run(mem, "link", "ep-00000001", "ep-00000001") == 2
    capsys.readouterr()


def test_broken_fact_file_is_a_usage_error_with_position(mem, capsys):
    (mem / "fact.yml").write_text("name: [Alice\n", encoding="utf-8")
    assert run(mem, "archive", "name") == 2
    err = capsys.readouterr().err
    assert "fact.yml:2:1" in err
    assert (mem / "fact.yml").read_text(encoding="utf-8") == "name: [Alice\n"
    assert run(mem, "list", "--tier", "episodic") == 0  # other tiers unaffected
    capsys.readouterr()


def test_main_cli_wires_memory(mem, capsys):
    cli = pytest.importorskip("tui.cli.main")
    pytest.importorskip("tui.cli.index")
    code = cli.main(["memory", "--memory-dir", str(mem), "show", "ep-00000001", "--json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["id"] == "ep-00000001"
