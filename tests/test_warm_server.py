"""The warm server (``tui.cli.warm``), run as users meet it: real ``threadback`` processes, the
server they start, a real socket. A command the server ran must print, exit and read its
stdin exactly as the same command run cold; whether the server ran it is read from
``python -X importtime`` (a warm caller imports none of ``indexer``)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from agent_logs import build_index, claude_session
from cli_process import REPO, cli_env

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "win32", reason="POSIX only")

PROMPT = {"session_id": "other", "cwd": "/w/alpha", "hook_event_name": "UserPromptSubmit",
          "prompt": "didn't we fix the websocket timeout before?"}


@pytest.fixture
def warm(tmp_path):
    """An index, a private runtime folder, and an environment with the warm server on. The
    servers started here leave at their idle tick once their socket is removed."""
    claude_session(tmp_path / "logs", "s1", "alpha", ["the websocket timeout again", "raised the timeout to 30 s",
                                                       "資料庫 連線 逾時", "done"])
    db = build_index(tmp_path / "logs", tmp_path / "index.sqlite3")
    # short, as an XDG_RUNTIME_DIR is: a socket's path must fit in 108 bytes
    runtime = Path(tempfile.mkdtemp(prefix="tbw-", dir="/tmp"))
    env = cli_env(THREADBACK_WARM="1", THREADBACK_WARM_IDLE="4", XDG_RUNTIME_DIR=str(runtime),
                  THREADBACK_DB=str(db))
    yield env, runtime / "threadback", db
    shutil.rmtree(runtime)  # the servers started here find their socket gone and leave


# The installed ``threadback`` script: its import path starts at its own folder, wherever it
# runs (``python -m`` would put the working folder first, and so make a server per folder).
SCRIPT = ("import sys; sys.path[0] = {root!r}; sys.argv[0] = 'threadback'\n"
          "from tui.cli.entry import run\nraise SystemExit(run())")


def run(env: dict, *argv: str, stdin: str | None = None, cwd: Path = REPO, importtime: bool = False,
        root: Path = REPO):
    prefix = [sys.executable, *(["-X", "importtime"] if importtime else []), "-c", SCRIPT.format(root=str(root))]
    return subprocess.run([*prefix, *argv], input=stdin, capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=60)


def served_warm(proc: subprocess.CompletedProcess) -> bool:
    """Whether a run under ``-X importtime`` left the command to the server."""
    imported = [line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")]
    assert "tui.cli.warm.client" in imported, "not run with -X importtime"
    return not any(name.startswith("indexer") for name in imported)


def command_output(proc: subprocess.CompletedProcess) -> tuple[int, str, str]:
    stderr = "\n".join(line for line in proc.stderr.splitlines() if not line.startswith("import time:"))
    return proc.returncode, proc.stdout, stderr


def wait_for_server(folder: Path, present: bool = True, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if any(folder.glob("*.sock")) == present:
            return True
        time.sleep(0.05)
    return False


def started_server(env: dict, folder: Path) -> None:
    """A cold search starts the server; wait until it listens."""
    first = run(env, "search", "timeout")
    assert first.returncode == 0, first.stderr
    assert wait_for_server(folder), "no server was started"


@pytest.mark.parametrize("argv", [["search", "timeout"], ["search", "--json", "-n", "1", "timeout"],
                                  ["search", "資料庫"], ["search", "nothing-matches-this"],
                                  ["search", "-1", "websocket", "since:2026-01-01"]])
def test_the_server_prints_and_exits_as_a_cold_run(warm, argv):
    env, folder, _ = warm
    started_server(env, folder)
    cold = run({**env, "THREADBACK_WARM": "0"}, *argv, importtime=True)
    served = run(env, *argv, importtime=True)
    assert not served_warm(cold) and served_warm(served)
    assert command_output(served) == command_output(cold)


def test_a_hook_reads_its_event_from_the_callers_stdin(warm):
    env, folder, _ = warm
    started_server(env, folder)
    event = json.dumps(PROMPT)
    cold = run({**env, "THREADBACK_WARM": "0"}, "hook", "prompt", "--text", stdin=event, importtime=True)
    served = run(env, "hook", "prompt", "--text", stdin=event, importtime=True)
    assert served_warm(served)
    assert "s1" in served.stdout  # the reminder found the earlier session
    assert command_output(served) == command_output(cold)


def test_the_callers_folder_and_environment_are_used(warm, tmp_path):
    env, folder, db = warm
    started_server(env, folder)
    no_db_env = {k: v for k, v in env.items() if k != "THREADBACK_DB"}
    relative = run(no_db_env, "--db", db.name, "search", "-n", "1", "websocket", cwd=db.parent, importtime=True)
    assert served_warm(relative) and relative.returncode == 0 and "websocket" in relative.stdout
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    missing = run(no_db_env, "--db", db.name, "search", "websocket", cwd=elsewhere, importtime=True)
    cold = run({**no_db_env, "THREADBACK_WARM": "0"}, "--db", db.name, "search", "websocket", cwd=elsewhere)
    assert served_warm(missing)
    assert command_output(missing) == command_output(cold) and cold.returncode == 3  # no index there
    # the calling session (from the environment) is left out of its own search
    excluded = run({**env, "THREADBACK_SESSION_ID": "s1"}, "search", "websocket", importtime=True)
    assert served_warm(excluded) and excluded.returncode == 1 and "s1" not in excluded.stdout


def test_other_verbs_and_odd_lines_run_in_the_callers_process(warm):
    env, folder, _ = warm
    started_server(env, folder)
    for argv in (["sessions"], ["search", "--help"], ["search", "--json=1", "timeout"], ["rules", "list"]):
        proc = run(env, *argv, importtime=True)
        imported = [line for line in proc.stderr.splitlines() if line.startswith("import time:")]
        assert any("indexer" in line or "argparse" in line for line in imported), argv


def test_a_cold_hook_that_starts_the_server_does_not_hold_its_callers_pipes(warm):
    """An agent waits for a hook's stdout to close: the server must not inherit it."""
    env, folder, _ = warm
    env = {**env, "THREADBACK_WARM_IDLE": "10"}
    t = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", SCRIPT.format(root=str(REPO)), "hook", "prompt"],
                          input=json.dumps(PROMPT), capture_output=True, text=True, env=env, cwd=REPO, timeout=30)
    assert proc.returncode == 0 and time.monotonic() - t < 30
    assert wait_for_server(folder), "the hook started no server"


