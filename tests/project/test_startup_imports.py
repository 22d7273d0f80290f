"""Commands agents run many times a session load only what they need: ``threadback search`` and
the hooks never import the YAML, UI, MCP or process libraries, nor the parsers and the writer.

Each command runs as a real subprocess under ``python -X importtime``; the modules it loaded
are read from that report. What they cost in milliseconds is ``bench/speed/bench_startup.py``'s job.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from agent_logs import build_index, claude_session
from cli_process import REPO, cli_env
from indexer.sources import AGENTS

# Libraries a search or a hook must not load, and the parts of the core they do not use.
HEAVY = ("ruamel", "textual", "rich", "pygments", "humanize", "tomlkit", "mcp", "psutil", "opencc",
         "pydantic", "filelock", "importlib.metadata", "zstandard")
NOT_ON_THE_SEARCH_PATH = ("indexer.memory", "indexer.rules", "indexer.ingest.run", "indexer.ingest.writer",
                          "indexer.ingest.helper", "indexer.sources.claude_code", "indexer.agents.context",
                          "tui.cli.memory", "tui.cli.rules", "tui.cli.agents", "tui.app",
                          # what an index run reports and records, the usage report, atomic writes
                          "indexer.ingest.progress", "indexer.ingest.outcome", "indexer.ingest.failures",
                          "indexer.agents.usage_report", "indexer.agents.refresh", "indexer.util.fileio",
                          # browsing (stats, lists) and the activity strip: ``show``, ``sessions``
                          "indexer.store.browse", "indexer.activity",
                          # a read-only open neither takes the index lock nor migrates
                          "indexer.ingest", "indexer.store.migrations",
                          # the token summary of a session header (``show``)
                          "tui.display")
# Standard modules a search or the prompt hook has no use for (config files, hashing, temp
# files, child processes); each costs milliseconds. Their records are NamedTuples, so no
# dataclasses (which loads inspect, ast, dis, tokenize); a plain line is read without argparse
# (whose help formatters load shutil and locale); traceback only on a crash; locks from ``_thread``.
STDLIB_NOT_NEEDED = ("tomllib", "hashlib", "tempfile", "subprocess", "dataclasses", "inspect", "tokenize",
                     "traceback", "shutil", "locale", "pickle", "argparse", "threading",
                     # the index, the usage log and the model file are named by str paths (os.path):
                     # pathlib loads urllib.parse and ipaddress, ~4 ms together
                     "pathlib", "urllib", "ipaddress",
                     # JSON is read and written by ``indexer.util.quick_json`` (``_json`` alone): ~1.4 ms
                     "json",
                     # records are ``indexer.util.named_record`` NamedTuples and annotations are strings:
                     # no ``typing`` (~2-3 ms with contextlib and warnings); no importlib either
                     "typing", "contextlib", "importlib", "warnings")
# Patterns compiled on first use: they take milliseconds each, and an ASCII search needs none
# (the CLI's own "…" and "·" are not special: textsafe checks such lines with its ASCII class).
# The query's flag and date patterns too: a plain word has no "-", "=" or ``since:``.
LAZY_PATTERNS = (("indexer.text.secret_mask", "_compiled"), ("indexer.text.fold", "_may_fold"),
                 ("indexer.store.side_file", "_cjk_run"), ("indexer.text.safe", "_special_chars"),
                 ("indexer.search.query", "_short_flag"), ("indexer.search.query", "_long_flag"),
                 ("indexer.search.query", "_env_assignment"), ("indexer.search.query", "_relative"))


# What an editable install's import hook loads when the interpreter starts (a regular install's
# does not): forgotten before the command runs, so the report shows whether the command loads them.
LOADED_BY_AN_EDITABLE_INSTALL = ("pathlib", "urllib", "ipaddress")
# What ``python -m tui.cli`` runs, without ``runpy`` (which loads importlib.util and contextlib).
RUN_THE_CLI = ("import sys\n"
               f"for name in [m for m in sys.modules if m.split('.')[0] in {LOADED_BY_AN_EDITABLE_INSTALL!r}]:\n"
               "    del sys.modules[name]\n"
               "sys.argv[0] = 'threadback'\n"
               "from tui.cli.main import run\n"
               "raise SystemExit(run())")


def imported_modules(argv: list[str], env: dict[str, str], stdin: str | None = None) -> tuple[set[str], str]:
    """What ``threadback ARGV`` imports, and its output (``tui.cli.main.run``, as
    ``RUN_THE_CLI`` runs it)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", RUN_THE_CLI, *argv], input=stdin,
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=60)
    names = [line.rsplit("|", 1)[1] for line in proc.stderr.splitlines()
             if line.startswith("import time:") and "|" in line]
    if " site" in names:  # the interpreter's own start-up is reported first: not the command's
        names = names[names.index(" site") + 1:]
    return {name.strip() for name in names}, proc.stdout


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@pytest.fixture(scope="module")
def index_env(tmp_path_factory):
    root = tmp_path_factory.mktemp("startup")
    claude_session(root / "logs", "s1", "alpha", ["the websocket timeout again", "raised the timeout to 30 s"])
    db = build_index(root / "logs", root / "index.sqlite3")
    return cli_env(THREADBACK_DB=str(db), THREADBACK_HOME=str(root / "home"), HOME=str(root / "home"),
                   THREADBACK_MEMORY_DIR=str(root / "memory"))


