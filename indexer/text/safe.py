"""Make invisible and deceptive characters visible before a person reads untrusted text.

A rule or a log line can hide instructions a reader never sees: a right-to-left override that
reorders what is shown, zero-width characters, tag characters that smuggle ASCII, an ESC that
recolours the terminal, a carriage return that overwrites the line. ``make_visible`` replaces
each such character with a marker such as ``⟨U+202E RLO⟩``; everything else (including CJK and
emoji) passes through unchanged. A literal ``⟨`` is itself marked, so every ``⟨`` in the output
starts a marker and a text cannot forge one.

Used by the rule review and by the TUI for all log text, so it has a fast path: one regex
search, and the text is returned as it is when nothing matches.
"""

from __future__ import annotations

import re
from functools import lru_cache

from indexer.util.named_record import NamedTuple
from indexer.text.secret_mask import mask_secrets

MARKER_OPEN = "⟨"
MARKER_CLOSE = "⟩"
TAB_ARROW = "→"

_C0_NAMES = (
    "NUL SOH STX ETX EOT ENQ ACK BEL BS TAB LF VT FF CR SO SI "
    "DLE DC1 DC2 DC3 DC4 NAK SYN ETB CAN EM SUB ESC FS GS RS US"
).split()
_C1_NAMES = (
    "PAD HOP BPH NBH IND NEL SSA ESA HTS HTJ VTS PLD PLU RI SS2 SS3 "
    "DCS PU1 PU2 STS CCH MW SPA EPA SOS SGCI SCI CSI ST OSC PM APC"
).split()

_SHORT_NAMES: dict[int, str] = {
    **{i: name for i, name in enumerate(_C0_NAMES)},
    0x7F: "DEL",
    **{0x80 + i: name for i, name in enumerate(_C1_NAMES)},
    0x00A0: "NBSP",
    0x00AD: "SHY",
    0x034F: "CGJ",
    0x061C: "ALM",
    0x180E: "MVS",
    0x200B: "ZWSP",
    0x200C: "ZWNJ",
    0x200D: "ZWJ",
    0x200E: "LRM",
    0x200F: "RLM",
    0x2028: "LSEP",
    0x2029: "PSEP",
    0x202A: "LRE",
    0x202B: "RLE",
    0x202C: "PDF",
    0x202D: "LRO",
    0x202E: "RLO",
    0x202F: "NNBSP",
    0x205F: "MMSP",
    0x2060: "WJ",
    0x2066: "LRI",
    0x2067: "RLI",
    0x2068: "FSI",
    0x2069: "PDI",
    0xFEFF: "ZWNBSP",
    0xE0001: "LANGUAGE TAG",
    0xE007F: "CANCEL TAG",
}

# Every character that gets a marker. Ranges rather than a scan of unicodedata at import time,
# which would cost a few hundred milliseconds; tests check the list against unicodedata.
_SPECIAL_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x0009),  # C0 controls and TAB (LF is left alone)
    (0x000B, 0x001F),
    (0x007F, 0x00A0),  # DEL, C1 controls, NBSP
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner: invisible
    (0x0600, 0x0605),  # Arabic format characters (Cf)
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x115F, 0x1160),  # Hangul fillers: invisible "letters"
    (0x1680, 0x1680),  # Ogham space mark
    (0x180E, 0x180E),
    (0x2000, 0x200F),  # typographic spaces, zero-width characters, LRM/RLM
    (0x2028, 0x202F),  # line/paragraph separators, bidi embeddings and overrides, NNBSP
    (0x205F, 0x206F),  # MMSP, word joiner, invisible operators, bidi isolates, deprecated Cf
    (0x2800, 0x2800),  # braille blank: looks like a space
    (0x27E8, 0x27E8),  # a literal ⟨, so markers cannot be forged
    (0x3164, 0x3164),  # Hangul filler
    (0xD800, 0xDFFF),  # lone surrogates (surrogateescape'd bytes): unprintable
    (0xFE00, 0xFE0D),  # variation selectors other than text/emoji presentation
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF9, 0xFFFB),  # interlinear annotation
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE007F),  # tag characters: invisible ASCII
    (0xE0100, 0xE01EF),  # variation selectors supplement: used to smuggle bytes
)

# U+3000 IDEOGRAPHIC SPACE is deliberately absent: it is ordinary in Japanese and Chinese text.
# U+FE0E/U+FE0F (text/emoji presentation) are normal after an emoji, so only a run of
# variation selectors is marked.


def _char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    parts = []
    for lo, hi in ranges:
        first, last = re.escape(chr(lo)), re.escape(chr(hi))
        parts.append(first if lo == hi else f"{first}-{last}")
    return "[" + "".join(parts) + "]"


_VARIATION_SELECTOR = "[\ufe00-\ufe0f\U000e0100-\U000e01ef]"
_VS_RUN = f"(?<={_VARIATION_SELECTOR})[\ufe0e\ufe0f]"
_ASCII_SPECIAL = re.compile("[\x00-\x09\x0b-\x1f\x7f]")


# The big classes are compiled on first use (~1 ms each): ASCII text, most of any log and what
# the CLI and the hooks mostly print, needs only the tiny ASCII class.
@lru_cache(maxsize=None)
def _special() -> re.Pattern[str]:
    return re.compile(_char_class(_SPECIAL_RANGES) + "|" + _VS_RUN)


# The fast path for text that is not ASCII: a plain class is twice as fast as the alternation.
@lru_cache(maxsize=None)
def _special_chars() -> re.Pattern[str]:
    return re.compile(_char_class(_SPECIAL_RANGES))


@lru_cache(maxsize=None)
def _vs_run() -> re.Pattern[str]:
    return re.compile(_VS_RUN)


