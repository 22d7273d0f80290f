import sys
import unicodedata

import pytest

from indexer.text.safe import (
    describe_suspicious,
    has_special,
    make_visible,
    suspicious_characters,
)


@pytest.mark.parametrize(
    ("char", "marker"),
    [
        ("\u202e", "⟨U+202E RLO⟩"),
        ("\u2066", "⟨U+2066 LRI⟩"),
        ("\u061c", "⟨U+061C ALM⟩"),
        ("\u200b", "⟨U+200B ZWSP⟩"),
        ("\u200d", "⟨U+200D ZWJ⟩"),
        ("\u2060", "⟨U+2060 WJ⟩"),
        ("\ufeff", "⟨U+FEFF ZWNBSP⟩"),
        ("\x1b", "⟨U+001B ESC⟩"),
        ("\x07", "⟨U+0007 BEL⟩"),
        ("\r", "⟨U+000D CR⟩"),
        ("\x00", "⟨U+0000 NUL⟩"),
        ("\x7f", "⟨U+007F DEL⟩"),
        ("\x9b", "⟨U+009B CSI⟩"),
        ("\u00a0", "⟨U+00A0 NBSP⟩"),
        ("\u2009", "⟨U+2009 THIN SPACE⟩"),
        ("\u2028", "⟨U+2028 LSEP⟩"),
        ("\u00ad", "⟨U+00AD SHY⟩"),
        ("\U000e0041", "⟨U+E0041 TAG A⟩"),
        ("\U000e0001", "⟨U+E0001 LANGUAGE TAG⟩"),
        ("\U000e007f", "⟨U+E007F CANCEL TAG⟩"),
        ("\udcff", "⟨U+DCFF SURROGATE⟩"),
    ],
)
def test_invisible_characters_get_a_marker(char: str, marker: str) -> None:
    assert make_visible(f"a{char}b") == f"a{marker}b"


def test_escape_sequence_is_neutralised() -> None:
    assert make_visible("\x1b[31mred\x1b[0m") == "⟨U+001B ESC⟩[31mred⟨U+001B ESC⟩[0m"


def test_tag_characters_reveal_the_smuggled_ascii() -> None:
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "rm")
    assert make_visible("ok" + hidden) == "ok⟨U+E0072 TAG r⟩⟨U+E006D TAG m⟩"


@pytest.mark.parametrize(
    "text",
    [
        "plain ASCII text, with punctuation! (and 'quotes')\nand a second line",
        "中文搜索：会话日志。日本語のテキスト、한국어 텍스트",
        "emoji ❤️ 👍🏽 and accents café naïve, arrows → ⇒",
        "",
    ],
)
def test_ordinary_text_passes_through_unchanged(text: str) -> None:
    assert make_visible(text) == text
    assert suspicious_characters(text) == []


def test_newlines_are_kept_and_tabs_shown() -> None:
    assert make_visible("a\tb\nc") == "a→b\nc"
    assert make_visible("a\tb", tab=None) == "a⟨U+0009 TAB⟩b"
    assert suspicious_characters("a\tb") == []


def test_a_marker_cannot_be_forged_by_literal_text() -> None:
    forged = "run ⟨U+202E RLO⟩ this"
    shown = make_visible(forged)
    assert shown != forged
    assert shown.startswith("run ⟨U+27E8")
    assert suspicious_characters(forged) == []  # escaped, but not itself deceptive


def test_variation_selector_runs_are_marked_but_emoji_presentation_is_not() -> None:
    assert make_visible("❤\ufe0f") == "❤\ufe0f"
    assert make_visible("❤\ufe0f\ufe0f") == "❤\ufe0f⟨U+FE0F VARIATION SELECTOR-16⟩"
    assert "⟨U+E0100" in make_visible("x\U000e0100")


def test_suspicious_characters_gives_positions_and_names() -> None:
    text = "always \u202erun\u200b it\u00a0now"
    found = suspicious_characters(text)
    assert [(c.index, c.codepoint, c.name) for c in found] == [
        (7, 0x202E, "RLO"),
        (11, 0x200B, "ZWSP"),
        (15, 0x00A0, "NBSP"),
    ]
    assert all(text[c.index] == chr(c.codepoint) for c in found)
    line = describe_suspicious(found)
    assert line.startswith("3 hidden or deceptive characters: U+202E RLO at 7")


def test_every_format_control_and_odd_space_is_covered() -> None:
    """The hand-written ranges must cover this Python's Unicode database."""
    missed = []
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        category = unicodedata.category(ch)
        expected = (
            category == "Cf"
            or (category == "Cc" and ch != "\n")
            or (category in ("Zs", "Zl", "Zp") and ch not in (" ", "\u3000"))
            or category == "Cs"
        )
        if expected and make_visible(ch) == ch:
            missed.append(f"U+{code:04X}")
    assert missed == []


@pytest.mark.parametrize("text", [
    "plain ascii words", "tab\tand newline\n", "bell\x07", "escape \x1b[31mred",
    "中文和日本語のテキスト", "right-to-left \u202eevil", "zero\u200bwidth", "emoji ✔️ with VS16",
    "text ︎ lone selector", "café", "\x7f delete",
])
def test_has_special_is_exactly_whether_make_visible_changes_the_text(text):
    assert has_special(text) == (make_visible(text) != text)


def test_has_special_agrees_with_the_full_pattern_on_our_own_marks():
    """The shortcut for text that is ASCII but for "…" and "·" finds what the big class finds."""
    import random
    import re

    from indexer.text import safe as textsafe

    full = re.compile(textsafe._char_class(textsafe._SPECIAL_RANGES) + "|" + textsafe._VS_RUN)
    rng = random.Random(1)
    pool = [*"ab\t\n\x1b\x7f ", "…", "·", "\u202e", "\ufe0f", "😀", "中", "\xad", "\u200b"]
    for _ in range(5000):
        text = "".join(rng.choice(pool) for _ in range(rng.randrange(0, 12)))
        assert textsafe.has_special(text) == (full.search(text) is not None), repr(text)
