"""Every parser reads any JSON value in any field as possibly the wrong type: an odd value
costs that value, an odd line costs that line, and nothing ever raises.

The records are the newest-format fixtures in tests/data/newest (one session tree per agent).
An exhaustive pass replaces every top-level field (and every field of the message or payload
inside) by a value of each other JSON type; hypothesis then puts random JSON values at random
depths, random JSON lines and random bytes into each parser.
"""

from __future__ import annotations

import json
import math
import shutil
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer import Index
from indexer.models import KINDS, ROLES
from indexer.sources import PARSERS
from indexer.sources.base import ParseOutput, SessionMeta
from indexer.sources.fields import LATEST_TS

from conftest import FIXED_NOW
from test_parsers_newest import newest_roots

NEWEST = Path(__file__).resolve().parents[2] / "data" / "newest"
FILES = {
    "claude-code": NEWEST / "claude-code/projects/-w-shop/5e1c0a77-2b1d-4c8e-9f10-0c1a2b3c4d5e.jsonl",
    "codex": NEWEST / "codex/sessions/2026/05/10/rollout-2026-05-10T09-00-00-019e2a10-5c4d-7e8f-9a0b-1c2d3e4f5a6b.jsonl",
    "pi": NEWEST / "pi/sessions/--w-notes--/2026-05-20T08-00-00-000Z_7a8b9c0d-1e2f-4a3b-8c4d-5e6f7a8b9c0d.jsonl",
}
RECORDS = {agent: [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] for agent, path in FILES.items()}
# Where each agent keeps a record's content one level down.
INNER = {"claude-code": "message", "codex": "payload", "pi": "message"}
# Fields whose value is the line's content or says what the line is: replacing them may cost
# the line's messages. Replacing any other field (times, ids, flags, paths...) must not.
CARRIERS = {
    "claude-code": {"type", "message", "attachment", "subtype", "summary", "content", "error", "retryAttempt",
                    "maxRetries", "level", "prNumber", "prUrl", "prRepository", "customTitle"},
    "codex": {"type", "payload", "content", "message", "summary", "name", "arguments", "input", "action", "output",
              "reason", "prompt", "new_thread_id", "new_agent_nickname", "new_agent_role", "codex_error_info",
              "images", "local_images", "thread_name"},
    "pi": {"type", "message", "role", "content", "summary", "errorMessage", "stopReason", "name", "arguments"},
}
VALUES = {"null": None, "bool": True, "int": 7, "float": 2.5, "string": "odd", "array": ["odd", 1], "object": {"odd": [1]}}


def json_type(value: object) -> str:
    if value is None:
        return "null"
    for name, python in (("bool", bool), ("int", int), ("float", float), ("string", str), ("array", list)):
        if isinstance(value, python):
            return name
    return "object"


def parse(agent: str, lines: list[bytes], *, first_line_no: int = 1, state: dict | None = None) -> ParseOutput:
    """Run one parser as ingest does, and check that what it returns can be stored."""
    meta, state = SessionMeta(), {} if state is None else state
    out = PARSERS[agent].parse(FILES[agent], b"".join(line + b"\n" for line in lines), first_line_no, state, meta)
    assert_storable(out, meta, state)
    return out


def encode(record: object) -> bytes:
    return json.dumps(record, ensure_ascii=False).encode("utf-8")


def assert_storable(out: ParseOutput, meta: SessionMeta, state: dict) -> None:
    for m in out.messages:
        assert m.role in ROLES and m.kind in KINDS
        assert isinstance(m.text, str) and isinstance(m.dedup, str) and isinstance(m.indexed, bool)
        for optional in (m.tool_name, m.detail, m.mark):
            assert optional is None or isinstance(optional, str)
        assert m.ts is None or (isinstance(m.ts, float) and math.isfinite(m.ts) and 0 <= m.ts < LATEST_TS)
    for value in (meta.session_id, meta.parent_session_id, meta.branched_from, meta.project_path,
                  meta.resume_cwd, meta.git_branch, meta.model, meta.title):
        assert value is None or isinstance(value, str)
    assert isinstance(meta.title_rank, int)
    json.dumps(state)  # ingest keeps the parser's state as JSON


def texts(out: ParseOutput) -> Counter:
    return Counter(m.text for m in out.messages)


def one_of_each_shape(agent: str) -> list[int]:
    """Indexes of one record per (type, subtype, inner type): the exhaustive pass stays quick."""
    seen, chosen = set(), []
    for i, rec in enumerate(RECORDS[agent]):
        inner = rec.get(INNER[agent])
        shape = (rec.get("type"), rec.get("subtype"), inner.get("type") if isinstance(inner, dict) else None,
                 inner.get("role") if isinstance(inner, dict) else None)
        if shape not in seen:
            seen.add(shape)
            chosen.append(i)
    return chosen


def mutations(record: dict, inner_key: str):
    """(where, field, replaced record) for every field, top level and inner, and every other type."""
    for key, original in record.items():
        for name, value in VALUES.items():
            if name != json_type(original):
                yield "top", key, {**record, key: value}
    inner = record.get(inner_key)
    if isinstance(inner, dict):
        for key, original in inner.items():
            for name, value in VALUES.items():
                if name != json_type(original):
                    yield "inner", key, {**record, inner_key: {**inner, key: value}}


