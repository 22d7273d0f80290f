"""Claude Code: ``~/.claude/projects/<slug>/<sessionId>.jsonl``, both subagent layouts and
workflow agents. The conversation records (user, assistant, system) are read in
``claude_code_turns``; this module finds the files, names their sessions and reads the
bookkeeping records that carry titles, moves, PR links and queued prompts."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from indexer.models import SUMMARY, TEXT, TOOL_CALL
from indexer.sources import claude_code_turns as turns
from indexer.sources.claude_code_rewind import RewindTree
from indexer.sources.base import (
    TEXT_LIMIT,
    TITLE_AI,
    TITLE_NAMED,
    TITLE_SUMMARY,
    ParseOutput,
    ParsedMessage,
    SessionMeta,
    clip_tool_output,
    cut_middle,
    dedup_key,
    digest,
    flatten_content,
    iter_json_lines,
    name_message,
    parse_iso,
    strip_binary,
)
from indexer.sources.claude_code_turns import AGENT, ClaudeReader
from indexer.sources.fields import as_dict, as_int, as_str, scalar_text

# Files beside transcripts that are not transcripts (a workflow run's journal).
NOT_TRANSCRIPTS = frozenset({"journal.jsonl"})
_SLUG_CHARS = re.compile(r"[^A-Za-z0-9]")
_MAX_WORKTREE_NAMES = 20
QUEUED_MARK = "typed while the agent worked"


def default_roots() -> list[Path]:
    base = os.environ.get("CLAUDE_CONFIG_DIR") or str(Path.home() / ".claude")
    return [Path(base).expanduser() / "projects"]


def is_log_file(name: str) -> bool:
    """By file name alone: the scan calls this for every file. Memory notes (*.md) are not logs."""
    return name.endswith(".jsonl") and name not in NOT_TRANSCRIPTS


def session_identity(path: Path) -> tuple[str, str | None]:
    """(session id, parent session id) from where the file sits.

    A subagent lives under its parent's folder: ``<session>/subagents/agent-<id>.jsonl``, or
    for a workflow agent ``<session>/subagents/workflows/<run>/agent-<id>.jsonl``. The parent is
    the folder before ``subagents`` (the records' ``sessionId`` is ``<uuid>#agent-…`` there,
    which names no session). Flat ``agent-<hex>.jsonl`` files learn their parent from records.
    """
    stem, parts = path.stem, path.parts
    if stem.startswith("agent-"):
        for i in range(len(parts) - 2, max(0, len(parts) - 5), -1):
            if parts[i] == "subagents" and i > 0:
                return stem, parts[i - 1]
    return stem, None


def claude_slug(cwd: str) -> str:
    """The project folder name Claude Code gives a working directory."""
    return _SLUG_CHARS.sub("-", cwd)


def init_meta(path: Path, meta: SessionMeta) -> None:
    session_id, parent = session_identity(path)
    meta.session_id = session_id
    if parent:
        meta.parent_session_id = parent
        sidecar = path.with_name(path.stem + ".meta.json")
        try:
            info = as_dict(json.loads(sidecar.read_text(encoding="utf-8")))
        except (OSError, ValueError, RecursionError):
            info = {}
        label = ": ".join(text for k in ("agentType", "description") if (text := scalar_text(info.get(k))))
        meta.offer_title(label, TITLE_AI)


def parse(path: Path, data: bytes, first_line_no: int, state: dict, meta: SessionMeta) -> ParseOutput:
    """Parse complete lines ``data`` (starting at ``first_line_no``) of one Claude Code file."""
    out = ParseOutput()
    if meta.session_id is None:
        init_meta(path, meta)
    reader = ClaudeReader(path, out, meta, state, appending=first_line_no > 1)
    tree = RewindTree() if first_line_no == 1 else None  # a rewind is seen only in a whole read
    for line_no, rec in iter_json_lines(data, out, first_line_no):
        if not isinstance(rec, dict):
            continue
        if tree is not None:
            tree.link(rec)
        rtype = rec.get("type")
        if rtype in ("user", "assistant", "system"):
            turns.learn_envelope(rec, meta, path)
        read = _READERS.get(rtype) if isinstance(rtype, str) else None
        if read is not None:
            read(reader, rec, line_no)
        # Everything else is bookkeeping (snapshots, progress...): skipped.
    reader.finish()
    if tree is not None:
        tree.mark(reader.messages_by_uuid)
    return out


def _summary(reader: ClaudeReader, rec: dict, line_no: int) -> None:
    # Some versions carry the summary in ``message.content`` rather than ``summary``.
    text = scalar_text(rec.get("summary")) or flatten_content(as_dict(rec.get("message")).get("content"), images=False)
    if not text.strip():
        return
    reader.meta.offer_title(text, TITLE_SUMMARY)
    key = dedup_key(AGENT, "summary", reader.meta.session_id, as_str(rec.get("leafUuid")), digest(text))
    reader.add(rec, ParsedMessage("system", SUMMARY, text, key, ts=parse_iso(rec.get("timestamp"))))


def _ai_title(reader: ClaudeReader, rec: dict, line_no: int) -> None:
    title = as_str(rec.get("aiTitle")) or as_str(rec.get("title"))
    reader.meta.offer_title(title, TITLE_AI, latest_wins=True)


def _agent_name(reader: ClaudeReader, rec: dict, line_no: int) -> None:
    reader.meta.offer_title(as_str(rec.get("agentName")), TITLE_AI, latest_wins=True)


def _custom_title(reader: ClaudeReader, rec: dict, line_no: int) -> None:
    """The user's ``/rename``. Newer versions also stamp a worktree's own name here when a
    session enters it: that one is no rename, so it ranks as a generated title."""
    title = as_str(rec.get("customTitle"))
    auto = title in reader.state.get("worktree_names", ())
    reader.meta.offer_title(title, TITLE_AI if auto else TITLE_NAMED, latest_wins=True)
    # Searchable either way: a worktree's name is a name the person chose too.
    named = name_message(AGENT, reader.meta.session_id, title, parse_iso(rec.get("timestamp")))
    if named is not None:
        reader.add(rec, named)


def _relocated(reader: ClaudeReader, rec: dict, line_no: int) -> None:
    """The session moved (a worktree's log taken back to its repository): resume from there."""
    cwd = as_str(rec.get("relocatedCwd"))
    if cwd:
        reader.meta.resume_cwd = cwd
        reader.state["relocated"] = True


def _worktree_state(reader: ClaudeReader, rec: dict, line_no: int) -> None:
    """The session entered (or, with a null payload, left) a worktree. ``claude --resume``
    finds a log by the folder it sits in, so the resume folder is the one whose slug names it."""
    worktree = as_dict(rec.get("worktreeSession"))
    name = as_str(worktree.get("worktreeName"))
    names: list = reader.state.setdefault("worktree_names", [])
    if name and name not in names:
        names.append(name)
        del names[:-_MAX_WORKTREE_NAMES]
    folder = reader.path.parent.name
    meta = reader.meta
    if reader.state.get("relocated") or meta.parent_session_id or claude_slug(meta.project_path or "") == folder:
        return
    for key in ("worktreePath", "originalCwd"):
        cwd = as_str(worktree.get(key))
        if cwd and claude_slug(cwd) == folder:
            meta.resume_cwd = cwd
            return


def _pr_link(reader: ClaudeReader, rec: dict, line_no: int) -> None:
    url = as_str(rec.get("prUrl"))
    number = as_int(rec.get("prNumber"))
    repo = as_str(rec.get("prRepository"))
    if not url and number is None:
        return
    label = f"PR #{number}" if number is not None else "PR"
    text = " ".join(part for part in (f"[{label}]", repo, url) if part)
    key = dedup_key(AGENT, reader.meta.session_id, "pr-link", url, number)
    reader.add(rec, ParsedMessage("system", TEXT, text, key, ts=parse_iso(rec.get("timestamp")), mark="pull request"))


def _attachment(reader: ClaudeReader, rec: dict, line_no: int) -> None:
    """A ``queued_command`` attachment is a prompt typed while a tool ran: user input."""
    attachment = as_dict(rec.get("attachment"))
    if attachment.get("type") != "queued_command":
        return  # file contents, reminders, hook output: the agent's context, not the user's words
    text = strip_binary(flatten_content(attachment.get("prompt")))
    if not text.strip():
        return
    ts = parse_iso(rec.get("timestamp"))
    key = dedup_key(AGENT, as_str(rec.get("uuid")) or f"{reader.meta.session_id}:line{line_no}", "queued")
    mode = as_str(attachment.get("commandMode")) or "prompt"
    if mode == "bash":
        message = ParsedMessage("user", TOOL_CALL, f"[Bash] {text.strip()}", key, tool_name="Bash", ts=ts,
                                mark=QUEUED_MARK)
    elif mode == "prompt":
        typed = flatten_content(attachment.get("prompt"), images=False)
        if not rec.get("isSidechain") or reader.meta.parent_session_id:
            reader.meta.offer_prompt_title(typed)
        message = ParsedMessage("user", TEXT, cut_middle(text, TEXT_LIMIT // 2, TEXT_LIMIT // 2), key, ts=ts,
                                mark=QUEUED_MARK)
    else:  # a task notification or another message the harness queued, not the human
        message = ParsedMessage("meta", TEXT, clip_tool_output(text), key, ts=ts, indexed=False,
                                mark="queued by the agent")
    reader.add(rec, message)


QUEUE_KEPT_MARK = "queued, never sent"
_MAX_QUEUED = 64


def _queue_operation(reader: ClaudeReader, rec: dict, line_no: int) -> None:
    """A prompt typed while the agent worked waits in a queue: ``enqueue`` (its text), then
    ``dequeue`` (sent: the user record that follows carries it). Text taken off the queue unsent
    (``remove``, ``popAll``) exists nowhere else: kept as the person's words, marked."""
    queued: list = reader.state.setdefault("queued", [])
    operation = as_str(rec.get("operation"))
    if operation == "enqueue":
        text = strip_binary(flatten_content(rec.get("content"), images=False))
        if text.strip():
            queued.append([text, as_str(rec.get("timestamp")), line_no])
            del queued[:-_MAX_QUEUED]
    elif operation == "dequeue" and queued:
        queued.pop(0)
    elif operation in ("remove", "popAll"):
        taken = queued[:] if operation == "popAll" else queued[:1]
        del queued[: len(taken)]
        for text, ts, at in taken:
            key = dedup_key(AGENT, reader.meta.session_id, "queued", at, digest(text))
            reader.add(rec, ParsedMessage("user", TEXT, cut_middle(text, TEXT_LIMIT // 2, TEXT_LIMIT // 2), key,
                                          ts=parse_iso(ts), mark=QUEUE_KEPT_MARK))


_READERS = {
    "user": turns.user,
    "assistant": turns.assistant,
    "system": turns.system,
    "summary": _summary,
    "ai-title": _ai_title,
    "agent-name": _agent_name,
    "custom-title": _custom_title,
    "relocated": _relocated,
    "worktree-state": _worktree_state,
    "pr-link": _pr_link,
    "attachment": _attachment,
    "queue-operation": _queue_operation,
}