def test_the_report_sees_heavy_imports(index_env):
    """The check can fail: the memory command does load the YAML library (to read a fact.yml)
    and the memory store."""
    memory = Path(index_env["THREADBACK_MEMORY_DIR"])
    memory.mkdir(parents=True, exist_ok=True)
    (memory / "fact.yml").write_text("editor: vim\n", encoding="utf-8")
    modules, out = imported_modules(["memory", "list"], index_env)
    assert "editor" in out
    assert loaded(modules, ("ruamel",)) and loaded(modules, ("indexer.memory",))


@pytest.mark.parametrize("argv", [["search", "timeout"], ["search", "--json", "timeout"],
                                  ["--db", "{db}", "search", "-1", "websocket"]])
def test_search_loads_only_what_it_needs(index_env, argv):
    argv = [a.format(db=index_env["THREADBACK_DB"]) for a in argv]
    modules, out = imported_modules(argv, index_env)
    assert "timeout" in out or "websocket" in out  # it did search, and found the session
    assert loaded(modules, HEAVY) == []
    assert loaded(modules, NOT_ON_THE_SEARCH_PATH) == []
    assert loaded(modules, STDLIB_NOT_NEEDED) == []


@pytest.mark.parametrize("argv", [["hook", "prompt"], ["--db", "{db}", "hook", "prompt"]])
def test_prompt_hook_loads_only_what_it_needs(index_env, argv):
    argv = [a.format(db=index_env["THREADBACK_DB"]) for a in argv]
    event = {"session_id": "other", "cwd": "/w/alpha", "hook_event_name": "UserPromptSubmit",
             "prompt": "didn't we fix the websocket timeout before?"}
    modules, out = imported_modules([*argv, "--text"], index_env, stdin=json.dumps(event))
    assert "s1" in out  # the recall reminder found the earlier session
    assert loaded(modules, HEAVY) == []
    assert loaded(modules, NOT_ON_THE_SEARCH_PATH) == []
    assert loaded(modules, STDLIB_NOT_NEEDED) == []


# What only a run that reads a log uses: parsing, the helper process, the archive's copying,
# sealing and restoring, zstandard, the embedding process beside the reading (~35 ms of the
# fresh process a hook or the CLI starts, where a no-change run over 4,796 logs takes ~125).
ONLY_WHEN_A_LOG_IS_READ = ("indexer.ingest.prepare", "indexer.ingest.helper", "indexer.archive.writer",
                           "indexer.archive.ranges", "indexer.archive.restore", "indexer.archive.seal",
                           "indexer.vectors.follow", "zstandard", "subprocess", "tempfile", "concurrent")


