"""A session as one self-contained HTML file for people: inline CSS, no script, no external
asset (a Content-Security-Policy forbids loading any), code highlighted with pygments, tool
calls, outputs, thinking and injected text folded in ``<details>``, subagents inlined below with
links from the tool result that started them.

Log text is untrusted. It is made visible first (``indexer.text.safe``: an ESC or a bidi override
becomes a marker), then either HTML-escaped or rendered as Markdown by markdown-it with raw HTML
off (so ``</details><script>`` is text, ``javascript:`` links are refused, and an image is
only a link). A code fence's
language only picks a lexer; it is never written out.
"""

from __future__ import annotations

import html
import json
from datetime import datetime, timezone

from markdown_it import MarkdownIt
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import JsonLexer, get_lexer_by_name
from pygments.util import ClassNotFound

from indexer.export import SessionExport, subagent_of
from indexer.export.markdown import utc
from indexer.models import ERROR, SUMMARY, THINKING, TOOL_CALL, TOOL_RESULT, Message
from indexer.text.safe import make_visible

_FORMATTER = HtmlFormatter(nowrap=True)
_CSP = "default-src 'none'; style-src 'unsafe-inline'"
CSS = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #1f2328; background: #fff; }
h1 { font-size: 1.4rem; margin-bottom: .3rem; } h2 { font-size: 1.15rem; margin-top: 2.5rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; color: #57606a; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.note { color: #57606a; font-size: .9rem; border-left: 3px solid #d0d7de; padding-left: .6rem; }
.msg { margin: 1rem 0; padding: .4rem .8rem; border-radius: 6px; }
.msg.user { background: #ddf4ff; } .msg.assistant { background: #f6f8fa; }
.msg.summary { background: #fff8c5; } .msg.error { background: #ffebe9; }
.who { font-size: .8rem; color: #57606a; font-weight: 600; }
details { margin: .4rem 0 .4rem .8rem; } summary { cursor: pointer; color: #57606a; font-size: .9rem; }
summary code { color: #0550ae; }
pre { tab-size: 4; background: #f6f8fa; padding: .6rem; overflow-x: auto; border-radius: 6px; font-size: .85rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.body pre { white-space: pre; } .body p { margin: .4rem 0; } .plain { white-space: pre-wrap; tab-size: 4; }
section.subagent { border-top: 2px solid #d0d7de; margin-top: 2rem; }
@media (prefers-color-scheme: dark) {
  body { color: #e6edf3; background: #0d1117; }
  .msg.user { background: #0c2d4a; } .msg.assistant { background: #161b22; }
  .msg.summary { background: #3b2e00; } .msg.error { background: #4a1418; }
  dl.facts, .note, .who, summary { color: #9198a1; } summary code { color: #79c0ff; } a { color: #79c0ff; }
  pre { color: #1f2328; }  /* code stays on its light background, where the highlighting reads */
}
"""


def _visible(text: str) -> str:
    return make_visible(text, tab="\t")  # a tab is layout: kept; every other special is marked


def _escape(text: str) -> str:
    return html.escape(_visible(text), quote=True)


def _highlight_fence(code: str, lang: str, _attrs: str) -> str:
    """markdown-it's hook for fenced code: pygments when the language is known, else nothing
    (markdown-it then escapes the code itself)."""
    name = (lang or "").split()[0] if lang else ""
    try:
        lexer = get_lexer_by_name(name) if name else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        return ""
    return f'<pre class="hl"><code>{highlight(code, lexer, _FORMATTER)}</code></pre>'


# An image would be an outside asset (and a tracking pixel): it shows as a plain link instead.
_MARKDOWN = MarkdownIt("commonmark", {"html": False, "highlight": _highlight_fence}).disable("image")


def _markdown(text: str) -> str:
    return _MARKDOWN.render(_visible(text))


def _json_block(detail: str) -> str:
    try:
        pretty = json.dumps(json.loads(detail), indent=2, ensure_ascii=False)
    except ValueError:
        return f"<pre>{_escape(detail)}</pre>"
    return f'<pre class="hl"><code>{highlight(_visible(pretty), JsonLexer(), _FORMATTER)}</code></pre>'


def _time(m: Message) -> str:
    return utc(m.ts)[11:16] if m.ts else "--:--"


def _message(m: Message, export: SessionExport, anchors: dict[str, str]) -> str:
    mark = f" · {_escape(m.mark)}" if m.mark else ""
    if m.kind == TOOL_CALL:
        args = _json_block(m.detail) if m.detail else ""
        return (f'<details class="tool"><summary>tool call · {_time(m)}{mark}: <code>{_escape(m.text[:300])}'
                f"</code></summary>{args}</details>")
    if m.kind == TOOL_RESULT:
        lines = m.text.count("\n") + 1 if m.text else 0
        sub = subagent_of(m, export.subagents)
        link = (f'<p><a href="#{anchors[sub.session.session_id]}">the subagent\'s transcript</a></p>'
                if sub and sub.session.session_id in anchors else "")
        name = f" of {_escape(m.tool_name)}" if m.tool_name else ""
        count = "1 line" if lines == 1 else f"{lines} lines"
        return (f'<details class="output"><summary>output{name} · {count}{mark}</summary>'
                f"<pre>{_escape(m.text)}</pre></details>{link}")
    if m.kind == THINKING:
        return f'<details class="thinking"><summary>thinking · {_time(m)}</summary>{_markdown(m.text)}</details>'
    if m.role == "meta":
        return (f'<details class="meta"><summary>injected text (not typed by the user) · {_time(m)}</summary>'
                f'<pre class="plain">{_escape(m.text)}</pre></details>')
    kind = {SUMMARY: "summary", ERROR: "error"}.get(m.kind, m.role)
    css = kind if kind in ("user", "assistant", "summary", "error") else "assistant"
    return (f'<article class="msg {css}"><div class="who">{_escape(kind)} · {_time(m)}{mark}</div>'
            f'<div class="body">{_markdown(m.text)}</div></article>')


def _facts(export: SessionExport) -> str:
    s = export.session
    rows = [("agent", s.agent), ("session", s.session_id), ("folder", s.project_path), ("branch", s.git_branch),
            ("model", s.model), ("time", f"{utc(s.start_ts)} to {utc(s.end_ts)}"),
            ("messages", str(s.message_count)), ("subagent of", s.parent_session_id),
            ("branched from", s.branched_from)]
    items = "".join(f"<dt>{name}</dt><dd>{_escape(value)}</dd>" for name, value in rows if value)
    return f'<dl class="facts">{items}</dl>'


def _title(export: SessionExport) -> str:
    return " ".join((export.session.title or "(untitled session)").split())[:200]


def _session(export: SessionExport, anchors: dict[str, str], heading: str) -> list[str]:
    out = [f"<{heading}>{_escape(_title(export))}</{heading}>", _facts(export)]
    out += [_message(m, export, anchors) for m in export.messages]
    if export.subagents_left_out:
        out.append(f'<p class="note">{export.subagents_left_out} deeper subagent session(s) not included.</p>')
    return out


def to_html(export: SessionExport, *, now: float) -> str:
    """The export as one HTML document; ``now`` is when it was written (shown in the note)."""
    subs = export.all_sessions()[1:]
    anchors = {sub.session.session_id: f"subagent-{n}" for n, sub in enumerate(subs, 1)}
    when = datetime.fromtimestamp(now, tz=timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    masked = "secrets masked" if export.secrets_masked else "secrets shown in full (--show-secrets)"
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_escape(_title(export))}</title>",
        f"<style>{CSS}{_FORMATTER.get_style_defs('.hl')}</style></head><body>",
    ]
    main = _session(export, anchors, "h1")
    note = (f'<p class="note">Exported by Threadback on {when}; {masked}; control and invisible characters '
            "shown as ⟨U+…⟩ markers.</p>")
    parts += [*main[:2], note, *main[2:]]
    if subs:
        links = "".join(f'<li><a href="#{anchors[s.session.session_id]}">{_escape(_title(s))}</a> '
                        f"({s.session.message_count} messages)</li>" for s in subs)
        parts.append(f"<nav><h2>Subagents</h2><ul>{links}</ul></nav>")
    for sub in subs:
        parts += [f'<section class="subagent" id="{anchors[sub.session.session_id]}">',
                  *_session(sub, anchors, "h2"), "</section>"]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
