"""Which characters are CJK (written without spaces between words): one definition for the
query language, the snippets and the prompt's detectors, importable without the query
language itself (the prompt hook needs only this)."""


def is_cjk(ch: str) -> bool:
    """True for ideographs, kana and hangul: scripts written without spaces between words."""
    o = ord(ch)
    return (
        0x3040 <= o <= 0x30FF  # hiragana, katakana
        or 0x3400 <= o <= 0x4DBF  # CJK ext A
        or 0x4E00 <= o <= 0x9FFF  # CJK unified
        or 0xAC00 <= o <= 0xD7AF  # hangul syllables
        or 0xF900 <= o <= 0xFAFF  # compatibility ideographs
        or 0x20000 <= o <= 0x2FA1F  # ext B+
        or 0x31F0 <= o <= 0x31FF  # katakana ext
    )
