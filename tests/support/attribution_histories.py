"""Files with known histories for line attribution (``threadback blame``), and the scorer.

A history is made by playing random steps on a real file: agent sessions that create, edit,
re-edit, insert, delete, move and rewrite lines (Claude ``Write``/``Edit``/``MultiEdit``, Codex
``apply_patch`` hunks, shell here-documents), a person's edits in between that no log records,
and (when ``git``) real commits along the way with the times they happened. Every line carries
the label of the step that last changed it, reckoned as git's blame would if every step were a
commit (a line an edit or a rewrite kept as it was keeps its label; a line a session moved is
written where it lands; a line a person moved keeps its writer: its text is still theirs). The sessions' logs are written in the agents' own formats with one timestamp a
step, so a line's truth is (session id, time of the call).

``realistic=True`` (the bench and the floors in ``tests/test_blame.py``) plays what real logs
show (``/work/shared/corpus``): Claude calls name absolute paths and get a tool result (an
``is_error`` one when the person rejected the edit, its ``old_string`` was stale, or it repeated an
edit already made); Codex sends ``apply_patch`` as its own tool or as a here-document in a shell
call, hunks with three lines of context, and fails with "apply_patch verification failed";
either renames with ``sed -i 's/a/b/g' FILE`` or deletes lines with ``sed -i 'Nd'``; everyone
commits as the user (Claude's commits with its ``Co-Authored-By`` trailer), a person amends the
last commit, and the branch is rebased at the end onto teammates' commits made meanwhile (new
committer times, new parents, author times kept).
"""

from __future__ import annotations

import difflib
import json
import os
import random
import re
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

START = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc).timestamp()
USER = "Dana Reyes"  # agents commit as their user
CLAUDE_TRAILER = "\n\nCo-Authored-By: Claude <noreply@anthropic.com>"
FAILED_SHARE = 0.07  # of edit calls (3 of 45 Claude edits in the corpus failed)
SED_SHARE = 0.06
PERSON = ("person", 0.0)
COMMON = ["", "", "", "    return None", "    pass", "}", "        continue", "    return result", "else:"]
WORDS = ["total", "price", "order", "user", "cart", "item", "count", "rate", "tax", "limit", "name", "queue",
         "token", "retry", "cache", "path", "page", "row", "index", "value"]


@dataclass
class Call:
    ts: float
    tool: str
    args: dict | str
    output: str | None = None  # what the tool answered, where the log keeps it (a Read's text)
    failed: bool = False  # the call was refused (the log says so in its answer)


@dataclass
class SessionLog:
    sid: str
    agent: str  # claude-code or codex
    calls: list[Call] = field(default_factory=list)


@dataclass
class History:
    repo: Path
    file: Path
    logs: dict[str, Path]  # agent -> root
    truth: list[tuple[str, float]]  # per line: (session id, call time) or PERSON
    git: bool


