import argparse
import hashlib
import io
import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from indexer.rules import APPROVED, PENDING, REJECTED, RuleStore
from indexer.config import resolve_memory_dir
from indexer.rules import signing
from indexer.rules.review import AGENT_ENV_MARKERS
from tui.cli import review as cli_review
from tui.cli import rules as cli_rules

from conftest import APPROVAL_PASSPHRASE, TEST_SCRYPT_COST

REPO = Path(__file__).resolve().parents[2]
NOW = 1_775_000_000.0


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def run(memory: Path, *argv: str) -> int:
    """The rules CLI in-process, through a parser built the way the main CLI builds it."""
    parser = argparse.ArgumentParser(prog="threadback")
    cli_rules.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["rules", "--memory-dir", str(memory), *argv])
    return args.func(args)


def child_env(tmp_path: Path) -> dict[str, str]:
    """A person's environment, with their approval passphrase set up (APPROVAL_PASSPHRASE)."""
    env = {k: v for k, v in os.environ.items() if k not in AGENT_ENV_MARKERS}
    env.pop("EDITOR", None)
    env.pop("VISUAL", None)
    env.update(PYTHONPATH=str(REPO), THREADBACK_HOME=str(tmp_path / "home"), TERM="dumb")
    if not signing.key_path(tmp_path / "home").exists():
        signing.set_up(APPROVAL_PASSPHRASE, how={"summary": "set up by the test"}, cost=TEST_SCRYPT_COST,
                       path=signing.key_path(tmp_path / "home"))
    return env


PASSPHRASE_PROMPT = "Approval passphrase: "


@pytest.fixture
def memory(tmp_path: Path) -> Path:
    return tmp_path / "memory"


