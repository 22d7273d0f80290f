"""Every command's output shows control, bidi, zero-width and tag characters as markers (text)
or escapes (JSON), never raw: the memory commands, search JSON, and the hook's prompt echo."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from indexer.text.safe import escape_json_specials, make_safe

REPO = Path(__file__).resolve().parents[2]
RAW = ("\x1b", "\x07", "\u202e", "\u200b", "\U000e0041", "\x9b")
HOSTILE = "ok\x1b]0;pwned\x07 \u202eevil\u200b\U000e0041 \x9b2J"


def test_json_escapes_keep_the_data_exact() -> None:
    text = json.dumps({"t": HOSTILE, "cjk": "中文 ⟨"}, ensure_ascii=False)
    escaped = escape_json_specials(text)
    assert not any(ch in escaped for ch in RAW) and "中文" in escaped
    assert json.loads(escaped) == json.loads(text)


def test_json_escapes_every_special_character_and_only_those() -> None:
    """The one-pass escape escapes exactly the characters ``is_special`` names, wherever they
    stand: every code point from U+0000 to U+FFFF, and a variation selector after an emoji."""
    from indexer.text.safe import is_special

    text = "".join(chr(c) for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF) + "\u2764\ufe0f\U0001F600"
    expected = "".join(f"\\u{ord(ch):04x}" if is_special(ch) else ch for ch in text)
    assert escape_json_specials(text) == expected


def test_make_safe_marks_and_masks() -> None:
    shown = make_safe(HOSTILE + " AKIAIOSFODNN7EXAMPLE")
    assert not any(ch in shown for ch in RAW)
    assert "⟨U+001B ESC⟩" in shown and "[masked AWS access key]" in shown
    assert "AKIAIOSFODNN7EXAMPLE" in make_safe("AKIAIOSFODNN7EXAMPLE", reveal_secrets=True)


def test_memory_commands_never_print_raw_characters(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    entry = {"id": "ep-1a2b3c4d", "ts": "2026-06-01T00:00:00Z", "type": "note", "summary": HOSTILE,
             "tags": [HOSTILE], "importance": 5}
    (memory / "episodic.jsonl").write_text(json.dumps(entry) + "\n", encoding="utf-8")
    (memory / "fact.yml").write_text('note: "' + HOSTILE.encode("unicode_escape").decode() + '"\n')
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO), "THREADBACK_HOME": str(tmp_path / "home")}
    for argv in (["memory", "list"], ["memory", "show", "ep-1a2b3c4d"], ["memory", "search", "evil"],
                 ["memory", "list", "--json"]):
        done = subprocess.run([sys.executable, "-m", "tui.cli", *argv, "--memory-dir", str(memory)],
                              capture_output=True, cwd=REPO, env=env, timeout=30)
        out = done.stdout.decode("utf-8") + done.stderr.decode("utf-8")
        assert done.returncode == 0, (argv, out)
        assert not any(ch in out for ch in RAW), (argv, out)
        assert "U+202E" in out or "\\u202e" in out, (argv, out)
