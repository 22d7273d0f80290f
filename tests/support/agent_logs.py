"""Small Claude Code log trees written by a test, and the index built from them."""

from __future__ import annotations

import json
from pathlib import Path

from indexer import Index, only_roots

from conftest import FIXED_NOW


def claude_session(root: Path, sid: str, project: str, texts: list[str], *, day: int = 1, hour: int = 10) -> Path:
    """A Claude Code session log: ``texts`` alternate user and assistant turns, a minute apart."""
    folder = root / f"-w-{project}"
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for i, text in enumerate(texts):
        ts = f"2026-03-{day:02d}T{hour:02d}:{i:02d}:00Z"
        env = {"uuid": f"{sid}-{i}", "sessionId": sid, "cwd": f"/w/{project}", "timestamp": ts}
        if i % 2 == 0:
            lines.append({"type": "user", **env, "message": {"role": "user", "content": text}})
        else:
            lines.append({"type": "assistant", **env, "message": {
                "id": f"msg_{sid}_{i}", "role": "assistant", "model": "claude-x",
                "content": [{"type": "text", "text": text}]}})
    path = folder / f"{sid}.jsonl"
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


def build_index(root: Path, db: Path) -> Path:
    index = Index(db)
    index.update(only_roots({"claude-code": [root]}), now=FIXED_NOW)
    index.close()
    return db
