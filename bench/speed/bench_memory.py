"""Peak memory of a cold build (main process and helper, each) and of browsing a big index.
Prints figures; asserts nothing.

    python bench/speed/bench_memory.py --logs /tmp/tb-bench/logs/claude            # cold build of that tree
    python bench/speed/bench_memory.py --logs /tmp/tb-real/logs                    # a real-format tree (scripts/real_tree.py)
    python bench/speed/bench_memory.py --browse /tmp/tb-scale/index.sqlite3         # browse an index

Build: ``threadback index`` runs in a subprocess on a fresh index; psutil samples the resident
set of it and of every child (the helper process that prepares files, then the one that embeds
messages for search by meaning) every 20 ms; the peak of each is printed. Targets (issue 18): under 120 MB per process.

Browse: in a subprocess, what the app does on a big index (the agent and project lists, the
newest sessions, a long transcript in pages, a search of each query class); its peak RSS
(``ru_maxrss``). Target: under 150 MB on a 3 GB index.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]
BUILD_TARGET_MB = 120
BROWSE_TARGET_MB = 150

BROWSE = """
import resource, sys
sys.path.insert(0, {root!r})
from indexer import Index
from bench.speed.bench_search import CLASSES
index = Index({db!r}, readonly=True)
for agent, _ in index.agents():
    for project in index.projects(agent)[:20]:
        for day, _ in index.days(agent, project.project_path)[:3]:
            index.sessions_on_day(agent, project.project_path, day)
sessions = index.sessions(limit=200)
longest = max(sessions, key=lambda s: s.message_count)
for start in range(0, longest.message_count, 100):
    index.messages(longest, start, 100)
for _, query in CLASSES:
    index.search(query, limit=50)
    index.search(query, limit=50, by_session=True, evidence=1)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def build_peaks(logs: Path, scratch: Path) -> dict[str, float]:
    db = scratch / "index.sqlite3"
    # A real-format tree (scripts/real_tree.py) holds one folder per agent; a generated one is Claude's.
    flags = {"claude-code": "--claude-dir", "codex": "--codex-dir", "pi": "--pi-dir"}
    folders = [arg for name, flag in flags.items() if (logs / name).is_dir() for arg in (flag, str(logs / name))]
    argv = [sys.executable, "-m", "tui.cli", "--db", str(db), *(folders or ["--claude-dir", str(logs)]), "index", "-q"]
    env = {**os.environ, "HOME": str(scratch), "XDG_CONFIG_HOME": str(scratch / "config")}
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    main = psutil.Process(proc.pid)
    peaks = {"main": 0.0, "helper": 0.0, "embedding": 0.0}
    started = time.perf_counter()
    while proc.poll() is None:
        try:
            peaks["main"] = max(peaks["main"], main.memory_info().rss / 2**20)
            for child in main.children(recursive=True):
                role = _role(child)
                peaks[role] = max(peaks[role], child.memory_info().rss / 2**20)
        except psutil.Error:
            pass
        time.sleep(0.02)
    peaks["seconds"] = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"index run failed: {proc.stderr.read().decode(errors='replace')}")
    return peaks


def _role(child: psutil.Process) -> str:
    """The parse helper (``indexer.ingest.helper``) or an embedding process: the one beside the
    reading (``indexer.vectors.follow``), or ``indexer.vectors.build`` after it."""
    try:
        command = child.cmdline()
        return "embedding" if "indexer.vectors.build" in command or "indexer.vectors.follow" in command else "helper"
    except psutil.Error:
        return "helper"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--logs", type=Path, help="a Claude Code log folder, or a real-format tree, to index cold")
    ap.add_argument("--browse", type=Path, help="an index to browse")
    args = ap.parse_args()
    if args.logs:
        raw = sum(p.stat().st_size for p in args.logs.rglob("*.jsonl"))
        with tempfile.TemporaryDirectory(prefix="tb-mem-") as scratch:
            peaks = build_peaks(args.logs, Path(scratch))
        print(f"cold build of {raw / 1e6:,.0f} MB in {peaks['seconds']:.0f} s: peak RSS main {peaks['main']:.0f} MB, "
              f"helper {peaks['helper']:.0f} MB, embedding {peaks['embedding']:.0f} MB (target < {BUILD_TARGET_MB} MB each)")
    if args.browse:
        size = sum(p.stat().st_size for p in args.browse.parent.glob(args.browse.name + "*"))
        out = subprocess.run([sys.executable, "-c", BROWSE.format(root=str(ROOT), db=str(args.browse))],
                             capture_output=True, text=True, cwd=ROOT, check=True)
        print(f"browsing a {size / 1e9:.1f} GB index: peak RSS {out.stdout.strip()} MB (target < {BROWSE_TARGET_MB} MB)")


if __name__ == "__main__":
    main()