def test_a_no_change_index_run_loads_no_parsing_helper_or_archive_copying(tmp_path):
    """``threadback index`` with nothing new loads none of the reading code; an append to one
    log (the check can fail) loads parsing, the archive's copying and zstandard."""
    logs = tmp_path / "logs"
    log = claude_session(logs, "s1", "alpha", ["the websocket timeout again", "raised the timeout to 30 s"])
    db = build_index(logs, tmp_path / "index.sqlite3")
    env = cli_env(THREADBACK_DB=str(db), THREADBACK_HOME=str(tmp_path / "home"), HOME=str(tmp_path / "home"))
    modules, out = imported_modules(["index", "--claude-dir", str(logs)], env)
    assert "0 new, 0 grown" in out and "(+0)" in out
    assert loaded(modules, ONLY_WHEN_A_LOG_IS_READ) == []
    with log.open("a", encoding="utf-8") as fh:
        fh.write(log.read_text(encoding="utf-8").splitlines()[0].replace("s1-0", "s1-9") + "\n")
    modules, out = imported_modules(["index", "--claude-dir", str(logs)], env)
    assert "1 grown" in out and "(+1)" in out
    assert {"indexer.ingest.prepare", "indexer.archive.writer", "zstandard"} <= set(loaded(modules, ONLY_WHEN_A_LOG_IS_READ))


def test_the_hooks_background_refresh_with_nothing_new_loads_no_reading_or_searching_code(tmp_path):
    """What the Stop hook starts after a turn (``python -m indexer.agents.refresh DB``, over the
    configured folders): with nothing new it loads none of the reading code, nor the search."""
    home = tmp_path / "home"
    claude_session(home / ".claude" / "projects", "s1", "alpha", ["the websocket timeout again", "raised it"])
    db = tmp_path / "index.sqlite3"
    env = cli_env(THREADBACK_HOME=str(home / "tb"), HOME=str(home))
    for agent in AGENTS:  # each agent's folders under this home, whatever the machine's environment says
        for variable in agent.home_env:
            env.pop(variable, None)
    env.pop("THREADBACK_CONFIG", None)
    env.pop("XDG_CONFIG_HOME", None)  # the config file under this home: none
    argv = [sys.executable, "-X", "importtime", "-m", "indexer.agents.refresh", str(db)]

    def refreshed() -> set[str]:
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=REPO, timeout=60)
        assert proc.returncode == 0, proc.stderr[-2000:]
        names = [line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines()
                 if line.startswith("import time:") and "|" in line]
        return set(names[names.index("site") + 1:] if "site" in names else names)

    first = refreshed()  # the first run reads the log (the check can fail: it loads them)
    assert {"indexer.ingest.prepare", "zstandard"} <= set(loaded(first, ONLY_WHEN_A_LOG_IS_READ))
    assert "s1" in json.dumps(sqlite3.connect(db).execute("SELECT session_id FROM sessions").fetchall())
    again = refreshed()
    assert loaded(again, ONLY_WHEN_A_LOG_IS_READ) == []
    assert loaded(again, ("indexer.search", "indexer.memory", "textual", "rich")) == []


def test_session_start_hook_loads_no_ui_or_mcp(index_env):
    """session-start reads memory and rules (so YAML), but nothing else heavy."""
    event = {"session_id": "other", "cwd": "/w/alpha", "hook_event_name": "SessionStart", "source": "startup"}
    modules, out = imported_modules(["hook", "session-start", "--text"], index_env, stdin=json.dumps(event))
    assert "threadback search" in out
    assert loaded(modules, ("textual", "rich", "pygments", "humanize", "mcp", "psutil", "tomlkit")) == []
    assert loaded(modules, ("indexer.ingest.run", "indexer.sources.claude_code", "tui.cli.agents")) == []
    # it searches nothing: the index and the prompt's detectors stay unloaded
    assert loaded(modules, ("indexer.index", "indexer.search.fts", "indexer.agents.recall",
                            "indexer.agents.evidence", "indexer.agents.relevance")) == []
    # reading memory takes no lock (filelock is for writes) and starts no index run
    assert loaded(modules, ("filelock", "indexer.agents.refresh", "subprocess")) == []
    # nor build the full command line's parser (``tui.cli.quick_args``), whose help needs locale
    assert loaded(modules, ("locale",)) == []
    # its records are ``indexer.util.frozen_record`` classes: no dataclasses (which loads inspect, ast)
    assert loaded(modules, ("dataclasses", "inspect", "ast", "threading")) == []