@pytest.mark.parametrize("agent", sorted(FILES))
def test_every_field_of_every_type_costs_at_most_its_own_content(agent):
    records = RECORDS[agent]
    lines = [encode(r) for r in records]
    whole = texts(parse(agent, lines))
    checked = 0
    for i in one_of_each_shape(agent):
        others = texts(parse(agent, lines[:i] + lines[i + 1:]))
        for where, key, mutated in mutations(records[i], INNER[agent]):
            out = parse(agent, [*lines[:i], encode(mutated), *lines[i + 1:]])
            got = texts(out)
            # The other lines are kept whatever this one holds...
            assert not (others - got), (where, key, mutated)
            # ...and so is this line's content, unless the field replaced carried it.
            if key not in CARRIERS[agent]:
                assert not (whole - got), (where, key, mutated)
            checked += 1
    assert checked > 200


def test_the_issues_odd_lines_cost_one_line_each():
    odd = {
        "claude-code": [{"type": "user", "message": "error"}, {"type": "assistant", "message": "error"},
                        {"type": "system", "subtype": "api_error", "error": ["odd"], "retryAttempt": "one"}],
        "codex": [{"type": "response_item", "payload": "error"}, {"type": "event_msg", "payload": {"type": "user_message", "message": {"odd": 1}}},
                  {"type": "session_meta", "payload": {"id": 5, "source": {"subagent": "review"}, "parent_thread_id": []}}],
        "pi": [{"type": "message", "message": "error"}, {"type": "session", "version": "v3", "id": ["x"], "cwd": 3},
               {"type": "message", "message": {"role": "assistant", "content": "plain", "stopReason": 1}}],
    }
    for agent, bad in odd.items():
        lines = [encode(r) for r in RECORDS[agent]]
        good = texts(parse(agent, lines))
        mixed = parse(agent, [lines[0], *[encode(b) for b in bad], *lines[1:]])
        assert not (good - texts(mixed)), agent


def test_odd_lines_in_every_agents_log_cost_nothing_else_in_an_index_run(tmp_path):
    logs = tmp_path / "logs"
    shutil.copytree(NEWEST, logs)
    odd = {"claude-code": [{"type": "user", "message": "error"}, {"type": "assistant", "message": "error"}],
           "codex": [{"type": "response_item", "payload": {"type": "message", "role": ["user"], "content": 5}}],
           "pi": [{"type": "message", "message": "error"}, {"type": "session", "version": "v3"}]}
    for agent, records in odd.items():
        log = logs / FILES[agent].relative_to(NEWEST)
        good = log.read_bytes().splitlines(keepends=True)
        log.write_bytes(b"".join([good[0], *[encode(r) + b"\n" for r in records], *good[1:]]))
    with Index(tmp_path / "i.sqlite3") as index:
        summary = index.update(newest_roots(logs), now=FIXED_NOW)
        assert not summary.problems and summary.files_new == 8
        for query in ("saveShippingAddress", '"drop bursts"', '"first names only"'):
            assert index.search(query, now=FIXED_NOW).hits, query


# -- hypothesis -----------------------------------------------------------------------------
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=12,
)
AGENTS = st.sampled_from(sorted(FILES))
PROPERTY = settings(max_examples=250, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


def paths(value: object, prefix: tuple = ()):
    """Every place in a record a value can be put."""
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from paths(child, (*prefix, i))


def put(value: object, path: tuple, new: object) -> object:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: put(value[head], rest, new)}
    copy = list(value)
    copy[head] = put(copy[head], rest, new)
    return copy


@PROPERTY
@given(agent=AGENTS, data=st.data(), new=JSON)
def test_any_value_at_any_depth_never_raises(agent, data, new):
    records = RECORDS[agent]
    i = data.draw(st.integers(0, len(records) - 1))
    where = data.draw(st.sampled_from(list(paths(records[i]))[1:]))
    lines = [encode(r) for r in records]
    lines[i] = encode(put(records[i], where, new))
    parse(agent, lines)


@PROPERTY
@given(agent=AGENTS, values=st.lists(JSON, max_size=6), first=st.sampled_from([1, 40]))
def test_random_json_lines_never_raise(agent, values, first):
    state: dict = {}
    parse(agent, [encode(r) for r in RECORDS[agent]], state=state)
    parse(agent, [encode(v) for v in values], first_line_no=first, state=state)


@PROPERTY
@given(agent=AGENTS, data=st.binary(max_size=3000), first=st.sampled_from([1, 40]))
def test_random_bytes_never_raise(agent, data, first):
    state: dict = {}
    parse(agent, [encode(r) for r in RECORDS[agent]], state=state)
    meta = SessionMeta()
    out = PARSERS[agent].parse(FILES[agent], data, first, state, meta)
    assert_storable(out, meta, state)


def test_a_line_nested_thousands_deep_is_one_bad_line():
    deep = b"[" * 5000 + b"]" * 5000
    for agent in FILES:
        out = parse(agent, [encode(r) for r in RECORDS[agent][:2]] + [deep])
        assert out.bad_lines == 1 and out.first_bad_line == 3