class Player:
    """Plays the steps; ``lines`` and ``labels`` are the file as it stands."""

    def __init__(self, rng: random.Random, repo: Path, name: str, git: bool, realistic: bool = False):
        self.rng, self.repo, self.git, self.realistic = rng, repo, git, realistic
        self.commits = 0
        self.path = repo / name
        self.lines: list[str] = []
        self.labels: list[tuple[str, float]] = []
        self.t = START
        self.counter = 0
        self.sessions: list[SessionLog] = []

    # -- content -------------------------------------------------------------------
    def fresh_line(self) -> str:
        if self.rng.random() < 0.18:
            return self.rng.choice(COMMON)
        self.counter += 1
        a, b = self.rng.sample(WORDS, 2)
        indent = "    " * self.rng.randint(0, 2)
        return f"{indent}{a}_{self.counter} = compute_{b}({a}, {self.rng.randint(1, 99)})"

    def changed(self, line: str) -> str:
        if not line.strip() or "=" not in line:
            return self.fresh_line()
        return line.replace("(", f"(adjusted_{self.rng.randint(1, 999)}, ", 1)

    def tick(self) -> float:
        self.t += self.rng.randint(20, 90)
        return self.t

    # -- the file -----------------------------------------------------------------
    def set_lines(self, new: list[str], label: tuple[str, float]) -> None:
        """The file becomes ``new``: lines the diff keeps keep their labels."""
        labels: list[tuple[str, float]] = [label] * len(new)
        for block in difflib.SequenceMatcher(None, self.lines, new, autojunk=False).get_matching_blocks():
            for k in range(block.size):
                labels[block.b + k] = self.labels[block.a + k]
        self.lines, self.labels = new, labels
        self.path.write_text("".join(line + "\n" for line in new), encoding="utf-8")

    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    def _git(self, *args: str, when: float | None = None, author: str | None = None, cwd: Path | None = None) -> None:
        env = dict(os.environ)
        name = author or USER
        email = f"{name.split()[0].lower()}@example.com"
        env.update(GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email)
        if when is not None:
            env["GIT_COMMITTER_DATE"] = f"@{int(when)} +0000"
            if args[0] == "commit" and "--amend" not in args:
                env["GIT_AUTHOR_DATE"] = f"@{int(when)} +0000"
        subprocess.run(["git", *args], cwd=cwd or self.repo, check=True, env=env, capture_output=True)

    def commit(self, who: str, *, claude: bool = False) -> None:
        """A commit of the whole work tree (as ``git commit -am`` does)."""
        if not self.git:
            return
        when = self.tick()
        author = None if self.realistic else who
        self._git("add", "-A", when=when, author=author)
        if self.realistic and who == "person" and self.commits and self.rng.random() < 0.3:
            self._git("commit", "-q", "--amend", "--no-edit", "--allow-empty", when=when, author=author)
            return  # a person's fix folded into the last commit: its author time kept
        message = f"work by {who}" + (CLAUDE_TRAILER if claude else "")
        self._git("commit", "-q", "--allow-empty", "-m", message, when=when, author=author)
        self.commits += 1

    def start_branch(self) -> None:
        """The work happens on a branch off main, which holds a teammate's first commit."""
        if not (self.git and self.realistic):
            return
        (self.repo / "README.md").write_text("# shop\n", encoding="utf-8")
        self._git("add", "README.md", when=START - 3600)
        self._git("commit", "-q", "-m", "readme", when=START - 3600, author="Teammate")
        self._git("checkout", "-q", "-b", "feature")

    def rebase_onto_teammates(self) -> None:
        """Teammates pushed commits to main (another file) while the branch was worked on; the
        branch is rebased onto them now: new parents, new committer times, author times kept."""
        if not (self.git and self.realistic and self.commits):
            return
        other = self.repo.parent / (self.repo.name + "-main")
        self._git("worktree", "add", "-q", str(other), "main")
        times = sorted(self.rng.uniform(START, self.t) for _ in range(self.rng.randint(1, 3)))
        for k, when in enumerate(times):
            with open(other / "README.md", "a", encoding="utf-8") as f:
                f.write(f"note {k}\n")
            self._git("commit", "-q", "-am", f"teammate {k}", when=when, author="Teammate", cwd=other)
        self._git("worktree", "remove", "--force", str(other))
        self._git("rebase", "-q", "--autostash", "main", when=self.tick())


def unique_span(lines: list[str], a: int, b: int) -> tuple[int, int] | None:
    """Grow [a, b) by context until its text occurs once in the file (an Edit's rule)."""
    text = "".join(line + "\n" for line in lines)
    while True:
        old = "\n".join(lines[a:b])
        if old.strip() and text.count(old) == 1:
            return a, b
        if a == 0 and b == len(lines):
            return None
        a, b = max(0, a - 1), min(len(lines), b + 1)


