"""``threadback export`` in each format, run as a real subprocess on a Claude Code log tree whose
first prompt is hostile: an ESC sequence, ``</details><script>``, a bidi override, a
``javascript:`` link, a remote image and a made-up API key."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from indexer.export.markdown import fenced, inline_code
from tui.cli.exits import NOT_FOUND, USAGE

from cli_process import assert_one_line_no_traceback, threadback
from launch_logs import CLAUDE_ID, FAKE_KEY, HOSTILE_PROMPT, SUBAGENT_ID, build, three_agent_tree

RAW_SPECIALS = ("\u001b", "\u202e", "\u202c")


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("export")
    (base / "proj").mkdir()
    return build(three_agent_tree(base / "logs", base / "proj", prompt=HOSTILE_PROMPT), base / "index.sqlite3")


def export(db: Path, *argv: str):
    return threadback("--db", str(db), "export", *argv)


def assert_defused(text: str) -> None:
    assert FAKE_KEY not in text and "[masked OpenAI key]" in text
    for ch in RAW_SPECIALS:
        assert ch not in text


def test_markdown_is_compact_and_says_what_it_trimmed(db):
    proc = export(db, CLAUDE_ID[:8])
    assert proc.returncode == 0, proc.stderr
    md = proc.stdout
    assert_defused(md)
    assert "⟨U+001B ESC⟩[31mred" in md and "⟨U+202E RLO⟩evil" in md
    assert "Trimmed: 1 tool output(s) cut to their first 8 lines (52 lines left out); " \
           "1 thinking block(s) left out; secrets masked." in md
    assert "line 7 of the test output" in md and "line 8 of the test output" not in md
    assert "drops the cookie" not in md  # thinking
    assert "- tool call: `[Bash] pytest tests/test_login.py`" in md
    assert f"(subagent `agent-{SUBAGENT_ID}`, below)" in md and "subagent says: cookie code" in md
    assert "```python\ndef login(user):" in md


def test_show_secrets_keeps_the_key(db):
    md = export(db, CLAUDE_ID, "--show-secrets").stdout
    assert FAKE_KEY in md and "secrets masked" not in md


class Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.ends: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        self.ends.append(tag)


def test_html_is_one_safe_self_contained_file(db, tmp_path):
    out = tmp_path / "session.html"
    proc = export(db, CLAUDE_ID, "-o", str(out))  # the format comes from the extension
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr
    assert f"wrote {out} (html" in proc.stderr
    page = out.read_text(encoding="utf-8")
    assert_defused(page)
    parsed = Elements()
    parsed.feed(page)
    names = [tag for tag, _ in parsed.tags]
    assert "script" not in names and "img" not in names and "link" not in names
    # thinking, two tool calls, two outputs: the text's </details> closed none of them
    assert names.count("details") == parsed.ends.count("details") == 5
    assert "&lt;/details&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    hrefs = [attrs["href"] for tag, attrs in parsed.tags if tag == "a"]
    assert "http://evil.example/p.png" in hrefs  # the image is only a link: nothing loads
    inside = [h for h in hrefs if h.startswith("#")]
    assert len(inside) == len(hrefs) - 1 and not any("javascript" in h for h in hrefs)
    ids = {attrs["id"] for _, attrs in parsed.tags if "id" in attrs}
    assert inside and all(h[1:] in ids for h in inside)  # the subagent links land
    assert "default-src 'none'" in page and "<style>" in page
    assert '<span class="k">def</span>' in page  # pygments highlighted the python block
    assert '<span class="nt">&quot;command&quot;</span>' in page or '<span class="nt">"command"</span>' in page
    assert "subagent says: cookie code" in page


def test_json_is_shows_shape_with_the_subagents(db, tmp_path):
    out = tmp_path / "s.out"
    proc = export(db, CLAUDE_ID, "--format", "json", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    raw = out.read_text(encoding="utf-8")
    for ch in RAW_SPECIALS:
        assert ch not in raw  # escaped as \\u001b in the JSON text
    data = json.loads(raw)
    shown = json.loads(threadback("--db", str(db), "show", CLAUDE_ID, "--json").stdout)
    assert data["session"] == shown["session"] and data["messages"] == shown["messages"]
    assert data["secrets_masked"] is True and FAKE_KEY not in raw
    assert data["messages"][0]["text"].startswith("fix the login \u001b[31mred")  # exact, once parsed
    (sub,) = data["subagents"]
    assert sub["session"]["session_id"] == f"agent-{SUBAGENT_ID}" and len(sub["messages"]) == 2


def test_unknown_session_and_missing_folder_are_one_line(db, tmp_path):
    proc = export(db, "nosuchsession")
    assert proc.returncode == NOT_FOUND and "no session matches" in assert_one_line_no_traceback(proc)
    proc = export(db, CLAUDE_ID, "-o", str(tmp_path / "missing" / "x.md"))
    assert proc.returncode == USAGE and "no folder" in assert_one_line_no_traceback(proc)  # README: 2
    assert not (tmp_path / "missing").exists()


def test_a_fence_inside_the_text_cannot_close_the_block():
    block = fenced("before\n```\n# now outside?\n````", "")
    assert block.startswith("`````\n") and block.endswith("\n`````")


def test_a_backtick_in_a_tool_call_cannot_end_its_code_span():
    assert inline_code("echo `date`") == "`` echo `date` ``"
    assert inline_code("plain") == "`plain`"


def test_a_tab_is_a_tab_and_other_invisibles_stay_marked(tmp_path):
    """Issue 33 item 5: a Makefile's tab exports as a tab (HTML: whitespace in a ``pre``, 4 wide),
    while a zero-width space and an ESC are still marked."""
    (tmp_path / "proj").mkdir()
    prompt = "the Makefile rule fails:\n```make\nall:\n\tgcc -o app main.c\n```\nsee\u200bhere \u001b[2J"
    db = build(three_agent_tree(tmp_path / "logs", tmp_path / "proj", prompt=prompt), tmp_path / "index.sqlite3")
    md = export(db, CLAUDE_ID).stdout
    assert "all:\n\tgcc -o app main.c" in md and "U+0009" not in md
    assert "see⟨U+200B ZWSP⟩here" in md and "⟨U+001B ESC⟩[2J" in md and "\u200b" not in md
    out = tmp_path / "s.html"
    assert export(db, CLAUDE_ID, "-o", str(out)).returncode == 0
    page = out.read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", "", page)  # pygments wraps the tab in a span of its own
    assert "all:\n\tgcc -o app main.c" in text and "U+0009" not in page and "tab-size: 4" in page
    assert "U+200B" in page and "\u200b" not in page and "\u001b" not in page
