"""The word path's probe holds, for an all-ASCII search, only the strings its expressions ask
for that a message holds (``words.probe_strings``), not the message's text: every expression must
match the same messages on that probe as on one holding the whole texts, as the trigram index
does. Checked against SQLite's own tokenizer: every code point it folds to ASCII, and
generated texts and expressions."""

from __future__ import annotations

import sqlite3

from hypothesis import example, given, settings
from hypothesis import strategies as st

from indexer.search.matching import ASCII_LOOKALIKES
from indexer.search.rare_words import _probe_rows, probe_strings, quoted_strings


def _table(conn: sqlite3.Connection, name: str, rows) -> None:
    conn.execute(f"CREATE VIRTUAL TABLE {name} USING fts5 (text, content='', tokenize='trigram')")
    conn.executemany(f"INSERT INTO {name}(rowid, text) VALUES (?, ?)", rows)


def test_the_trigram_tokenizer_folds_to_ascii_only_lookalikes():
    """Outside ASCII, the characters FTS5's trigram tokenizer folds to an ASCII character are
    among ``ASCII_LOOKALIKES``: a text without them holds an ASCII string for the index
    exactly where its lower-cased form does. Code points go in groups of 64 a row; a group
    that matches is looked at one by one."""
    codes = [c for c in range(0x80, 0x110000) if not 0xD800 <= c <= 0xDFFF]
    groups = [codes[i : i + 64] for i in range(0, len(codes), 64)]
    conn = sqlite3.connect(":memory:")
    _table(conn, "g", ((n, "".join(f"\x01{chr(c)}\x01" for c in group)) for n, group in enumerate(groups)))
    hits = set()
    for x in map(chr, range(0x20, 0x7F)):
        for (n,) in conn.execute("SELECT rowid FROM g WHERE g MATCH ?", ('"\x01' + x.replace('"', '""') + '\x01"',)):
            hits.update(groups[n])
    _table(conn, "one", ((c, f"\x01{chr(c)}\x01") for c in hits))
    folding = set()
    for x in map(chr, range(0x20, 0x7F)):
        for (c,) in conn.execute("SELECT rowid FROM one WHERE one MATCH ?", ('"\x01' + x.replace('"', '""') + '\x01"',)):
            folding.add(chr(c))
    assert folding and folding <= set(ASCII_LOOKALIKES), folding  # K and ſ on SQLite 3.40


def test_only_an_expression_of_quoted_strings_is_cut_down():
    assert probe_strings(('("retry the connection") AND ("X""y")', 0, "%proj3%")) == (
        ("retry the connection", 'x"y'), "\x01")
    assert probe_strings(('NEAR("ret" "nne", 12)',)) is None  # positions matter: whole texts
    assert probe_strings(("%a\"b%", '"abc"')) is None  # a value with a quote that is no expression
    assert probe_strings(('"a\x01b" OR "cde"',))[1] == "\x02"  # a joint no string holds
    assert probe_strings(('"ab\0cdef"',)) is None  # FTS5 stops at a NUL in a string too
    assert quoted_strings('("a") AND (("b""c") OR "d") NOT"e"') == ["a", 'b"c', "d", "e"]
    assert quoted_strings('"a" "b"') == ["a", "b"]
    assert quoted_strings('"""x"""') == ['"x"']
    for other in ('"a" ANDX "b"', '"unterminated', 'NEAR("a" "b", 3)', 'word', '"a" + "b"', '"a"*'):
        assert quoted_strings(other) is None, other


def matches(conn: sqlite3.Connection, table: str, expression: str) -> list[int] | str:
    try:
        return [r[0] for r in conn.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid",
                                           (expression,))]
    except sqlite3.OperationalError as exc:
        return str(exc)


PIECES = st.sampled_from(["retry", "the", "connection", "Retry", "THE", "conn", "ection", " ", "  ", "\n", "-rn", "src/",
                          "K", "k", "\u212a", "s", "S", "\u017f", "i", "I", "\u0130", "\u0131", "\0", "\x01", '"',
                          "資料庫", "资料库", "é", "É", "ß", "Σ", "ab", "a"])
STRINGS = st.lists(st.sampled_from(["retry", "the conn", "connection", "ectio", "k", "ks", "sk", "is", "ss", "-rn",
                                    "src/", "ab", "a", "", ' "q', "rn s", "try the", "\0"]),
                   min_size=1, max_size=3).map("".join)


@st.composite
def expressions(draw):
    parts = draw(st.lists(STRINGS, min_size=1, max_size=4))
    quoted = ['"' + p.replace('"', '""') + '"' for p in parts]
    ops = draw(st.lists(st.sampled_from([" AND ", " OR ", " NOT ", " "]), min_size=len(quoted) - 1,
                        max_size=len(quoted) - 1))
    out = quoted[0]
    for op, q in zip(ops, quoted[1:]):
        out = f"({out}){op}{q}" if draw(st.booleans()) else f"{out}{op}{q}"
    return out


@settings(max_examples=300, deadline=None)
@given(texts=st.lists(st.lists(PIECES, max_size=30).map("".join), min_size=1, max_size=8),
       expression=expressions(), excluded=st.one_of(st.none(), STRINGS))
@example(texts=["retry the\0connection", "abc\0retry the connection", "\u017fk retry the connection"],
         expression='"retry the connection"', excluded=None)
@example(texts=["RETRY THE \u212aonnection", "retry the connection"], expression='"retry the konnection"', excluded="ss")
@example(texts=["a\u017fsk", "ASSK", "a\u0130sk"], expression='"ssk" OR "isk"', excluded="ssk")  # ſ is an s to FTS5
def test_the_probe_matches_as_the_whole_texts_do(texts, expression, excluded):
    rows = list(enumerate(texts, 1))
    asked = (expression,) + (() if excluded is None else ('"' + excluded.replace('"', '""') + '"',))
    kept = probe_strings(asked)
    conn = sqlite3.connect(":memory:")
    _table(conn, "whole", rows)
    _table(conn, "probe", list(_probe_rows(rows, False, kept)))
    for e in asked:
        assert matches(conn, "probe", e) == matches(conn, "whole", e), (e, kept)