class SessionSteps:
    """A session's steps on the file, as the agent's own tool calls."""

    def __init__(self, player: Player, log: SessionLog, relative: bool):
        self.p, self.log = player, log
        self.name = player.path.name if relative else str(player.path)

    def call(self, tool: str, args: dict | str, output: str | None = None) -> tuple[str, float]:
        ts = self.p.tick()
        self.log.calls.append(Call(ts, tool, args, output))
        return (self.log.sid, ts)

    def read(self) -> None:
        """Claude Code's Read of the whole file, as it answers (``     1→line``): it refuses to
        Write over a file the session has not read as it is now, so a Write comes after one."""
        numbered = "".join(f"{n:>6}→{line}\n" for n, line in enumerate(self.p.lines, 1))
        self.call("Read", {"file_path": self.name}, numbered)

    def create(self, n: int) -> None:
        new = [self.p.fresh_line() for _ in range(n)]
        text = "".join(line + "\n" for line in new)
        if self.log.agent == "codex":
            label = self.call("apply_patch", "*** Begin Patch\n*** Add File: " + self.name + "\n"
                              + "".join("+" + line + "\n" for line in new) + "*** End Patch")
        elif self.p.rng.random() < 0.3:
            label = self.call("Bash", {"command": f"cat > {self.name} <<'EOF'\n{text}EOF"})
        else:
            label = self.call("Write", {"file_path": self.name, "content": text})
        self.p.set_lines(new, label)

    def replace(self, a: int, b: int, new_part: list[str]) -> bool:
        """Lines [a, b) become ``new_part``, as an Edit (with context enough to be unique) or a hunk."""
        lines = self.p.lines
        span = unique_span(lines, max(0, a - 1), min(len(lines), b + 1))
        if span is None:
            return False
        s, e = span
        new = lines[:a] + new_part + lines[b:]
        after = lines[s:a] + new_part + lines[b:e]
        if self.log.agent == "codex":
            body = "".join(f"-{line}\n" for line in lines[s:e]) + "".join(f"+{line}\n" for line in after)
            label = self.call("apply_patch", f"*** Begin Patch\n*** Update File: {self.name}\n@@\n{body}*** End Patch")
        else:
            label = self.call("Edit", {"file_path": self.name, "old_string": "\n".join(lines[s:e]),
                                       "new_string": "\n".join(after)})
        self.p.set_lines(new, label)
        return True

    def edit_within_line(self, a: int) -> bool:
        """An Edit whose old_string is part of one line (Claude often does this)."""
        line = self.p.lines[a]
        if "(" not in line or self.log.agent == "codex":
            return False
        old = line.strip()[: line.strip().index("(") + 1]
        if self.p.text().count(old) != 1:
            return False
        new = old + f"scaled_{self.p.rng.randint(1, 999)}, "
        new_line = line.replace(old, new, 1)  # old occurs once in the file: the same change
        label = self.call("Edit", {"file_path": self.name, "old_string": old, "new_string": new})
        self.p.set_lines(self.p.lines[:a] + [new_line] + self.p.lines[a + 1:], label)
        return True

    def move(self, a: int, k: int, to: int) -> bool:
        lines = self.p.lines
        block = lines[a:a + k]
        rest = lines[:a] + lines[a + k:]
        to = min(to, len(rest))
        new = rest[:to] + block + rest[to:]
        if self.log.agent == "codex" or to == 0:
            return self.rewrite_to(new)
        first = unique_span(lines, a, a + k)
        anchor = unique_span(rest, to - 1, to)
        if first is None or anchor is None:
            return False
        s, e = first
        cut_old = "\n".join(lines[s:e])
        cut_new = "\n".join(lines[s:a] + lines[a + k:e])
        anchor_text = "\n".join(rest[anchor[0]:anchor[1]])
        if anchor[1] != to:
            return False
        label = self.call("MultiEdit", {"file_path": self.name, "edits": [
            {"old_string": cut_old, "new_string": cut_new},
            {"old_string": anchor_text, "new_string": anchor_text + "\n" + "\n".join(block)}]})
        after_cut = "\n".join(rest)
        if after_cut.count(anchor_text) != 1:
            self.log.calls.pop()
            return False
        self.p.set_lines(new, label)
        return True

    def rewrite_to(self, new: list[str]) -> bool:
        text = "".join(line + "\n" for line in new)
        if self.log.agent == "codex":
            diff = difflib.SequenceMatcher(None, self.p.lines, new, autojunk=False)
            body = []
            for op, a1, a2, b1, b2 in diff.get_opcodes():
                if op == "equal":
                    body += [f" {line}" for line in self.p.lines[a1:a2]]
                else:
                    body += [f"-{line}" for line in self.p.lines[a1:a2]] + [f"+{line}" for line in new[b1:b2]]
            label = self.call("apply_patch", f"*** Begin Patch\n*** Update File: {self.name}\n@@\n"
                              + "\n".join(body) + "\n*** End Patch")
        else:
            if self.p.lines:
                self.read()
            label = self.call("Write", {"file_path": self.name, "content": text})
        self.p.set_lines(new, label)
        return True


