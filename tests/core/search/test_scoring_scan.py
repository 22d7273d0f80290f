"""``scoring.scanner`` finds an ASCII term with ``str.find`` in the lower-cased text instead of
the term's case-insensitive pattern. It must give exactly the evidence the pattern gives: on
every message of the corpus for queries of each shape, and on generated text full of the
characters where lower-casing and the pattern disagree."""

from __future__ import annotations

import re
import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from indexer.search.candidates import Candidate
from indexer.search.matching import ASCII_LOOKALIKES, lowered
from indexer.search.plan import SHORT, make_plan
from indexer.search.query import parse_query
from indexer.search.scoring import (
    AVG_CHARS,
    B,
    KIND_WEIGHTS,
    MAX_OCCURRENCES,
    SCAN_CHARS,
    WHOLE,
    Evidence,
    _line_weight,
    quality,
    scanner,
)

NOW = 1_780_000_000.0
QUERIES = (
    "timeout", "Timeout", "the error", "TypeError", "uv", "UV index", "-s pytest", "grep -rn timeout src/",
    '"retry the connection"', "docker OR podman", "test -flaky", "error -uv", "資料庫", "驗收 deploy",
    "资料库", "回滚", "kelvin", "sk", "is", "i", "café", "İstanbul", "straße", "a_b", "src/", "def __init__",
)


def reference(candidate: Candidate, text: str, plan) -> Evidence | None:
    """The evidence as it was computed before ``scanner``: each term's pattern over the text."""
    head = text[:SCAN_CHARS]
    for t in plan.excluded:
        if t.kind == SHORT and t.needle and t.pattern.search(head):
            return None
    whole, partial, groups = [], [], set()
    for term in plan.terms:
        w = p = 0.0
        if term.cjk:
            w = float(min(MAX_OCCURRENCES, len(term.pattern.findall(head))))
        else:
            for seen, m in enumerate(term.pattern.finditer(head), 1):
                q = quality(head, m.start(), term)
                if q >= WHOLE:
                    w += q
                else:
                    p += q
                if seen == MAX_OCCURRENCES:
                    break
        if w or p:
            groups.add(term.group)
        whole.append(w)
        partial.append(p)
    line = 0.0
    if plan.line is not None:
        count = sum(1 for _ in zip(range(8), plan.line.finditer(head)))
        if count:
            line = count * _line_weight(candidate, text, plan.line_length)
    length = max(len(text), AVG_CHARS) if candidate.kind == "tool_result" else len(text)  # an output is never short
    norm = 1 - B + B * length / AVG_CHARS
    return Evidence(candidate, tuple(whole), tuple(partial), line, norm, KIND_WEIGHTS.get(candidate.kind, 0.8),
                    frozenset(groups))


def plans():
    return [make_plan(parse_query(q, NOW)) for q in QUERIES]


def test_every_code_point_lower_casing_disagrees_on_is_a_lookalike():
    """Outside ASCII, the characters a case-insensitive ASCII letter matches, or whose
    ``lower()`` holds ASCII, are exactly ``ASCII_LOOKALIKES`` (a change to ``re`` or to Unicode
    that added one fails here)."""
    letter = re.compile("[a-z]", re.IGNORECASE)
    found = set()
    for code in range(0x80, 0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        ch = chr(code)
        if letter.fullmatch(ch) or not ch.lower().isascii() and any(c.isascii() for c in ch.lower()):
            found.add(ch)
    assert found == set(ASCII_LOOKALIKES)


def test_lowered_refuses_text_it_would_misread():
    assert lowered("Plain ASCII") == "plain ascii"
    assert lowered("日本 Timeout") == "日本 timeout"
    for ch in ASCII_LOOKALIKES:
        assert lowered(f"x{ch}y") is None
    assert lowered("ẞ and Σ") is not None  # lower-cased to one character each: offsets kept


def test_the_corpus_scans_as_the_patterns_do(corpus_index_path):
    conn = sqlite3.connect(f"file:{corpus_index_path}?mode=ro", uri=True)
    rows = [r for r in conn.execute("SELECT id, session_rowid, ts, kind, role, text FROM messages WHERE indexed != 0")
            if isinstance(r[5], str)]
    conn.close()
    assert len(rows) > 1000
    found = 0
    for plan in plans():
        scan = scanner(plan)
        for r in rows:
            candidate = Candidate(*r[:5])
            expected = reference(candidate, r[5], plan)
            assert scan(candidate, r[5]) == expected, (plan.query.literal_line, r[0])
            found += expected is not None and bool(expected.groups)
    assert found > 500  # the queries find something: the comparison is not of empty evidence


TRICKY = st.sampled_from(["K", "k", "\u212a", "S", "s", "\u017f", "I", "i", "\u0130", "\u0131", "ß", "ẞ", "Σ",
                          "é", "É", " ", "\n", "_", "-", "/", "資", "资", "料", "庫", "库", "驗", "收", "Ǆ", "ǅ", "ǆ"])
WORDS = st.sampled_from(["kis", "Kiss", "sik", "ISSUE", "Timeout", "timeout", "TimeoutError", "-s", "uv", "UV",
                        "資料庫", "资料库", "驗收", "straße", "café"])


@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.one_of(TRICKY, WORDS), max_size=40).map("".join),
       query=st.sampled_from(["kis", "sik issue", "timeout -uv", "Timeout uv", "-s kiss", "資料庫 kis ss",
                             "驗收", "café is", "is ss", "k sik", "Kiss ISSUE kis"]))
def test_generated_text_scans_as_the_patterns_do(text, query):
    plan = make_plan(parse_query(query, NOW))
    candidate = Candidate(1, 1, 0.0, "text", "user")
    assert scanner(plan)(candidate, text) == reference(candidate, text, plan)


def test_each_lookalike_is_found_as_the_pattern_finds_it():
    """"ſ" is an "s" to a case-insensitive pattern, "K" (Kelvin) a "k", "ı" an "i": lower-cased
    text would miss them, so text holding one is left to the patterns."""
    candidate = Candidate(1, 1, 0.0, "text", "user")
    for query in ("ss kis", "is kiss", "kiss ss is"):  # two ASCII terms or more: the lower-cased text
        plan = make_plan(parse_query(query, NOW))
        for ch in ASCII_LOOKALIKES:
            text = f"{ch}s ki{ch} {ch}{ch} kiss \u212aiss {ch}"
            assert scanner(plan)(candidate, text) == reference(candidate, text, plan), (query, ch)
