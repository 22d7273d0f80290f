"""A tree of real agent logs at scale: the reference corpus copied N times, each copy's ids its
own, then indexed with the archive on. Prints figures; asserts nothing.

    python scripts/real_tree.py --copies 100 --out /tmp/tb-real
    python bench/speed/bench_size.py --db /tmp/tb-real/index.sqlite3 --logs /tmp/tb-real/logs

Why: the generated tree (``bench_index.py``) is Claude-style text made up for speed runs, 12% of
its bytes searchable. Real logs carry much more per line that nobody searches (ids, versions,
usage, cwd on every record), so an index's share of them differs; the corpus alone (7 MB) is too
small to say, since a small index is mostly page slack. Copies of it are real formats at a size
where slack no longer counts.

Each copy changes every UUID (Claude's message and session ids, Codex's thread ids, Pi's session
ids, the file names that carry them), every subagent id (its file name and ``agentId``) and every API id (Claude's ``toolu_`` and ``msg_``: an
assistant turn written over several lines dedupes on its ``msg_`` id) by four characters, keeping
their length: messages dedupe on those ids, so unchanged copies would be dropped as repeats, and
same-length ids keep every other byte where it was. The text is the corpus's own, repeated.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "corpus"
AGENT_FOLDERS = {"claude-code": "claude-code", "codex": "codex", "pi": "pi"}
_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-([0-9a-f]{4})([0-9a-f]{8})")
_API_ID = re.compile(rb"((?<![A-Za-z0-9_])(?:toolu|msg|req|call)_[A-Za-z0-9]{2})([A-Za-z0-9]{4})")
_AGENT_ID = re.compile(rb'(agent-|"agentId": ?")[0-9a-f]{4}')


def copy_tag(copy: int) -> bytes:
    """The four hex characters that make an id this copy's."""
    return b"%04x" % (copy % 0x10000)


def copy_id(data: bytes, copy: int) -> bytes:
    """``data`` with every UUID, subagent id and API id (``toolu_``, ``msg_``, ``req_``,
    ``call_``) made this copy's, the same length."""
    tag = copy_tag(copy)
    data = _UUID.sub(lambda m: m.group(0)[:24] + tag + m.group(2), data)
    data = _AGENT_ID.sub(lambda m: m.group(1) + tag, data)
    return _API_ID.sub(lambda m: m.group(1) + tag, data)


def tag_places(data: bytes) -> list[int]:
    """Where ``copy_id`` writes its four characters in ``data``: the same for every copy, since
    each id keeps its length and a tag is hex, which every pattern reads as it read the id's own
    characters (a 20 GB tree in minutes; the substitutions a copy at a time took hours)."""
    places = [m.start(1) for m in _UUID.finditer(data)]
    places += [m.end(1) for m in _AGENT_ID.finditer(data)]
    places += [m.start(2) for m in _API_ID.finditer(data)]
    return places


def build_tree(corpus: Path, out: Path, copies: int) -> tuple[int, int]:
    """(files, bytes) written under ``out``, one folder per agent as the corpus has them."""
    files = size = 0
    sources = [p for p in corpus.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json")]
    originals = {src: src.read_bytes() for src in sources}
    places = {src: tag_places(copy_id(data, 0)) for src, data in originals.items()}
    for copy in range(copies):
        tag = copy_tag(copy)
        for src in sources:
            rel = src.relative_to(corpus)
            name = copy_id(str(rel).encode("utf-8", "surrogateescape"), copy).decode("utf-8", "surrogateescape")
            if name == str(rel) and copy:
                name = str(rel.with_name(f"{rel.stem}-copy{copy}{rel.suffix}"))  # no id in the name
            dest = out / name
            dest.parent.mkdir(parents=True, exist_ok=True)
            data = bytearray(originals[src])
            for at in places[src]:
                data[at:at + 4] = tag
            dest.write_bytes(data)
            files += 1
            size += len(data)
    return files, size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--copies", type=int, default=100)
    ap.add_argument("--out", type=Path, required=True, help="emptied first: logs/ and index.sqlite3 go here")
    ap.add_argument("--corpus", type=Path, default=CORPUS)
    args = ap.parse_args()
    from indexer import Index, only_roots

    if args.out.exists():
        shutil.rmtree(args.out)
    logs = args.out / "logs"
    t = time.perf_counter()
    files, size = build_tree(args.corpus, logs, args.copies)
    print(f"tree: {files:,} files, {size / 1e6:,.1f} MB ({args.copies} copies of {args.corpus}) in "
          f"{time.perf_counter() - t:.1f} s")
    roots = only_roots({agent: [logs / folder] for agent, folder in AGENT_FOLDERS.items() if (logs / folder).is_dir()})
    t = time.perf_counter()
    with Index(args.out / "index.sqlite3") as index:
        summary = index.update(roots, archive=True)
        stats = index.stats()
    print(f"indexed with the archive on in {time.perf_counter() - t:.1f} s: {stats.messages:,} messages, "
          f"{stats.sessions:,} sessions, {len(summary.problems)} problems")
    print(f"next: python bench/speed/bench_size.py --db {args.out / 'index.sqlite3'} --logs {logs}")


if __name__ == "__main__":
    main()