CLAUDE_REJECTED = ("The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file "
                   "edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to "
                   "tell you how to proceed.")


def _first_at(lines: list[str], wanted: list[str], start: int) -> int:
    for i in range(start, len(lines) - len(wanted) + 1):
        if lines[i:i + len(wanted)] == wanted:
            return i
    return -1


class RealSessionSteps(SessionSteps):
    """The calls as real logs have them: Claude names absolute paths; Codex sends patches with
    three lines of context (as its own tool or a here-document in a shell call) and renames with
    ``sed -i``; some calls fail and change nothing; every call gets its result."""

    def __init__(self, player: Player, log: SessionLog):
        super().__init__(player, log, relative=log.agent == "codex")
        self.shell_patches = player.rng.random() < 0.5  # older Codex: apply_patch inside ``shell``
        self.last_ok: Call | None = None

    def call(self, tool: str, args: dict | str, result: str = "", failed: bool = False) -> tuple[str, float]:
        ts = self.p.tick()
        self.log.calls.append(Call(ts, tool, args, result, failed))
        if not failed and tool in ("Edit", "apply_patch", "shell"):
            self.last_ok = self.log.calls[-1]
        return (self.log.sid, ts)

    def ok(self) -> str:
        if self.log.agent == "codex":
            return f"Exit code: 0\nWall time: 0.1 seconds\nOutput:\nSuccess. Updated the following files:\nM {self.name}\n"
        return f"The file {self.name} has been updated successfully."

    def shell(self, command: str) -> tuple[str, float]:
        if self.log.agent == "codex":
            return self.call("shell", {"command": ["bash", "-lc", command], "workdir": str(self.p.repo)})
        return self.call("Bash", {"command": command, "description": "Edit the file in place"})

    def patch(self, body: str, failed: bool = False) -> tuple[str, float]:
        text = f"*** Begin Patch\n*** Update File: {self.name}\n{body}\n*** End Patch"
        result = (f"apply_patch verification failed: Failed to find expected lines in {self.p.path}:\n{body[:200]}"
                  if failed else self.ok())
        if self.shell_patches:
            return self.call("shell", {"command": ["bash", "-lc", f"apply_patch <<'PATCH'\n{text}\nPATCH"],
                                       "workdir": str(self.p.repo)}, result, failed)
        return self.call("apply_patch", text, result, failed)

    def hunks(self, new: list[str]) -> str:
        """``new`` as Codex writes it: hunks with three lines of context, each found (as
        ``apply_patch`` finds it) at the first place after the previous one; one hunk holding the
        whole file where that would land elsewhere."""
        old = self.p.lines
        out, cursor = [], 0
        for group in difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(3):
            a1, a2 = group[0][1], group[-1][2]
            if a2 == a1 or _first_at(old, old[a1:a2], cursor) != a1:
                out = []
                break
            body = []
            for op, i1, i2, j1, j2 in group:
                if op == "equal":
                    body += [f" {line}" for line in old[i1:i2]]
                else:
                    body += [f"-{line}" for line in old[i1:i2]] + [f"+{line}" for line in new[j1:j2]]
            out.append("@@\n" + "\n".join(body))
            cursor = a2
        if not out:
            body = []
            for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
                if op == "equal":
                    body += [f" {line}" for line in old[i1:i2]]
                else:
                    body += [f"-{line}" for line in old[i1:i2]] + [f"+{line}" for line in new[j1:j2]]
            out = ["@@\n" + "\n".join(body)]
        return "\n".join(out)

    def create(self, n: int) -> None:
        if self.log.agent == "codex" and self.p.rng.random() < 0.7:
            new = [self.p.fresh_line() for _ in range(n)]
            label = self.call("apply_patch", "*** Begin Patch\n*** Add File: " + self.name + "\n"
                              + "".join("+" + line + "\n" for line in new) + "*** End Patch", self.ok())
            self.p.set_lines(new, label)
            return
        super().create(n)
        self.log.calls[-1].output = f"File created successfully at: {self.p.path}"

    def replace(self, a: int, b: int, new_part: list[str]) -> bool:
        if self.log.agent == "codex":
            new = self.p.lines[:a] + new_part + self.p.lines[b:]
            if new == self.p.lines:
                return False
            self.p.set_lines(new, self.patch(self.hunks(new)))
            return True
        done = super().replace(a, b, new_part)
        if done:
            self.log.calls[-1].output = self.ok()
        return done

    def edit_within_line(self, a: int) -> bool:
        done = super().edit_within_line(a)
        if done:
            self.log.calls[-1].output = self.ok()
        return done

    def move(self, a: int, k: int, to: int) -> bool:
        done = super().move(a, k, to)
        if done and self.log.agent != "codex":
            self.log.calls[-1].output = self.ok()
        return done

    def rewrite_to(self, new: list[str]) -> bool:
        if self.log.agent == "codex":
            if new == self.p.lines:
                return False
            self.p.set_lines(new, self.patch(self.hunks(new)))
            return True
        if self.p.lines:
            self.read()  # Claude Code refuses to write over a file the session has not read
        self.call("Write", {"file_path": self.name, "content": "".join(line + "\n" for line in new)},
                  f"The file {self.p.path} has been updated successfully.")
        self.p.set_lines(new, (self.log.sid, self.log.calls[-1].ts))
        return True

    def sed(self) -> bool:
        """A rename across the file (``sed -i 's/a/b/g'``), or a line deleted by number."""
        p, rng = self.p, self.p.rng
        if rng.random() < 0.35:
            a = rng.randrange(len(p.lines))
            p.set_lines(p.lines[:a] + p.lines[a + 1:], self.shell(f"sed -i '{a + 1}d' {self.name}"))
            return True
        names = sorted({w for line in p.lines for w in re.findall(r"\b[a-z]+_\d+\b", line)})
        if not names:
            return False
        old = rng.choice(names)
        p.counter += 1
        new_name = f"{old.split('_')[0]}_{p.counter}"
        new = [line.replace(old, new_name) for line in p.lines]
        p.set_lines(new, self.shell(f"sed -i 's/{old}/{new_name}/g' {self.name}"))
        return True

    def fail(self) -> None:
        """A call that changed nothing: an edit repeated after it was made, its old text stale,
        or (Claude) the person rejected it."""
        p, rng = self.p, self.p.rng
        last = self.last_ok
        if last is not None and rng.random() < 0.35 and self._no_longer_applies(last):
            self.call(last.tool, last.args, self.not_found(last.args), failed=True)
            return
        a = rng.randrange(len(p.lines))
        b = min(len(p.lines), a + rng.randint(1, 3))
        old = list(p.lines[a:b])
        new = [p.changed(line) for line in old] + [p.fresh_line()]
        rejected = self.log.agent != "codex" and rng.random() < 0.5
        if not rejected:  # written from a stale read of the file
            old[0] = p.changed(old[0]) if "=" in old[0] else old[0] + "  # stale"
        if self.log.agent == "codex":
            self.patch("@@\n" + "\n".join([f"-{line}" for line in old] + [f"+{line}" for line in new]), failed=True)
            return
        args = {"file_path": self.name, "old_string": "\n".join(old), "new_string": "\n".join(new)}
        self.call("Edit", args, CLAUDE_REJECTED if rejected else self.not_found(args), failed=True)

    def not_found(self, args: dict | str) -> str:
        if isinstance(args, dict) and "old_string" in args:
            return f"<tool_use_error>String to replace not found in file.\nString: {args['old_string']}</tool_use_error>"
        return f"apply_patch verification failed: Failed to find expected lines in {self.p.path}"

    def _no_longer_applies(self, call: Call) -> bool:
        from indexer.provenance.edits import changes_in_call

        text = self.p.text()
        for change in changes_in_call(call.tool, call.args, str(self.p.path), str(self.p.repo)):
            old = "\n".join(getattr(change, "old", ()))
            if not old or old in text:
                return False
        return True


