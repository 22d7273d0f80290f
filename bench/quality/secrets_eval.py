"""Precision and recall of the secret detector (``indexer.text.secret_mask``) over its labelled set,
and its speed on ordinary and hostile text.

    .venv/bin/python bench/quality/secrets_eval.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[2]), str(Path(__file__).resolve().parents[2] / "tests"), str(Path(__file__).resolve().parents[2] / "tests" / "support")]

from indexer.text.secret_mask import find_secrets, mask_secrets  # noqa: E402
from secret_samples import LOOK_ALIKES, SECRETS  # noqa: E402


def main() -> None:
    found = sum(any(text[s.start:s.end] == secret for s in find_secrets(text)) for text, secret in SECRETS)
    false = [text for text in LOOK_ALIKES if find_secrets(text)]
    print(f"secrets found exactly: {found}/{len(SECRETS)} (recall {found / len(SECRETS):.1%})")
    print(f"look-alikes masked:    {len(false)}/{len(LOOK_ALIKES)}")
    for text in false:
        print(f"  false positive: {text!r}")
    corpus = Path(__file__).resolve().parents[2] / "tests" / "data" / "corpus"
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in sorted(corpus.rglob("*.jsonl")))
    started = time.perf_counter()
    hits = find_secrets(text)
    took = time.perf_counter() - started
    print(f"fixture corpus: {len(text) / 1e6:.1f} MB scanned in {took * 1000:.0f} ms "
          f"({len(text) / 1e6 / took:.0f} MB/s), {len(hits)} spans masked")
    for label, hostile in (("'a-' x 20000", "a-" * 20000 + " key"), ("'sk-' x 30000", "sk-" * 30000),
                           ("PEM BEGIN x 3000", "-----BEGIN PRIVATE KEY-----" * 3000)):
        started = time.perf_counter()
        mask_secrets(hostile)
        print(f"hostile {label}: {(time.perf_counter() - started) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
