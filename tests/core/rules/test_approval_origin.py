"""How an approval was made (indexer.rules.origin): read in real processes started the ways an
agent would reach for a terminal of its own, and its steps on process chains written out."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from indexer.rules import origin

PRINT_ORIGIN = "import json; from indexer.rules.origin import approval_origin; print(json.dumps(approval_origin()))"


def origin_of(command: list[str], env: dict[str, str]) -> dict:
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def plain_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("TMUX", "STY")}


def test_a_process_without_a_terminal_is_detached():
    record = origin_of([sys.executable, "-c", PRINT_ORIGIN], {**plain_env(), "TMUX": ""})
    assert record["controlling_terminal"] is False or record["terminal"] is None
    assert record["multiplexer"] is None
    assert record["chain"] and record["chain"][0]  # its parent, at least, by name
    if not record["controlling_terminal"]:
        assert record["detached"] is True and record["summary"] == "detached: no controlling terminal"


def test_the_environment_names_a_multiplexer_the_chain_does_not_show():
    assert origin_of([sys.executable, "-c", PRINT_ORIGIN], {**plain_env(), "TMUX": "/tmp/tmux-1/default,1,0"}
                     )["multiplexer"] == "tmux"
    assert origin_of([sys.executable, "-c", PRINT_ORIGIN], {**plain_env(), "STY": "123.pts-0.host"}
                     )["multiplexer"] == "screen"


@pytest.mark.skipif(shutil.which("script") is None, reason="util-linux `script` is not installed")
def test_a_pty_made_by_script_is_named_and_detached():
    """`script` gives the command a terminal nobody sees: a controlling terminal, so only the
    chain tells (the way an agent would get past "no controlling terminal")."""
    command = f"{sys.executable} -c '{PRINT_ORIGIN}'"
    done = subprocess.run(["script", "-qec", command, "/dev/null"], capture_output=True, text=True, timeout=60,
                          env=plain_env(), stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    record = json.loads(done.stdout.strip().splitlines()[-1])
    assert record["controlling_terminal"] is True
    assert record["pty_wrapper"] == "script"
    assert record["detached"] is True and "`script`" in record["summary"]


def test_the_nearest_multiplexer_wrapper_and_login_are_named():
    names = ["bash", "script", "tmux", "sshd", "screen", "systemd"]
    assert origin._multiplexer(names, {}) == "tmux"
    assert origin._first_of(names, origin.PTY_WRAPPERS) == "script"
    assert origin._first_of(names, origin.LOGIN_PROGRAMS) == "sshd"
    assert origin._multiplexer(["bash", "sshd"], {"STY": "1.x"}) == "screen"
    assert origin._multiplexer(["bash", "sshd"], {"TMUX": "t", "STY": "1.x"}) == "tmux"
    assert origin._multiplexer(["bash", "sshd"], {"TMUX": "", "STY": ""}) is None


def test_leaving_the_tree_counts_only_before_a_login_program():
    def chain(*links: tuple[str, int | None]) -> tuple[list[tuple[int, str, int | None]], list[str]]:
        return [(100 + i, name, ppid) for i, (name, ppid) in enumerate(links)], [name for name, _ in links]

    # setsid -f / a double fork: an ancestor adopted by init before any login program
    assert origin._left_parent(*chain(("bash", 1), ("sshd", 50))) is True
    # the same below the person's login is their own terminal's shell
    assert origin._left_parent(*chain(("bash", 70), ("sshd", 1))) is False
    # init itself (or systemd, launchd) as the parent of a login chain is normal
    assert origin._left_parent(*chain(("bash", 70), ("systemd", 1))) is False
    # a parent that could not be read is not taken for init
    assert origin._left_parent(*chain(("bash", None), ("python", 60))) is False