def session_step(steps: SessionSteps) -> None:
    p, rng = steps.p, steps.p.rng
    n = len(p.lines)
    if n < 4:
        steps.create(rng.randint(8, 30))
        return
    if isinstance(steps, RealSessionSteps):
        if rng.random() < FAILED_SHARE:
            steps.fail()
        if rng.random() < SED_SHARE and steps.sed():
            return
    a = rng.randrange(n)
    kind = rng.choices(["edit", "insert", "delete", "within", "move", "rewrite"], [5, 4, 2, 2, 1, 1])[0]
    k = min(rng.randint(1, 3), n - a)
    if kind == "edit":
        steps.replace(a, a + k, [p.changed(line) for line in p.lines[a:a + k]] + [p.fresh_line() for _ in range(rng.randint(0, 1))])
    elif kind == "insert":
        steps.replace(a, a, [p.fresh_line() for _ in range(rng.randint(1, 5))])
    elif kind == "delete":
        steps.replace(a, a + k, [])
    elif kind == "within":
        steps.edit_within_line(a)
    elif kind == "move":
        steps.move(a, k, rng.randrange(n - k + 1))
    else:
        new = list(p.lines)
        for i in rng.sample(range(n), min(n, 3)):
            new[i] = p.changed(new[i])
        steps.rewrite_to(new)