def test_an_ascii_search_compiles_none_of_the_big_patterns(index_env):
    """The big Unicode classes and the secret masker's patterns are compiled on first use; an
    ASCII search in ASCII text with no secret in it needs none of them."""
    code = ("import io, contextlib, sys; from tui.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()): main(['search', 'websocket'])\n"
            f"for name, getter in {LAZY_PATTERNS!r}:\n"
            "    print(f'{name}.{getter}', getattr(sys.modules[name], getter).cache_info().currsize)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=index_env, cwd=REPO,
                          timeout=60)
    sizes = dict(line.split() for line in proc.stdout.splitlines())
    assert sizes == {f"{name}.{getter}": "0" for name, getter in LAZY_PATTERNS}, proc.stderr


def test_a_command_line_query_compiles_the_flag_patterns(index_env):
    """The check can fail: a pasted command line (``-s``) is read with the flag pattern."""
    code = ("import io, contextlib, sys; from tui.cli.main import main\n"
            "with contextlib.redirect_stdout(io.StringIO()): main(['search', 'nginx', '-s', 'reload'])\n"
            "print(sys.modules['indexer.search.query']._short_flag.cache_info().currsize)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=index_env, cwd=REPO,
                          timeout=60)
    assert proc.stdout.split() == ["1"], proc.stderr


@pytest.mark.parametrize("argv", [["search", "timeout"], ["search", "--json", "timeout"]])
def test_a_message_search_loads_no_session_view(index_env, argv):
    """The session view's ranking (``-1``) and, for text, the shell quoting of ``--json``'s
    resume commands are loaded by the searches that print them."""
    modules, out = imported_modules(argv, index_env)
    assert "timeout" in out
    assert loaded(modules, ("indexer.search.session_search",)) == []
    # nor what only a filter, a file: filter, an empty result or a non-ASCII query needs
    assert loaded(modules, ("indexer.search.narrowing", "indexer.project_scope", "indexer.store.file_sessions",
                            "indexer.search.suggestions", "unicodedata")) == []
    if "--json" not in argv:  # nor ``json``: the usage line is written without it
        assert loaded(modules, ("shlex", "json")) == []


def test_help_lists_every_verb():
    """Verbs are registered lazily; the top-level help still names all of them."""
    from tui.cli.main import VERBS

    proc = subprocess.run([sys.executable, "-m", "tui.cli", "--help"], capture_output=True, text=True,
                          env=cli_env(), cwd=REPO, timeout=60)
    assert proc.returncode == 0
    for verb in VERBS:
        assert verb in proc.stdout


def test_session_start_without_facts_loads_no_yaml(tmp_path):
    """The YAML library (~10 ms) is loaded to parse a fact.yml: with none, a session start skips it."""
    env = cli_env(THREADBACK_DB=str(tmp_path / "none.sqlite3"), THREADBACK_HOME=str(tmp_path / "home"),
                  HOME=str(tmp_path / "home"), THREADBACK_MEMORY_DIR=str(tmp_path / "memory"))
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "scratchpad.md").write_text("- [ ] check the websocket timeout\n", encoding="utf-8")
    event = {"session_id": "other", "cwd": str(tmp_path), "hook_event_name": "SessionStart", "source": "startup"}
    modules, out = imported_modules(["hook", "session-start", "--text"], env, stdin=json.dumps(event))
    assert "websocket timeout" in out  # it did read the memory folder
    assert loaded(modules, ("ruamel", "tempfile")) == []


@pytest.mark.parametrize("argv", [["--help"], ["-h", "search"], ["no-such-verb"]])
def test_the_top_level_help_loads_no_command_module(argv):
    """``--help`` and "invalid choice" list the verbs from ``tui.cli.verbs`` alone, word for word
    what the full command line prints."""
    import contextlib
    import io

    from tui.cli.main import build_parser

    modules, out = imported_modules(argv, cli_env())
    assert loaded(modules, ("tui.cli.index", "tui.cli.memory", "tui.cli.rules", "tui.cli.agents", "indexer.memory",
                            "indexer.index", "ruamel")) == []
    listed, full = build_parser(argv), build_parser(every_verb=True)
    assert listed.format_help() == full.format_help()
    errors = []
    for parser in (listed, full):
        with contextlib.redirect_stderr(io.StringIO()) as err, pytest.raises(SystemExit):
            parser.parse_args(["no-such-verb"])
        errors.append(err.getvalue())
    assert errors[0] == errors[1] and "invalid choice" in errors[0]



