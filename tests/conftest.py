"""Shared fixtures: the real-log corpus in tests/data/corpus and indexes built from it."""

from __future__ import annotations

import errno
import gc
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from indexer import Index, only_roots

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
CORPUS = DATA / "corpus"

# Tests are mirrored by part (tests/core/<part>/, tests/cli/, tests/app/, tests/project/) with
# their shared builders in tests/support/. Test modules import those builders, and a few import
# fixtures from one another, by module name: every test folder is put on the path once, here,
# instead of in each file (the names are unique across folders; a test checks that).
TEST_FOLDERS = sorted({TESTS / "support", *(p.parent for p in TESTS.glob("*/**/test_*.py"))})
for _folder in TEST_FOLDERS:
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))
# A fixed "now" for anything that renders relative times or decays: 2026-07-01T00:00:00Z.
FIXED_NOW = 1782864000.0


# Compiled code is kept for the next run even where PYTHONDONTWRITEBYTECODE is set: pytest
# rewrites the asserts of every test module at collection (about 3 s per worker) and keeps the
# result in tests/__pycache__, and the CLI, hook and MCP tests start about two hundred
# processes, most of them Python, each of which would otherwise compile the package's modules
# from source again (50-100 ms of CPU each). git ignores the files (.gitignore: __pycache__/).
sys.dont_write_bytecode = False
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def _quicker_pilot_idle_checks(step: float = 0.01) -> None:
    """Pilot's ``press``/``pause`` wait until the app is idle: they sleep in steps of 20 ms until
    a step passes with under 5% CPU, so each key costs at least two idle steps and a test of
    twenty keys sleeps about a second. Steps of 10 ms keep the same test (the same CPU share, so
    a busy app is still waited for). The screen repaints at most every 1/60 s and a step must be
    longer than that, or a pause could end before a pending repaint (and the callbacks that wait
    for it) ran: so the test apps repaint at up to 120 frames a second, a period of 8.3 ms."""
    import textual._wait as wait
    import textual.screen as screen

    if hasattr(wait, "SLEEP_GRANULARITY") and hasattr(wait, "SLEEP_IDLE") and hasattr(screen, "UPDATE_PERIOD"):
        screen.UPDATE_PERIOD = step / 1.2
        wait.SLEEP_GRANULARITY = step
        wait.SLEEP_IDLE = step / 20


_quicker_pilot_idle_checks()


def _no_animations() -> None:
    """The test apps jump to where an animation ends (a tab's underline, a smooth scroll), as
    with TEXTUAL_ANIMATIONS=none: Pilot's ``press`` waits for every running animation in real
    time, and a test checks where things end up, which is the same either way."""
    import textual.constants as constants

    constants.TEXTUAL_ANIMATIONS = "none"  # read by each App as it is built


_no_animations()


def _css_parsed_once_per_worker() -> None:
    """Each test app parses the same CSS (every widget's DEFAULT_CSS and the app's own) with
    the same theme variables again, and again on each theme refresh: about a tenth of a UI
    test's CPU. Textual keeps the parsed rules per stylesheet; here they are kept for the
    worker, under the same key plus the variables they were parsed with. A CSS error is not
    kept (Textual raises it on every parse, so a broken stylesheet still fails every app)."""
    from textual.css.stylesheet import Stylesheet

    parse_rules = getattr(Stylesheet, "_parse_rules", None)
    if parse_rules is None:
        return
    parsed: dict[tuple, list] = {}

    def kept_parse_rules(self, css, read_from, is_default_rules=False, tie_breaker=0, scope=""):
        key = (css, read_from, is_default_rules, tie_breaker, scope, tuple(self._variables.items()))
        rules = parsed.get(key)
        if rules is None:
            rules = parse_rules(self, css, read_from, is_default_rules, tie_breaker, scope)
            if not any(rule.errors for rule in rules):
                parsed[key] = rules
        return rules

    Stylesheet._parse_rules = kept_parse_rules


_css_parsed_once_per_worker()


def _highlight_queries_compiled_once_per_worker() -> None:
    """Each syntax-highlighting TextArea (the memory and rules editors) compiles its language's
    tree-sitter highlight query, 3 ms each, about six a test. A compiled ``Query`` holds no
    state of its own (each search runs in its own ``QueryCursor``), so a worker compiles each
    language's query once."""
    try:
        from textual.document._syntax_aware_document import SyntaxAwareDocument
    except ImportError:  # Textual without tree-sitter: nothing to compile
        return
    prepare_query = SyntaxAwareDocument.prepare_query
    compiled: dict[tuple, object] = {}

    def kept_prepare_query(self, query: str):
        key = (self.language, query)
        if key not in compiled:
            compiled[key] = prepare_query(self, query)
        return compiled[key]

    SyntaxAwareDocument.prepare_query = kept_prepare_query


_highlight_queries_compiled_once_per_worker()


# The garbage collector's full passes walked every live object (Textual, the test modules,
# pytest's items) about once a second of UI test: 15-20% of a UI test's CPU. A worker collects
# less often (a young generation of 10,000 objects rather than 700), and what exists once the
# tests are collected is set aside for good (``gc.freeze``), so a full pass walks only what the
# tests made. Garbage is still collected, and pytest still collects it all at the end to report
# any error raised while finalising an object.
gc.set_threshold(10_000, 10, 10)


