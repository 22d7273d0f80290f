"""Write the labelled recall set's own sessions as real agent logs, and its queries file.

    python scripts/write_labelled.py

Sessions (bench/quality/sessions_en.py, sessions_cjk.py, sessions_output.py) become Claude Code and Codex (envelope
generation) JSONL files under tests/data/recall_search/logs/, in the agents' on-disk layout;
every query, theirs and those about the real corpus (corpus_queries.py), goes to
tests/data/recall_search/queries.jsonl with its group and split. About a third is held out
(a hash of the query text decides, so adding queries never moves old ones): never tune on it.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "bench" / "quality"  # the sessions and queries this writes out
sys.path.insert(0, str(SET))

from corpus_queries import QUERIES as CORPUS_QUERIES  # noqa: E402
from sessions_cjk import SESSIONS as CJK  # noqa: E402
from sessions_en import SESSIONS as EN  # noqa: E402
from sessions_output import SESSIONS as OUTPUT  # noqa: E402

OUT = ROOT / "tests" / "data" / "recall_search"
NAMESPACE = uuid.UUID("6f1c1a52-3c2b-4d7e-9a51-0d7c5f0e2b11")


def session_id(key: str) -> str:
    return str(uuid.uuid5(NAMESPACE, key))


def split_of(text: str) -> str:
    return "heldout" if int(hashlib.sha1(text.encode("utf-8")).hexdigest(), 16) % 3 == 0 else "train"


def language_of(text: str) -> str:
    if any("\u3040" <= c <= "\u30ff" for c in text):
        return "ja"
    if any("\u4e00" <= c <= "\u9fff" for c in text):
        return "zh"
    return "en"


def _stamp(day: int, minute: int) -> str:
    return f"2026-02-{day:02d}T09:{minute:02d}:00.000Z"


def _turns(spec: dict):
    """(index, role, text) for text turns, alternating user and assistant; a ``{"run", "output"}``
    turn is the assistant's shell command and what it printed: (index, "run", (command, output))."""
    said = 0
    for i, turn in enumerate(spec["turns"]):
        if isinstance(turn, dict):
            yield i, "run", (turn["run"], turn["output"])
            continue
        yield i, "user" if said % 2 == 0 else "assistant", turn
        said += 1


def claude_log(spec: dict) -> str:
    sid = session_id(spec["key"])
    cwd = f"/home/dev/{spec['project']}"
    lines, parent = [], None
    for i, role, text in _turns(spec):
        env = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd, "sessionId": sid,
               "version": "2.0.42", "gitBranch": "main", "uuid": f"{sid[:8]}-0000-4000-8000-{i:012d}",
               "timestamp": _stamp(spec["day"], i)}
        if role == "run":
            command, output = text
            call_id = f"toolu_{sid[:8]}{i:04d}"
            lines.append({**env, "type": "assistant", "message": {
                "id": f"msg_{sid[:8]}{i:04d}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "tool_use", "id": call_id, "name": "Bash", "input": {"command": command}}],
                "stop_reason": "tool_use", "usage": {"input_tokens": 1200, "output_tokens": 40}}})
            result = {**env, "parentUuid": env["uuid"], "uuid": env["uuid"][:-3] + "999", "type": "user",
                      "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call_id,
                                                               "content": output, "is_error": False}]}}
            lines.append(result)
            parent = result["uuid"]
            continue
        if role == "user":
            lines.append({**env, "type": "user", "message": {"role": "user", "content": text}})
        else:
            lines.append({**env, "type": "assistant", "message": {
                "id": f"msg_{sid[:8]}{i:04d}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                "usage": {"input_tokens": 1200, "output_tokens": 180}}})
        parent = env["uuid"]
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def codex_log(spec: dict) -> str:
    sid = session_id(spec["key"])
    cwd = f"/home/dev/{spec['project']}"
    lines = [{"timestamp": _stamp(spec["day"], 0), "type": "session_meta", "payload": {
        "id": sid, "timestamp": _stamp(spec["day"], 0), "cwd": cwd, "originator": "codex_cli_rs",
        "cli_version": "0.58.0", "source": "cli", "model_provider": "openai"}},
        {"timestamp": _stamp(spec["day"], 0), "type": "turn_context", "payload": {
            "cwd": cwd, "approval_policy": "on-request", "model": "gpt-5-codex", "summary": "auto"}}]
    for i, role, text in _turns(spec):
        ts = _stamp(spec["day"], i + 1)
        if role == "run":
            command, output = text
            call_id = f"call_{sid[:8]}{i:04d}"
            lines.append({"timestamp": ts, "type": "response_item", "payload": {
                "type": "function_call", "name": "shell", "call_id": call_id,
                "arguments": json.dumps({"command": ["bash", "-lc", command], "workdir": cwd})}})
            lines.append({"timestamp": ts, "type": "response_item", "payload": {
                "type": "function_call_output", "call_id": call_id,
                "output": json.dumps({"output": output, "metadata": {"exit_code": 1, "duration_seconds": 2.1}})}})
        elif role == "user":
            lines.append({"timestamp": ts, "type": "response_item", "payload": {
                "type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}})
            lines.append({"timestamp": ts, "type": "event_msg", "payload": {
                "type": "user_message", "message": text, "images": []}})
        else:
            lines.append({"timestamp": ts, "type": "event_msg", "payload": {"type": "agent_message", "message": text}})
            lines.append({"timestamp": ts, "type": "response_item", "payload": {
                "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}})
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)


def copied_words(spec: dict) -> str:
    """An exact query made of the session's own words: the opening words of its first answer
    (what a person pastes from a transcript they have open)."""
    words = spec["turns"][1].split()
    if not any("\u3040" <= c <= "\u9fff" for c in spec["turns"][1]):
        return " ".join(words[:6]).rstrip(".,:")
    return spec["turns"][1][:12].strip()


def log_path(spec: dict) -> Path:
    sid = session_id(spec["key"])
    if spec["agent"] == "codex":
        return Path("codex/sessions/2026/02") / f"{spec['day']:02d}" / f"rollout-2026-02-{spec['day']:02d}T09-00-00-{sid}.jsonl"
    slug = "-home-dev-" + spec["project"]
    return Path("claude-code/projects") / slug / f"{sid}.jsonl"


def main() -> None:
    logs = OUT / "logs"
    shutil.rmtree(logs, ignore_errors=True)
    rows = []
    for spec in [*EN, *CJK, *OUTPUT]:
        path = logs / log_path(spec)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(codex_log(spec) if spec["agent"] == "codex" else claude_log(spec), encoding="utf-8")
        for group, text in [*spec["queries"], ("exact", copied_words(spec))]:
            rows.append({"query": text, "session": session_id(spec["key"]), "group": group,
                         "lang": language_of(text), "split": split_of(text), "memory": spec["memory"]})
    for prefix, group, text in CORPUS_QUERIES:
        rows.append({"query": text, "session": prefix, "group": group, "lang": language_of(text),
                     "split": split_of(text), "memory": "(corpus)"})
    with (OUT / "queries.jsonl").open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    groups: dict[str, int] = {}
    for row in rows:
        groups[row["group"]] = groups.get(row["group"], 0) + 1
    print(f"{len(rows)} queries, {sum(r['split'] == 'heldout' for r in rows)} held out; by group: {groups}")


if __name__ == "__main__":
    main()