def test_session_start_with_an_empty_memory_folder_hashes_nothing(tmp_path):
    """A new user's session start has no file to hash, sign or compare: hashlib (OpenSSL),
    hmac, secrets, difflib and getpass load on first use (``indexer.util.digest``), not at start-up."""
    env = cli_env(THREADBACK_DB=str(tmp_path / "none.sqlite3"), THREADBACK_HOME=str(tmp_path / "home"),
                  HOME=str(tmp_path / "home"), THREADBACK_MEMORY_DIR=str(tmp_path / "memory"))
    (tmp_path / "memory").mkdir()
    event = {"session_id": "other", "cwd": str(tmp_path), "hook_event_name": "SessionStart", "source": "startup"}
    modules, out = imported_modules(["hook", "session-start", "--text"], env, stdin=json.dumps(event))
    assert "threadback search" in out
    assert loaded(modules, ("hashlib", "_hashlib", "hmac", "secrets", "difflib", "getpass")) == []


def test_a_prompt_that_points_at_nothing_loads_no_search(index_env):
    """Most prompts trigger nothing: the detectors run (``indexer.text.cjk`` for the script test),
    but the query language, the index and SQLite stay unloaded."""
    event = {"session_id": "other", "cwd": "/w/alpha", "hook_event_name": "UserPromptSubmit",
             "prompt": "add a unit test for the config parser"}
    modules, _ = imported_modules(["hook", "prompt", "--text"], index_env, stdin=json.dumps(event))
    assert "indexer.agents.recall" in modules
    assert loaded(modules, ("indexer.search.query", "indexer.index", "indexer.search.fts", "sqlite3")) == []
    # nor what only a reminder, a session start or an index command uses: the shell quoting of
    # its command lines, dates, the budget's child process, the index's errors and lock
    assert loaded(modules, ("shlex", "datetime", "struct", "pickle", "_pickle", "signal", "indexer.ingest.lock",
                            "indexer.store.errors", "indexer.store.schema")) == []


def _session_start_modules(tmp_path, memory: Path) -> tuple[set[str], str]:
    env = cli_env(THREADBACK_DB=str(tmp_path / "none.sqlite3"), THREADBACK_HOME=str(tmp_path / "home"),
                  HOME=str(tmp_path / "home"), THREADBACK_MEMORY_DIR=str(memory))
    event = {"session_id": "other", "cwd": str(tmp_path), "hook_event_name": "SessionStart", "source": "startup"}
    # -X importtime reports the budget's child process too: it writes to the same stderr
    return imported_modules(["hook", "session-start", "--text"], env, stdin=json.dumps(event))


def test_session_start_without_a_memory_folder_loads_no_store(tmp_path):
    """A new user's session start (no memory folder yet) gives empty pieces without loading
    the memory or rule stores; the budget's child uses the C pickler, not ``pickle`` or
    ``signal``."""
    modules, out = _session_start_modules(tmp_path, tmp_path / "no-such-folder")
    assert "threadback search" in out
    assert "indexer.agents.context" in modules and "indexer.agents.budget" in modules
    assert loaded(modules, ("indexer.memory", "indexer.rules", "ruamel", "hashlib")) == []
    assert loaded(modules, ("pickle", "signal", "struct")) == []
    # reading whether a folder is allowed writes nothing: no atomic writes loaded
    assert loaded(modules, ("indexer.util.fileio", "tempfile")) == []
    assert not (tmp_path / "no-such-folder").exists()  # and it made none


def test_session_start_with_a_memory_folder_still_reads_it(tmp_path):
    """The check can fail: with a folder, the child loads the stores and reads the scratchpad."""
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "scratchpad.md").write_text("- [ ] check the websocket timeout\n", encoding="utf-8")
    modules, out = _session_start_modules(tmp_path, memory)
    assert "websocket timeout" in out
    assert loaded(modules, ("indexer.memory",)) and loaded(modules, ("indexer.rules",))
    assert loaded(modules, ("pickle", "signal")) == []
    # its small files are stamped with the interpreter's own SHA-256: OpenSSL is not loaded
    assert loaded(modules, ("hashlib", "_hashlib")) == []