def pytest_collection_finish(session) -> None:
    gc.collect()
    gc.freeze()


def corpus_roots(base: Path = CORPUS):
    return only_roots({
        "claude-code": [base / "claude-code" / "projects"],
        "codex": [base / "codex" / "sessions"],
        "pi": [base / "pi"],
    })


def pytest_xdist_auto_num_workers(config) -> int:
    """``pytest -n auto`` (what CI runs): two workers per core. Most of the suite drives the app
    through Textual's pilot, which waits for the app to go idle after each key, so a worker is
    idle more than busy and a second one per core fills those waits (2 cores: 62 s -> 45 s)."""
    return 2 * (os.cpu_count() or 1)


APPROVAL_PASSPHRASE = "correct horse battery staple"
TEST_SCRYPT_COST = 16


def unlock_person_key() -> None:
    """The person's approval key under the current THREADBACK_HOME, set up (at the tests' cost)
    or unlocked with APPROVAL_PASSPHRASE: what typing it in a review does."""
    from indexer.rules import signing

    if signing.key_path().exists():
        signing.unlock(APPROVAL_PASSPHRASE)
    else:
        signing.set_up(APPROVAL_PASSPHRASE, how={"summary": "set up by the test"}, cost=TEST_SCRYPT_COST)


@pytest.fixture(autouse=True)
def private_threadback_home(tmp_path_factory, monkeypatch):
    """Tests never touch the real ~/.local/share/threadback (usage log, default memory)."""
    home = tmp_path_factory.mktemp("threadback-home")
    monkeypatch.setenv("THREADBACK_HOME", str(home))
    # Nor the developer's config file: its [archive] or [roots] would change what tests see.
    monkeypatch.setenv("THREADBACK_CONFIG", str(home / "config.toml"))
    # A hook's 1 s budget is start-up, forking and reading memory; on a loaded test machine the
    # start-up alone can take it, and the memory pieces a test looks for come back "left out".
    # tests/core/agents/test_hook_budget.py holds the budget itself, with its own values.
    monkeypatch.setenv("THREADBACK_HOOK_BUDGET", "9")
    monkeypatch.delenv("THREADBACK_DB", raising=False)
    monkeypatch.delenv("THREADBACK_MEMORY_DIR", raising=False)
    monkeypatch.delenv("THREADBACK_SESSION_ID", raising=False)
    # The person set up an approval passphrase and typed it in this process (the tests that
    # drive a review or an allow in a real process type it: APPROVAL_PASSPHRASE). A cheap
    # scrypt cost, stored in the key file, so hundreds of tests do not pay 0.1 s each.
    from indexer.rules import signing

    signing.lock()
    unlock_person_key()
    monkeypatch.delenv("CLAUDE_SESSION_ID", raising=False)
    return home


@pytest.fixture
def private_corpus(tmp_path) -> Path:
    """A copy of the corpus for a test that indexes it twice and expects nothing new: every index
    run with the archive on hard-links the logs it reads, so other tests indexing the shared
    corpus at the same time (and the removal of their tmp folders) change its files' inode
    change time, which tells an index that a log was rewritten and is read again."""
    return shutil.copytree(CORPUS, tmp_path / "corpus")


@pytest.fixture(scope="session")
def corpus_index_path(tmp_path_factory) -> Path:
    """An index of the whole fixture corpus, built once per test run (read-only use)."""
    path = tmp_path_factory.mktemp("corpus-index") / "index.sqlite3"
    index = Index(path)
    index.update(corpus_roots(), now=FIXED_NOW)
    index.close()
    return path


@pytest.fixture
def corpus_index(corpus_index_path) -> Index:
    index = Index(corpus_index_path)
    yield index
    index.close()


@pytest.fixture
def writable_corpus_index(corpus_index_path, tmp_path) -> Index:
    """A private copy of the corpus index, for tests that write."""
    path = tmp_path / "index.sqlite3"
    shutil.copy(corpus_index_path, path)
    index = Index(path)
    yield index
    index.close()


@pytest.fixture
def frames_only(monkeypatch):
    """No hard link can be made (as across file systems): the archive keeps zstd frames."""
    def refuse(src, dst, *args, **kwargs):
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), src, None, dst)
    monkeypatch.setattr("indexer.archive.link.os.link", refuse)


@pytest.fixture
def tmpfs(tmp_path):
    """A small tmpfs to fill or make read-only: ``mount("2M")`` gives its folder (skipped
    where mounting needs a root this run lacks); unmounted after the test."""
    mounted = []

    def mount(size: str) -> Path:
        point = tmp_path / f"mnt{len(mounted)}"
        point.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)], capture_output=True)
        if done.returncode:
            pytest.skip("cannot mount a tmpfs here (needs root)")
        mounted.append(point)
        return point

    yield mount
    for point in reversed(mounted):
        subprocess.run(["umount", "-l", str(point)], capture_output=True)