def has_special(text: str) -> bool:
    """Whether ``make_visible`` would change ``text`` at all."""
    # "…" and "·" are our own marks (a snippet's cut, a header's separator): they leave a line
    # that the ASCII class checks, and the big class uncompiled.
    if text.isascii() or text.replace("…", "").replace("·", "").isascii():
        return _ASCII_SPECIAL.search(text) is not None
    if _special_chars().search(text):
        return True
    return ("\ufe0e" in text or "\ufe0f" in text) and _vs_run().search(text) is not None


# Shown as markers but not worth a warning: ordinary layout, or our own escaping.
_NOT_SUSPICIOUS = frozenset({0x09, 0x27E8})


class SuspiciousChar(NamedTuple):
    index: int  # type: ignore[assignment]  # position in the original text (shadows tuple.index, as meant)
    codepoint: int
    name: str  # short name such as "RLO", or the Unicode name

    @property
    def label(self) -> str:
        """``U+202E RLO``: the form used in markers and warning lines."""
        return f"U+{self.codepoint:04X} {self.name}".rstrip()


def char_name(codepoint: int) -> str:
    """A short, recognisable name: the usual abbreviation where there is one."""
    if codepoint in _SHORT_NAMES:
        return _SHORT_NAMES[codepoint]
    if codepoint == 0xE0020:
        return "TAG SPACE"
    if 0xE0021 <= codepoint <= 0xE007E:
        return f"TAG {chr(codepoint - 0xE0000)}"  # the ASCII character it smuggles
    if 0xD800 <= codepoint <= 0xDFFF:
        return "SURROGATE"
    import unicodedata  # naming a special character only: a C extension, ~0.2 ms to load

    return unicodedata.name(chr(codepoint), "")


@lru_cache(maxsize=4096)
def _marker(ch: str) -> str:
    code = ord(ch)
    label = f"U+{code:04X} {char_name(code)}".rstrip()
    return f"{MARKER_OPEN}{label}{MARKER_CLOSE}"


def _replace_keep_tab(match: re.Match[str]) -> str:
    ch = match.group()
    return TAB_ARROW if ch == "\t" else _marker(ch)


def _replace_all(match: re.Match[str]) -> str:
    return _marker(match.group())


def make_visible(text: str, *, tab: str | None = TAB_ARROW) -> str:
    """``text`` with every invisible or deceptive character replaced by a visible marker.

    Newlines are kept. A tab becomes ``tab`` (``→`` by default; ``None`` gives a full
    ``⟨U+0009 TAB⟩`` marker for callers that need every rendering to be unambiguous).
    """
    if not has_special(text):
        return text
    if tab is None:
        return _special().sub(_replace_all, text)
    if tab == TAB_ARROW:
        return _special().sub(_replace_keep_tab, text)
    return _special().sub(lambda m: tab if m.group() == "\t" else _marker(m.group()), text)


def suspicious_characters(text: str) -> list[SuspiciousChar]:
    """Every invisible or deceptive character in ``text`` (tabs excluded), for a warning line."""
    if not has_special(text):
        return []
    found = []
    for match in _special().finditer(text):
        code = ord(match.group())
        if code not in _NOT_SUSPICIOUS:
            found.append(SuspiciousChar(match.start(), code, char_name(code)))
    return found


def describe_suspicious(found: list[SuspiciousChar], *, limit: int = 8) -> str:
    """One warning line: ``3 hidden or deceptive characters: U+202E RLO at 5, ...``."""
    if not found:
        return ""
    shown = ", ".join(f"{c.label} at {c.index}" for c in found[:limit])
    more = f", and {len(found) - limit} more" if len(found) > limit else ""
    noun = "character" if len(found) == 1 else "characters"
    return f"{len(found)} hidden or deceptive {noun}: {shown}{more}"


def each_suspicious_line(text: str, found: list[SuspiciousChar]) -> list[str]:
    """One line per hidden or deceptive character: what it is, where, and the visible text
    around it, for a confirmation that lists every one."""
    lines = []
    for char in found:
        before = make_visible(text[max(0, char.index - 12):char.index]).replace("\n", "⏎")
        after = make_visible(text[char.index + 1:char.index + 13]).replace("\n", "⏎")
        lines.append(f"{char.label:<24} at {char.index:>5}: …{before[-12:]}[HERE]{after[:12]}…")
    return lines


def is_special(ch: str) -> bool:
    """Whether ``make_visible`` would mark this single character (ignoring context)."""
    return _special().fullmatch(ch) is not None


def make_safe(text: str, *, reveal_secrets: bool = False, tab: str | None = TAB_ARROW) -> str:
    """Untrusted text as a person or an agent may read it: credentials masked
    (``indexer.text.secret_mask``) unless ``reveal_secrets``, then ``make_visible``."""
    return make_visible(text if reveal_secrets else mask_secrets(text), tab=tab)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def escape_json_specials(json_text: str) -> str:
    """A JSON document with every character ``make_visible`` would mark written as a
    ``\\uXXXX`` escape: the data is unchanged for a parser, and a terminal shown the raw JSON
    sees no escape sequence, bidi override or invisible character. (Such characters can only
    occur inside JSON strings, where the escape means the same.)"""
    if json_text.isascii() and not _ASCII_SPECIAL.search(json_text):
        return json_text
    # One pass of the character class (what ``is_special`` asks of each character alone: the
    # variation-selector run needs a character before it), not a Python call per character:
    # ~3 ms less for a page of CJK hits.
    return _special_chars().sub(_escaped_match, json_text)


def _escaped_match(match: re.Match[str]) -> str:
    return _json_escape(match.group())