def test_the_index_uri_quotes_as_urllib_does(tmp_path):
    """``indexer.store.file_uri`` stands in for ``urllib.parse.quote`` (which loads ``ipaddress``):
    the same URI for every byte a file name can hold, and SQLite opens the file by it."""
    import os
    import sqlite3
    from urllib.parse import quote

    from indexer.store.file_uri import path_uri

    every_byte = bytes(b for b in range(1, 256) if b != ord("/"))
    for raw in (every_byte, b"/tmp/a b/%41?#&=;+,\xe6\x97\xa5\xff/index.sqlite3", b"relative/x y"):
        name = os.fsdecode(raw)
        assert path_uri(name) == f"file:{quote(os.fsencode(name))}"
    path = tmp_path / "odd ?#% name.sqlite3"
    sqlite3.connect(path).execute("CREATE TABLE t (x)").connection.close()
    with sqlite3.connect(path_uri(path) + "?mode=ro", uri=True) as conn:
        assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("t",)]


def test_session_start_with_memory_loads_only_the_readers(tmp_path):
    """The demo memory folder (episodes, links, scratchpad, rules; fact.yml left out, so no
    YAML): the stores load without ``typing`` or ``contextlib``, and without the modules that
    search, filter, promote, export or import memory and rules."""
    import shutil

    memory = tmp_path / "memory"
    shutil.copytree(REPO / "tui" / "demo" / "memory", memory)
    (memory / "fact.yml").unlink()
    env = cli_env(THREADBACK_DB=str(tmp_path / "none.sqlite3"), THREADBACK_HOME=str(tmp_path / "home"),
                  HOME=str(tmp_path / "home"))
    event = {"session_id": "other", "cwd": str(tmp_path), "hook_event_name": "SessionStart", "source": "startup"}
    modules, out = imported_modules(["--memory-dir", str(memory), "hook", "session-start", "--text"], env,
                                    stdin=json.dumps(event))
    assert "Episodic table with strength bars" in out  # it did read the scratchpad
    assert loaded(modules, ("indexer.memory.store", "indexer.rules.store")) == ["indexer.memory.store",
                                                                                "indexer.rules.store"]
    assert loaded(modules, ("typing", "contextlib", "importlib", "ruamel")) == []
    # JSON lines are read by ``indexer.util.quick_json``; a folder the user named needs no allow list
    assert loaded(modules, ("json", "indexer.memory.trust")) == []
    assert loaded(modules, ("indexer.memory.search", "indexer.memory.filter", "indexer.memory.promotion",
                            "indexer.memory.promotion_steps", "indexer.search", "indexer.rules.claude_notes",
                            "indexer.rules.instructions_block")) == []


def test_session_start_in_a_project_with_its_own_memory_checks_the_allow_list(tmp_path):
    """The check can fail: a ``./memory/`` found in the project (a cloned repository's, maybe)
    is read only once the user allowed it, so the allow list is loaded, and the folder is left
    out with a note."""
    project = tmp_path / "project"
    (project / "memory").mkdir(parents=True)
    (project / "memory" / "scratchpad.md").write_text("- [ ] run the deploy script\n", encoding="utf-8")
    env = cli_env(THREADBACK_DB=str(tmp_path / "none.sqlite3"), THREADBACK_HOME=str(tmp_path / "home"),
                  HOME=str(tmp_path / "home"))
    event = {"session_id": "other", "cwd": str(project), "hook_event_name": "SessionStart", "source": "startup"}
    modules, out = imported_modules(["hook", "session-start", "--text"], env, stdin=json.dumps(event))
    assert "indexer.memory.trust" in modules
    assert "left out: not allowed yet" in out and "deploy script" not in out


def _under(package: str, *names: str) -> tuple[str, ...]:
    return tuple(f"{package}.{n}" for n in names)