def person_step(p: Player) -> None:
    """A person's edit in an editor: nothing in any log."""
    rng, n = p.rng, len(p.lines)
    if n < 3:
        return
    a = rng.randrange(n)
    kind = rng.choice(["edit", "insert", "delete", "move"])
    new = list(p.lines)
    if kind == "edit":
        new[a] = p.changed(new[a])
    elif kind == "insert":
        new[a:a] = [p.fresh_line() for _ in range(rng.randint(1, 3))]
    elif kind == "delete":
        del new[a:a + rng.randint(1, 2)]
    else:  # a move: the lines are still what their writer wrote, so they keep their labels
        labels = list(p.labels)
        block, block_labels = new[a:a + 2], labels[a:a + 2]
        del new[a:a + 2], labels[a:a + 2]
        to = rng.randrange(len(new) + 1)
        new[to:to], labels[to:to] = block, block_labels
        p.lines, p.labels = new, labels
        p.path.write_text(p.text(), encoding="utf-8")
        return
    p.set_lines(new, PERSON)


def play(base: Path, seed: int, *, git: bool, sessions: int = 4, steps: int = 6, realistic: bool = False) -> History:
    rng = random.Random(seed)
    repo = base / f"repo{seed}"
    repo.mkdir(parents=True)
    if git:
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    p = Player(rng, repo, rng.choice(["app.py", "cart.py", "orders.py"]), git, realistic)
    p.start_branch()
    if rng.random() < 0.5:  # a person's file the sessions then change
        p.set_lines([p.fresh_line() for _ in range(rng.randint(10, 40))], PERSON)
        p.commit("person")
    for s in range(sessions):
        agent = rng.choice(["claude-code", "codex"])
        log = SessionLog(f"{seed:04d}{s:04d}-0000-4000-8000-{seed:06d}{s:06d}", agent)
        p.sessions.append(log)
        stepper = RealSessionSteps(p, log) if realistic else SessionSteps(p, log, relative=rng.random() < 0.5)
        for _ in range(rng.randint(2, steps)):
            session_step(stepper)
            if rng.random() < 0.15:
                person_step(p)
            if rng.random() < 0.2:
                p.commit("agent", claude=agent == "claude-code")
        for _ in range(rng.randint(0, 3)):
            person_step(p)
        if rng.random() < 0.7:
            p.commit("person")
    if realistic and rng.random() < 0.5:
        p.rebase_onto_teammates()
    logs = write_logs(base / f"logs{seed}", p.sessions, str(repo))
    return History(repo, p.path, logs, list(p.labels), git)


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _codex_call(c: Call, call_id: str) -> list[dict]:
    """A Codex call and its output: ``apply_patch`` as its own (custom) tool, else ``shell``."""
    if c.tool == "apply_patch":
        records = [{"type": "custom_tool_call", "name": "apply_patch", "call_id": call_id, "input": c.args}]
        if c.output is not None:
            records.append({"type": "custom_tool_call_output", "call_id": call_id, "output": c.output})
    else:
        records = [{"type": "function_call", "name": c.tool, "arguments": json.dumps(c.args), "call_id": call_id}]
        if c.output is not None:
            output = {"output": c.output, "metadata": {"exit_code": 1 if c.failed else 0, "duration_seconds": 0.1}}
            records.append({"type": "function_call_output", "call_id": call_id, "output": json.dumps(output)})
    return [{"timestamp": _iso(c.ts + k), "type": "response_item", "payload": r} for k, r in enumerate(records)]