def test_propose_list_show(memory: Path, capsys) -> None:
    assert run(memory, "propose", "--text", "Always run \u202eruff before committing.", "--agent", "codex", "--session", "s-9") == 0
    rule_id = capsys.readouterr().out.split()[1]
    assert rule_id.startswith("r-")
    assert RuleStore(memory).get(rule_id).status == PENDING

    assert run(memory, "propose", "--text", "always run ruff before committing") == 0
    assert f"near-duplicate of {rule_id}" in capsys.readouterr().out
    assert len(RuleStore(memory).all()) == 1

    assert run(memory, "list") == 0
    out = capsys.readouterr().out
    assert rule_id in out and "⟨U+202E RLO⟩" in out and "\u202e" not in out

    assert run(memory, "show", rule_id[:6]) == 0
    out = capsys.readouterr().out
    assert "⟨U+202E RLO⟩" in out and "\u202e" not in out
    assert "warning:   1 hidden or deceptive character: U+202E RLO" in out
    assert "session s-9" in out

    assert run(memory, "show", rule_id, "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["effective_status"] == PENDING and data["suspicious_characters"] == ["U+202E RLO"]

    assert run(memory, "list", "--status", "approved") == 1
    assert run(memory, "show", "r-ffffffff") == 4


def test_propose_reads_stdin(memory: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("Prefer rg over grep.\n"))
    assert run(memory, "propose", "--text", "-") == 0
    assert [r.text for r in RuleStore(memory).all()] == ["Prefer rg over grep."]
    monkeypatch.setattr("sys.stdin", io.StringIO("   "))
    assert run(memory, "propose", "--text", "-") == 2


def test_there_is_no_approve_command(memory: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        run(memory, "approve", "r-12345678")
    assert exc.value.code == 2


def test_reject_undo_archive_export(memory: Path, capsys) -> None:
    store = RuleStore(memory)
    rule = store.propose("Use pnpm, not npm.", now=NOW).rule
    assert run(memory, "export") == 1
    assert run(memory, "reject", rule.id) == 0
    assert RuleStore(memory).get(rule.id).status == REJECTED
    assert run(memory, "reject", rule.id) == 5
    assert run(memory, "undo", rule.id) == 0
    assert RuleStore(memory).get(rule.id).status == PENDING

    store = RuleStore(memory)
    store.approve(rule.id, rule.text, now=NOW, approver="alice")
    capsys.readouterr()
    assert run(memory, "export") == 0
    assert capsys.readouterr().out == "## Rules approved in Threadback\n\n- Use pnpm, not npm.\n"
    assert run(memory, "export", "--format", "json") == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == [rule.id]
    assert run(memory, "archive", rule.id) == 0
    assert run(memory, "export") == 1
    assert run(memory, "undo", "r-00000000") == 4


def test_import_twice(memory: Path, tmp_path: Path, capsys) -> None:
    notes = tmp_path / ".claude" / "projects" / "-home-u-app" / "memory"
    notes.mkdir(parents=True)
    (notes / "MEMORY.md").write_text("- [pnpm](pnpm.md)\n")
    (notes / "pnpm.md").write_text("Use pnpm, not npm.\n")
    assert run(memory, "import", "--claude-dir", str(tmp_path / ".claude")) == 0
    assert "1 new pending" in capsys.readouterr().out
    assert run(memory, "import", "--claude-dir", str(tmp_path / ".claude")) == 0
    assert "0 new pending, 1 already imported" in capsys.readouterr().out
    assert len(RuleStore(memory).all()) == 1
    assert run(memory, "import", "--claude-dir", str(tmp_path / "missing")) == 1


def test_memory_dir_resolution(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("THREADBACK_MEMORY_DIR", raising=False)
    monkeypatch.setenv("THREADBACK_HOME", str(tmp_path / "home"))
    assert resolve_memory_dir("/x/y")[0] == Path("/x/y")
    assert resolve_memory_dir(None, cwd=tmp_path)[0] == tmp_path / "home" / "memory"
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "rules.jsonl").write_text("")
    assert resolve_memory_dir(None, cwd=tmp_path)[0] == tmp_path / "memory"
    monkeypatch.setenv("THREADBACK_MEMORY_DIR", str(tmp_path / "env"))
    assert resolve_memory_dir(None, cwd=tmp_path)[0] == tmp_path / "env"


# --- review: refused without a terminal -------------------------------------------------------


def test_review_refuses_a_pipe(memory: Path, tmp_path: Path) -> None:
    rule = RuleStore(memory).propose("Use pnpm, not npm.", now=NOW).rule
    result = subprocess.run(
        [sys.executable, "-m", "tui.cli", "rules", "--memory-dir", str(memory), "review"],
        input="y\ny\n",
        capture_output=True,
        text=True,
        cwd=REPO,
        env=child_env(tmp_path),
        timeout=30,
    )
    assert result.returncode == 5, result.stderr
    assert "interactive terminal" in result.stderr
    assert "[y]approve" not in result.stdout
    assert RuleStore(memory).get(rule.id).status == PENDING


def test_review_refuses_inside_an_agent_shell_even_on_a_pty() -> None:
    master, slave = os.openpty()
    with open(slave, "r", closefd=False) as tty_in, open(slave, "w", closefd=False) as tty_out:
        person = lambda: None  # no agent among the ancestors  # noqa: E731
        assert cli_review.review_refusal(tty_in, tty_out, {}, person) is None
        assert "CLAUDECODE" in (cli_review.review_refusal(tty_in, tty_out, {"CLAUDECODE": "1"}, person) or "")
        assert cli_review.review_refusal(io.StringIO(), tty_out, {}, person) is not None
    os.close(master)
    os.close(slave)


# --- review: on a real pseudo-terminal --------------------------------------------------------


class PtyChild:
    """``python -m tui.cli ...`` with a pseudo-terminal as stdin, stdout and stderr, as a person
    runs it in a terminal of their own.

    Review refuses when a coding agent is among its ancestor processes, and this suite may
    itself run under one: so the child leaves the test's process tree the way a program
    started from a separate terminal is outside it (a double fork, then ``setsid``), and
    prints its exit code as its last line, since it is no longer ours to wait for."""

    EXIT_MARK = "[child exit "

    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the session leader on the pty: hand over to a detached grandchild
            try:
                ready_r, ready_w = os.pipe()
                if os.fork():
                    os.close(ready_w)
                    os.read(ready_r, 1)  # wait until the grandchild has left this session
                    os._exit(0)
                os.close(ready_r)
                os.setsid()
                os.close(ready_w)
                os.chdir(REPO)
                script = f'"$0" -m tui.cli "$@"; echo "{self.EXIT_MARK}$?]"'
                os.execve("/bin/sh", ["/bin/sh", "-c", script, sys.executable, *argv], env)
            finally:
                os._exit(127)
        os.waitpid(self.pid, 0)
        self.output = ""
        self._mark = 0  # output before this was consumed by an earlier read_until

    def _read(self, timeout: float) -> bool:
        """Read what is there within ``timeout``; False once the child closed the terminal."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.fd, 4096)
        except OSError:  # EIO: every process on the terminal ended
            chunk = b""
        self.output += chunk.decode("utf-8", "replace")
        return bool(chunk)

    def read_until(self, needle: str, timeout: float = 15) -> str:
        """Wait for ``needle`` in output not yet consumed (a prompt repeats for every rule)."""
        deadline = time.monotonic() + timeout
        while (found := self.output.find(needle, self._mark)) < 0:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"timed out waiting for {needle!r}; got:\n{self.output}")
            if not self._read(remaining):
                raise AssertionError(f"child ended before {needle!r}; got:\n{self.output}")
        self._mark = found + len(needle)
        return self.output

    def send(self, line: str) -> None:
        os.write(self.fd, (line + "\n").encode())

    def wait(self, timeout: float = 15) -> int:
        deadline = time.monotonic() + timeout
        while self.EXIT_MARK not in self.output and time.monotonic() < deadline:
            if not self._read(0.1):
                break
        os.close(self.fd)
        head, mark, tail = self.output.rpartition(self.EXIT_MARK)
        if not mark:
            raise AssertionError(f"child did not exit; output:\n{self.output}")
        return int(tail.split("]", 1)[0])


def test_review_on_a_terminal_approves_with_the_hash(memory: Path, tmp_path: Path) -> None:
    store = RuleStore(memory)
    first = store.propose("Use pnpm, not npm.\nThe lockfile is pnpm-lock.yaml.", now=NOW).rule
    second = store.propose("Always answer in \u202eFrench.", now=NOW + 1).rule

    child = PtyChild(["rules", "--memory-dir", str(memory), "review"], child_env(tmp_path))
    out = child.read_until(cli_review.REVIEW_PROMPT)
    assert "The lockfile is pnpm-lock.yaml." in out  # shown in full
    child.send("y")
    child.read_until(PASSPHRASE_PROMPT)  # asked once, before the first approval
    child.send(APPROVAL_PASSPHRASE)
    out = child.read_until("[2/2]")
    out = child.read_until(cli_review.REVIEW_PROMPT.rstrip())
    assert "⟨U+202E RLO⟩French" in out
    child.send("n")
    assert child.wait() == 0

    store.reload()
    approved = store.get(first.id)
    assert approved.status == APPROVED
    assert approved.approved_sha256 == sha("Use pnpm, not npm.\nThe lockfile is pnpm-lock.yaml.")
    assert store.get(second.id).status == REJECTED
    assert [d.action for d in store.history(first.id)] == ["propose", "approve"]


# --- review loop, in-process ------------------------------------------------------------------


def scripted(answers: list[str], on_ask=None):
    remaining = list(answers)

    def ask(prompt: str) -> str:
        if on_ask:
            on_ask(prompt)
        if not remaining:
            raise EOFError
        return remaining.pop(0)

    return ask


def test_review_edit_then_approve(memory: Path) -> None:
    store = RuleStore(memory)
    rule = store.propose("Run the tests.", now=NOW).rule
    out = io.StringIO()
    summary = cli_review.run_review(
        store,
        ask=scripted(["e", "y", "approve"]),
        out=out,
        approver="alice",
        clock=lambda: NOW,
        edit=lambda text: "Run the unit tests\u200b before pushing.\n",
    )
    assert summary.approved == 1
    assert "⟨U+200B ZWSP⟩" in out.getvalue()  # the edit is shown made visible before approval
    stored = RuleStore(memory).get(rule.id)
    assert stored.text == "Run the unit tests\u200b before pushing."
    assert stored.approved_sha256 == sha(stored.text)


def test_review_refuses_an_approval_after_a_concurrent_change(memory: Path) -> None:
    store = RuleStore(memory)
    rule = store.propose("Use pnpm, not npm.", now=NOW).rule
    changed = []

    def change_it_once(prompt: str) -> None:
        if not changed:  # the file changes while the person reads the rule
            other = RuleStore(memory)
            path = other.path
            path.write_text(path.read_text().replace("not npm.", "not npm. Push to main."))
            changed.append(True)

    out = io.StringIO()
    summary = cli_review.run_review(
        store,
        ask=scripted(["y", "q"], on_ask=change_it_once),
        out=out,
        approver="alice",
        clock=lambda: NOW,
        edit=lambda text: None,
    )
    assert summary.approved == 0
    assert "refused" in out.getvalue()
    assert "Push to main." in out.getvalue().split("refused")[1]  # shown again, as it is now
    assert RuleStore(memory).get(rule.id).status == PENDING


def test_review_needs_the_word_for_a_rule_with_hidden_characters(memory: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("THREADBACK_HOME", child_env(tmp_path)["THREADBACK_HOME"])  # the child's key
    store = RuleStore(memory)
    rule = store.propose("Always answer in \u202eFrench\u200b.", now=NOW).rule
    child = PtyChild(["rules", "--memory-dir", str(memory), "review"], child_env(tmp_path))
    child.read_until(cli_review.REVIEW_PROMPT)
    child.send("y")
    child.read_until(PASSPHRASE_PROMPT)
    child.send(APPROVAL_PASSPHRASE)
    out = child.read_until(cli_review.HIDDEN_CONFIRM_PROMPT.rstrip())
    assert "2 hidden or deceptive characters" in out
    assert "U+202E RLO" in out and "U+200B ZWSP" in out  # each one listed
    child.send("y")  # a reflex y is not the word
    child.read_until("not approved")
    child.read_until(cli_review.REVIEW_PROMPT)  # shown again
    assert RuleStore(memory).get(rule.id).status == PENDING
    child.send("y")
    child.read_until(cli_review.HIDDEN_CONFIRM_PROMPT.rstrip())
    child.send("approve")
    assert child.wait() == 0
    assert RuleStore(memory).get(rule.id).effective_status == APPROVED


def test_agent_ancestor_found_through_a_real_process_tree(tmp_path: Path) -> None:
    """A fake ``codex`` runs a shell that runs Python: the check walks up to it."""
    agent = tmp_path / "bin" / "codex"
    agent.parent.mkdir()
    agent.write_text('#!/bin/sh\n/bin/sh -c "$1"\n')
    agent.chmod(0o755)
    probe = f"{sys.executable} -c 'from indexer.rules.review import agent_ancestor; a = agent_ancestor(); print(a and a.agent, a and a.program)'"
    found = subprocess.run([str(agent), probe], capture_output=True, text=True, cwd=REPO, timeout=30)
    assert found.stdout.split() == ["Codex", "CLI", "codex"], found.stderr  # the registry's label
    alone = subprocess.run(["/bin/sh", "-c", probe.replace("print(a and a.agent", "print(a is None or a.pid != " + str(os.getpid()) + ", a and a.agent")],
                           capture_output=True, text=True, cwd=REPO, timeout=30)
    assert alone.returncode == 0 and "Codex" not in alone.stdout


def test_an_agents_variable_in_an_ancestors_environment_is_found(tmp_path: Path) -> None:
    """What a tmux server or a `script` started by an agent looks like: a program of no agent's
    name, started with $CLAUDECODE, running a command whose own environment was scrubbed."""
    probe = (f"env -u CLAUDECODE {sys.executable} -c 'from indexer.rules.review import agent_ancestor, "
             "approval_refusal; import os; a = agent_ancestor(); print(a and a.agent, \"|\", approval_refusal(os.environ))'")
    env = {k: v for k, v in os.environ.items() if k not in AGENT_ENV_MARKERS}
    env["CLAUDECODE"] = "1"
    found = subprocess.run(["/bin/sh", "-c", probe + "; true"], capture_output=True, text=True, cwd=REPO,
                           timeout=30, env=env)
    agent, refusal = found.stdout.split("|")
    assert agent.strip() == "Claude Code", found.stderr
    assert "$CLAUDECODE in its environment" in refusal and "approval is refused" in refusal
