"""Index and search speed on a synthetic log tree. Prints figures; asserts nothing.

    python bench/speed/bench_index.py --size-mb 1000 --files 50000 --out /tmp/hs-bench

Generates Claude Code, Codex and Pi logs with mixed English and Chinese text, ~70% of the
bytes in tool results, then measures:
  - cold index throughput (MB/s of raw logs) and the FTS-only baseline (the same extracted
    text inserted into a bare trigram table: what parsing must not dwarf)
  - no-change re-scan of every file
  - append to one file and update
  - search latency (median / p95) for every query class, message and session view
    (bench_search.py, which also runs alone on a kept index)
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.speed.bench_search import print_latencies  # noqa: E402
from indexer import Index, only_roots  # noqa: E402
from indexer.store.connection import remove_index_files  # noqa: E402
from indexer.store.side_file import cjk_bigrams  # noqa: E402

EN = ("the websocket test fails when the server starts late so we retry the connection with backoff and log "
      "the error message before raising timeout in the handler config loader migration database index query "
      "cache invalidation deploy pipeline docker compose kubernetes pod memory leak profiler flamegraph").split()
ZH = list("驗收設定檔案測試資料庫連線逾時錯誤訊息部署流程記憶體洩漏效能分析快取失效索引查詢伺服器啟動重試機制白話說明")
CJK_WORDS = ["驗收", "設定", "白話", "測試", "部署", "快取"]


def sentence(rng: random.Random, n: int) -> str:
    parts = []
    for _ in range(n):
        if rng.random() < 0.3:
            parts.append("".join(rng.choice(ZH) for _ in range(rng.randint(2, 8))))
            if rng.random() < 0.3:
                parts.append(rng.choice(CJK_WORDS))
        else:
            parts.append(rng.choice(EN))
    return " ".join(parts)


def tool_output(rng: random.Random, size: int) -> str:
    lines = []
    total = 0
    while total < size:
        line = f"{rng.randint(1, 999):>4}→ " + sentence(rng, rng.randint(6, 14))
        lines.append(line)
        total += len(line.encode()) + 1
    return "\n".join(lines)


def claude_session(rng: random.Random, sid: str, cwd: str, target: int, t0: float) -> bytes:
    out, size, i = [], 0, 0
    while size < target:
        ts = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(t0 + i * 30))
        env = {"sessionId": sid, "cwd": cwd, "timestamp": ts, "version": "2.1.0", "gitBranch": "main"}
        recs = [
            {"type": "user", "uuid": f"{sid}-u{i}", **env, "message": {"role": "user", "content": sentence(rng, rng.randint(8, 30))}},
            {"type": "assistant", "uuid": f"{sid}-a{i}", **env, "message": {"id": f"msg_{sid}_{i}", "role": "assistant", "model": "claude-x",
             "content": [{"type": "text", "text": sentence(rng, rng.randint(15, 60))}]}},
            {"type": "assistant", "uuid": f"{sid}-t{i}", **env, "message": {"id": f"msg_{sid}_{i}", "role": "assistant", "model": "claude-x",
             "content": [{"type": "tool_use", "id": f"toolu_{sid}_{i}", "name": "Bash", "input": {"command": f"grep -rn {rng.choice(EN)} src/"}}]}},
            {"type": "user", "uuid": f"{sid}-r{i}", **env, "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"toolu_{sid}_{i}", "content": tool_output(rng, rng.randint(800, 5000))}]}},
        ]
        for r in recs:
            b = (json.dumps(r, ensure_ascii=False) + "\n").encode()
            out.append(b)
            size += len(b)
        i += 1
    return b"".join(out)


def generate(root: Path, size_mb: int, files: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    per_file = max(2000, size_mb * 1_000_000 // files)
    total = 0
    t0 = 1767225600.0  # 2026-01-01
    for n in range(files):
        project = f"proj{n % 40}"
        sid = f"{n:08x}-0000-4000-8000-{n:012x}"
        folder = root / "claude" / f"-home-dev-{project}"
        folder.mkdir(parents=True, exist_ok=True)
        data = claude_session(rng, sid, f"/home/dev/{project}", int(per_file * rng.uniform(0.5, 1.5)), t0 + n * 600)
        (folder / f"{sid}.jsonl").write_bytes(data)
        total += len(data)
    return total


def fts_only_baseline(index_path: Path, scratch: Path, *, with_bigrams: bool = False) -> tuple[float, int]:
    """Insert the index's own extracted text into a bare trigram table: the floor for cold
    indexing. ``with_bigrams`` also fills a CJK bigram table, as the real index must."""
    src = sqlite3.connect(index_path)
    texts = [r[0] for r in src.execute("SELECT text FROM messages WHERE indexed != 0")]
    src.close()
    path = scratch / "baseline.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(text, tokenize='trigram')")
    conn.execute("CREATE VIRTUAL TABLE b USING fts5(grams, content='', tokenize='unicode61', detail='none', columnsize=0)")
    start = time.perf_counter()
    conn.execute("BEGIN")
    for i, text in enumerate(texts, 1):
        conn.execute("INSERT INTO t(rowid, text) VALUES (?, ?)", (i, text))
        if with_bigrams and (grams := cjk_bigrams(text)):
            conn.execute("INSERT INTO b(rowid, grams) VALUES (?, ?)", (i, grams))
        if i % 10000 == 0:
            conn.execute("COMMIT")
            conn.execute("BEGIN")
    conn.execute("COMMIT")
    seconds = time.perf_counter() - start
    conn.close()
    return seconds, sum(len(t.encode()) for t in texts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=int, default=200)
    ap.add_argument("--files", type=int, default=5000)
    ap.add_argument("--out", type=Path, default=Path("/tmp/threadback-bench"))
    ap.add_argument("--keep", action="store_true", help="reuse an existing generated tree")
    ap.add_argument("--repeat", type=int, default=1, help="cold builds, each paired with a baseline run")
    args = ap.parse_args()

    logs = args.out / "logs"
    if not (args.keep and logs.exists()):
        shutil.rmtree(args.out, ignore_errors=True)
        t = time.perf_counter()
        raw = generate(logs, args.size_mb, args.files)
        print(f"generated {raw / 1e6:,.0f} MB in {args.files:,} files ({time.perf_counter() - t:.0f} s)")
    raw = sum(p.stat().st_size for p in logs.rglob("*.jsonl"))
    db = args.out / "index.sqlite3"
    roots = only_roots({"claude-code": [logs / "claude"]})

    # This machine's speed drifts by tens of percent over minutes: each cold build is paired
    # with a baseline run right after it, and the ratio is taken per pair.
    ratios = []
    for attempt in range(1, args.repeat + 1):
        remove_index_files(db)
        index = Index(db)
        t = time.perf_counter()
        summary = index.update(roots)
        cold = time.perf_counter() - t
        stats = index.stats()
        index.close()
        print(f"[{attempt}] cold index: {raw / 1e6:,.0f} MB raw, {summary.files_seen:,} files, {stats.messages:,} messages "
              f"in {cold:.1f} s = {raw / 1e6 / cold:.1f} MB/s; index {stats.size_bytes / 1e6:,.0f} MB", flush=True)
        base_s, text_bytes = fts_only_baseline(db, args.out)
        ratios.append(cold / base_s)
        print(f"[{attempt}] FTS-only baseline: {text_bytes / 1e6:,.1f} MB of extracted text inserted in {base_s:.1f} s; "
              f"full indexing costs {cold / base_s:.2f}x that (target ≤ 1.5x)", flush=True)
    if args.repeat > 1:
        print(f"cold index against the FTS-only baseline over {args.repeat} pairs: median {statistics.median(ratios):.2f}x "
              f"(each: {', '.join(f'{r:.2f}x' for r in ratios)})")
    both_s, _ = fts_only_baseline(db, args.out, with_bigrams=True)
    print(f"FTS + CJK bigram baseline (both indexes the search needs): {both_s:.1f} s; "
          f"the last cold build costs {cold / both_s:.2f}x that", flush=True)
    index = Index(db)

    t = time.perf_counter()
    again = index.update(roots)
    print(f"no-change re-scan of {again.files_seen:,} files: {time.perf_counter() - t:.2f} s (target < 1 s at 50k files)")

    victim = next(iter(sorted((logs / "claude").rglob("*.jsonl"))))
    rng = random.Random(1)
    with victim.open("ab") as fh:
        # A fresh session id each run: the same lines twice would be deduplicated.
        fh.write(claude_session(rng, f"append-{time.time_ns()}", "/home/dev/proj0", 4000, time.time()))
    t = time.perf_counter()
    grown = index.update(roots)
    print(f"append to one file + update: {(time.perf_counter() - t) * 1000:.0f} ms ({grown.messages_added} messages added)")

    print_latencies(index)
    index.close()


if __name__ == "__main__":
    main()