def write_logs(root: Path, sessions: list[SessionLog], cwd: str) -> dict[str, Path]:
    roots = {"claude-code": root / "claude", "codex": root / "codex"}
    for log in sessions:
        if not log.calls:
            continue
        first = log.calls[0].ts - 5
        if log.agent == "claude-code":
            records = [{"type": "user", "uuid": f"{log.sid}-u", "sessionId": log.sid, "cwd": cwd, "timestamp": _iso(first),
                        "message": {"role": "user", "content": "work on the file"}}]
            for i, c in enumerate(log.calls):
                records.append({"type": "assistant", "uuid": f"{log.sid}-{i}", "sessionId": log.sid, "cwd": cwd,
                                "parentUuid": records[-1]["uuid"],
                                "timestamp": _iso(c.ts), "message": {
                                    "id": f"msg_{log.sid}_{i}", "role": "assistant", "model": "claude-x",
                                    "content": [{"type": "tool_use", "id": f"toolu_{log.sid}_{i}", "name": c.tool, "input": c.args}]}})
                if c.output is not None:
                    records.append({"type": "user", "uuid": f"{log.sid}-{i}-r", "sessionId": log.sid, "cwd": cwd,
                                    "parentUuid": records[-1]["uuid"], "timestamp": _iso(c.ts + 0.2), "message": {
                                        "role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{log.sid}_{i}",
                                                                     "content": c.output, "is_error": c.failed}]}})
            path = roots["claude-code"] / ("-" + cwd.strip("/").replace("/", "-")) / f"{log.sid}.jsonl"
        else:
            records = [{"timestamp": _iso(first), "type": "session_meta", "payload": {"id": log.sid, "cwd": cwd}},
                       {"timestamp": _iso(first), "type": "response_item", "payload": {
                           "type": "message", "role": "user", "content": [{"type": "input_text", "text": "work on the file"}]}}]
            for i, c in enumerate(log.calls):
                records += _codex_call(c, f"call_{log.sid}_{i}")
            day = datetime.fromtimestamp(first, timezone.utc)
            path = roots["codex"] / day.strftime("%Y/%m/%d") / f"rollout-{day.strftime('%Y-%m-%dT%H-%M-%S')}-{log.sid}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return roots


@dataclass
class Score:
    session_lines: int = 0  # lines a session wrote (truth)
    right: int = 0  # of those, attributed to the call that wrote them
    missed: int = 0  # of those, attributed to nobody
    wrong: int = 0  # any line attributed for certain to a call that did not write it
    unsure_wrong: int = 0  # the same, among lines shown as "written or kept by" (not certain)
    lines: int = 0

    def add(self, other: "Score") -> None:
        for name in ("session_lines", "right", "missed", "wrong", "unsure_wrong", "lines"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def right_share(self) -> float:
        return self.right / self.session_lines if self.session_lines else 1.0

    @property
    def wrong_share(self) -> float:
        return self.wrong / self.lines if self.lines else 0.0


def score(history: History, attributed: list[tuple[str, float, bool] | None]) -> Score:
    """``attributed``: per line, (session id, call time, certain) or None."""
    s = Score(lines=len(history.truth))
    for truth, got in zip(history.truth, attributed):
        by_session = truth != PERSON
        s.session_lines += by_session
        if got is None:
            s.missed += by_session
        elif by_session and got[0] == truth[0] and abs(got[1] - truth[1]) < 0.5:
            s.right += 1
        elif got[2]:
            s.wrong += 1
        else:
            s.unsure_wrong += 1
    return s


def attributed_lines(blame) -> list[tuple[str, float, bool] | None]:
    """A ``Blame``'s answer in the scorer's terms."""
    return [(line.session.session_id, line.message.ts, line.certain) if line.session else None for line in blame.lines]
