"""The real-format tree a benchmark indexes (``scripts/real_tree.py``): each copy's logs are the
corpus with every id made that copy's, written through the places found once per log."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))

from real_tree import CORPUS, build_tree, copy_id  # noqa: E402


def test_each_copy_is_the_corpus_with_its_own_ids(tmp_path):
    files, size = build_tree(CORPUS, tmp_path / "logs", copies=3)
    sources = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json"))
    assert files == 3 * len(sources)
    for copy in (0, 2):
        for src in sources:
            rel = src.relative_to(CORPUS)
            name = copy_id(str(rel).encode("utf-8", "surrogateescape"), copy).decode("utf-8", "surrogateescape")
            if name == str(rel) and copy:
                name = str(rel.with_name(f"{rel.stem}-copy{copy}{rel.suffix}"))
            assert (tmp_path / "logs" / name).read_bytes() == copy_id(src.read_bytes(), copy), name
    biggest = max(sources, key=lambda p: p.stat().st_size).read_bytes()
    assert copy_id(biggest, 1) != copy_id(biggest, 2)  # ids do change