# The start-up path, in one place: every project module that ``search``, ``search --json``,
# ``--help`` and the prompt and session-start hooks load. Only these keep the start-up tricks
# (``TYPE_CHECKING = False`` instead of importing ``typing``, the records of
# ``indexer.util.named_record`` and ``indexer.util.frozen_record`` instead of ``typing.NamedTuple``
# and ``dataclasses``); every other module uses the standard library's forms. A module that
# joins the path joins this list (the first test below says which).
START_UP_PATH = frozenset((
    "indexer", "tui", "tui.cli",
    "indexer.agents", "indexer.config", "indexer.errors", "indexer.index", "indexer.memory", "indexer.models",
    "indexer.output", "indexer.provenance", "indexer.rules", "indexer.search", "indexer.sources", "indexer.store",
    "indexer.text", "indexer.util",
    *_under("indexer.agents", "budget", "caller", "context", "evidence", "facts_cache", "hooks", "recall", "recall_cues",
            "reference", "relevance", "resume", "usage"),
    *_under("indexer.memory", "associations", "citations", "episodic", "errors", "facts", "folder_lock", "jsonl",
            "retrievals", "scratchpad", "store", "strength", "timeutil", "yaml_bounds"),
    *_under("indexer.output", "json_shapes", "masking"),
    *_under("indexer.provenance", "changed_files"),
    *_under("indexer.rules", "decisions", "model", "signing", "store"),
    *_under("indexer.search", "candidates", "closest", "closest_results", "conditions", "dates", "filters", "fts",
            "matching", "narrowing", "plan", "query", "rare_words", "recall_words", "results", "scoring",
            "session_search", "snippets", "sparse_phrase", "spelling", "suggestions"),
    *_under("indexer.store", "connection", "errors", "file_uri", "health", "packing", "rows", "schema", "side_file",
            "word_index"),
    *_under("indexer.text", "ages", "cjk", "fold", "safe", "secret_mask", "storable", "word_tokens"),
    *_under("indexer.util", "append_log", "digest", "fileio", "frozen_record", "named_record", "quick_json"),
    *_under("tui.cli", "exits", "hook", "index", "main", "options", "parser", "quick_args", "render", "terminal",
            "verbs"),
))
_TRICKS = ("TYPE_CHECKING = False", "indexer.util.named_record", "indexer.util.frozen_record")


def test_the_start_up_path_is_the_listed_one(tmp_path):
    claude_session(tmp_path / "logs", "s1", "alpha", ["the websocket timeout again", "raised the timeout to 30 s"])
    db = build_index(tmp_path / "logs", tmp_path / "index.sqlite3")
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "fact.yml").write_text("editor: vim\n")
    (memory / "episodic.jsonl").write_text('{"id":"ep-00000001","summary":"websocket timeout fixed"}\n')
    env = cli_env(THREADBACK_DB=str(db), THREADBACK_HOME=str(tmp_path / "home"), HOME=str(tmp_path / "home"),
                  THREADBACK_MEMORY_DIR=str(memory))
    prompt = {"session_id": "x", "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit",
              "prompt": "how did we fix the websocket timeout last time?"}
    start = {"session_id": "x", "cwd": str(tmp_path), "hook_event_name": "SessionStart", "source": "startup"}
    loaded_here: set[str] = set()
    for argv, stdin in ((["search", "timeout"], None), (["search", "--json", "timeout"], None), (["--help"], None),
                        (["search", "-1", "websocket"], None),
                        (["hook", "prompt", "--text"], json.dumps(prompt)),
                        (["hook", "prompt", "--text"], json.dumps({**prompt, "prompt": "add a unit test for the parser"})),
                        (["hook", "session-start", "--text"], json.dumps(start))):
        modules, _ = imported_modules(argv, env, stdin=stdin)
        loaded_here |= {m for m in modules if m.split(".")[0] in ("indexer", "tui")}
    assert "indexer.agents.hooks" in loaded_here and "indexer.search.fts" in loaded_here  # the report was read
    assert sorted(loaded_here - START_UP_PATH) == []


def test_start_up_tricks_stay_on_the_start_up_path():
    off_the_path = []
    for package in ("indexer", "tui"):
        for f in sorted((REPO / package).rglob("*.py")):
            module = ".".join(f.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
            text = f.read_text(encoding="utf-8")
            tricks = [t for t in _TRICKS if t in text and module not in ("indexer.util.named_record",
                                                                           "indexer.util.frozen_record")]
            if tricks and module not in START_UP_PATH:
                off_the_path.append((module, tricks))
    assert off_the_path == []