def test_a_changed_source_file_sends_callers_back_to_a_cold_run(warm, tmp_path):
    """After a reinstall or an edit the server answers no more and leaves."""
    env, folder, _ = warm
    copy = tmp_path / "src"
    copy.mkdir()
    for package in ("indexer", "tui"):
        subprocess.run(["cp", "-r", str(REPO / package), str(copy / package)], check=True)
    env = {**env, "PYTHONPATH": str(copy)}
    first = run(env, "search", "timeout", root=copy)
    assert first.returncode == 0 and wait_for_server(folder)
    assert served_warm(run(env, "search", "timeout", root=copy, importtime=True))
    source = copy / "indexer" / "search" / "fts.py"
    os.utime(source, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns + 10**9))
    after = run(env, "search", "timeout", root=copy, importtime=True)
    assert not served_warm(after) and after.returncode == 0 and "timeout" in after.stdout
    assert wait_for_server(folder, present=False), "the stale server kept its socket"


def test_an_idle_server_leaves(warm):
    env, folder, _ = warm
    env = {**env, "THREADBACK_WARM_IDLE": "1"}
    started = run(env, "search", "timeout")
    assert started.returncode == 0 and wait_for_server(folder)
    assert wait_for_server(folder, present=False, seconds=15), "the idle server did not leave"


def test_a_server_that_never_answers_costs_a_bounded_wait(warm):
    """A hung server (stopped, or stuck) holds a listening socket that never accepts: the caller
    waits at most a few seconds, then runs the command itself, once."""
    env, folder, _ = warm
    started_server(env, folder)
    sock_path = next(folder.glob("*.sock"))
    sock_path.unlink()  # the real server leaves at its next tick
    hung = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    hung.bind(str(sock_path))
    hung.listen(1)
    try:
        t = time.monotonic()
        proc = run(env, "search", "-n", "1", "websocket", importtime=True)
        assert proc.returncode == 0 and proc.stdout.count("websocket") == 1
        assert not served_warm(proc) and time.monotonic() - t < 20
    finally:
        hung.close()


@pytest.mark.parametrize("switch", ["environment", "config", "open folder"])
def test_switched_off_no_server_starts_and_commands_still_work(warm, switch):
    env, folder, _ = warm
    if switch == "environment":
        env = {**env, "THREADBACK_WARM": "0"}
    elif switch == "config":
        Path(env["THREADBACK_CONFIG"]).write_text("[cli]\nwarm = false\n", encoding="utf-8")
    else:
        folder.mkdir(mode=0o755)
        folder.chmod(0o755)  # others may enter: not a place for a socket
    for _ in range(2):
        proc = run(env, "search", "-n", "1", "websocket")
        assert proc.returncode == 0 and "websocket" in proc.stdout
    time.sleep(1)
    assert not list(folder.glob("*.sock"))


def test_a_runtime_folder_too_long_for_a_socket_is_not_used(tmp_path):
    """``sockaddr_un`` holds 108 bytes: a deep XDG_RUNTIME_DIR gives way to /tmp/threadback-<uid>."""
    from tui.cli.warm import place

    deep = tmp_path / ("d" * 90)
    deep.mkdir()
    folder = place.private_folder({"XDG_RUNTIME_DIR": str(deep)})
    assert folder == f"/tmp/threadback-{os.getuid()}"
    assert len(place.socket_path(folder, place.key()).encode()) < 104
    short = Path(tempfile.mkdtemp(prefix="tbw-", dir="/tmp"))
    try:
        assert place.private_folder({"XDG_RUNTIME_DIR": str(short)}) == str(short / "threadback")
    finally:
        shutil.rmtree(short)
