"""The sessions of the meaning set, written out as Claude Code JSONL (``python sessions.py``).

Each session: the person's problem, the agent's reply, a Bash tool call and its output, the fix,
and the person's last word, in the record shapes Claude Code 2.1 writes (``parentUuid`` chains,
``message.content`` blocks, ``toolUseResult``). The committed ``*.jsonl`` files are what the tests
read; this script is how they were made.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent

# name: (project, [user, assistant, bash command, tool output, assistant, user])
SESSIONS = {
    "sqlite-lock": ("ledger", [
        "Two worker processes write to the same sqlite file and one of them keeps failing with "
        "'sqlite3.OperationalError: database is locked'. How do I stop that?",
        "Concurrent writers in SQLite serialize on a single write lock. With the default rollback journal a "
        "reader also blocks the writer. Let me check the journal mode first.",
        "sqlite3 ledger.db 'PRAGMA journal_mode;'",
        "delete",
        "Switch to WAL (PRAGMA journal_mode=WAL) so readers no longer block the writer, and open every "
        "connection with a busy_timeout of 5000 ms so a writer waits for the lock instead of raising at once.",
        "that fixed it, both workers run fine now"]),
    "ci-cron": ("pipelines", [
        "Our scheduled GitHub Actions workflow fails every week but pushes are green. Can you look?",
        "The workflow has `on: schedule: - cron: '0 6 * * 1'`, so it only runs at 06:00 UTC each Monday. "
        "Scheduled runs use the default branch and the ubuntu-latest image of that day.",
        "gh run list --workflow nightly.yml --limit 5",
        "completed failure  nightly  schedule  main  1d\ncompleted success  nightly  push      main  3d",
        "The scheduled job restores a cache key that expired after seven days, so only the weekly run starts "
        "cold and times out. I pinned the runner image and raised timeout-minutes for the schedule trigger.",
        "ok the weekly run passed this time"]),
    "timezone": ("calendar", [
        "Meeting reminders show up an hour early for users in Paris but fine in London.",
        "The reminder time is built with datetime.utcnow(), which is naive, and then formatted as if it were "
        "local time. Let me find where the offset is applied.",
        "grep -rn utcnow src/reminders/",
        "src/reminders/schedule.py:41:    start = datetime.utcnow() + delta",
        "Use timezone-aware datetimes: datetime.now(ZoneInfo(user.tz)) and convert with astimezone before "
        "display. Europe/Paris is UTC+1 in winter, which was the hour of difference.",
        "great, reminders are right now"]),
    "node-leak": ("gateway", [
        "The node API server's RSS grows until the container is OOM killed after about two days.",
        "A slow climb usually means something is retained per request. The logs show "
        "MaxListenersExceededWarning: Possible EventEmitter memory leak detected.",
        "node --inspect server.js & npx heapsnapshot-diff before.heapsnapshot after.heapsnapshot",
        "+ 48210 closures retained by EventEmitter 'config' listeners (onChange)",
        "Each request handler calls config.on('change', ...) and never removes it. Register the listener once "
        "at startup, or call removeListener when the request finishes.",
        "heap is flat now under load"]),
    "docker-size": ("webshop", [
        "Our container image is 2.3 GB and pulls take forever on the deploy nodes.",
        "The Dockerfile installs build tools and copies the whole repo including node_modules and .git. "
        "A multi-stage build keeps the compilers out of the final layer.",
        "docker history webshop:latest --format '{{.Size}} {{.CreatedBy}}' | head",
        "1.1GB COPY . /app\n640MB RUN apt-get install -y build-essential",
        "Build in a builder stage, copy only dist/ into python:3.12-slim, and add a .dockerignore for .git and "
        "node_modules. The result is 180 MB.",
        "deploys are quick again"]),
    "cors": ("dashboard", [
        "fetch from the React dev server to the API gives 'blocked by CORS policy: No "
        "Access-Control-Allow-Origin header is present'.",
        "The browser runs the page on localhost:3000 and calls localhost:8000, a different origin, so the API "
        "must answer the preflight OPTIONS request.",
        "curl -i -X OPTIONS http://localhost:8000/api/items -H 'Origin: http://localhost:3000'",
        "HTTP/1.1 405 Method Not Allowed",
        "Add the CORS middleware with allow_origins=['http://localhost:3000'] and allow_credentials=True; "
        "the preflight now returns 200 with the header.",
        "works in the browser now"]),
    "flaky-order": ("billing", [
        "test_invoice_totals passes alone but fails when the whole suite runs.",
        "That points at shared state left behind by another test. Running the suite in random order shows "
        "which one pollutes it.",
        "pytest -p randomly -p no:cacheprovider tests/ -x",
        "FAILED tests/test_invoice.py::test_invoice_totals - assert Decimal('118.00') == Decimal('100.00')",
        "test_tax_rates sets the module-level DEFAULT_RATE and never restores it. I made it a fixture that "
        "uses monkeypatch so the value is reset after each test.",
        "suite is green in any order now"]),
    "leaked-key": ("mobile-app", [
        "I pushed a commit that contained our .env file with the Stripe secret key. What now?",
        "First rotate the key in the Stripe dashboard: anything pushed must be treated as public. Then remove "
        "the file from history.",
        "git filter-repo --path .env --invert-paths",
        "Parsed 214 commits\nNew history written in 0.41 seconds",
        "Force-push the rewritten branches, ask collaborators to re-clone, and add .env to .gitignore. A "
        "pre-commit hook with detect-secrets catches the next one.",
        "rotated and cleaned up, thanks"]),
    "csv-excel": ("reports", [
        "The exported CSV looks fine in a text editor but Excel shows Ã© and Ã¼ instead of accented letters.",
        "Excel assumes the legacy Windows code page unless the file starts with a byte order mark.",
        "file -i export.csv",
        "export.csv: text/csv; charset=utf-8",
        "Write the file with encoding='utf-8-sig' so it begins with the BOM; Excel then decodes UTF-8 and the "
        "accents render.",
        "accents are right in Excel"]),
    "pg-slow": ("orders", [
        "The orders page takes eight seconds to load since we passed a million rows.",
        "Let me look at the query plan for the listing query.",
        "psql -c 'EXPLAIN ANALYZE SELECT * FROM order_lines WHERE order_id = 4512'",
        "Seq Scan on order_lines  (cost=0.00..48211.00 rows=12) (actual time=3120.4..7904.2)",
        "Postgres does not index foreign keys by itself. CREATE INDEX CONCURRENTLY order_lines_order_id_idx "
        "ON order_lines(order_id) turns the scan into an index lookup: 3 ms.",
        "page is instant now"]),
    "src-layout": ("toolkit", [
        "After pip install -e . the tests fail with ModuleNotFoundError: No module named 'toolkit'.",
        "The package lives under src/ but pyproject.toml does not tell setuptools where to find it.",
        "python -c 'import toolkit'",
        "ModuleNotFoundError: No module named 'toolkit'",
        "Add [tool.setuptools.packages.find] where = ['src'] and reinstall in editable mode; the import "
        "resolves to src/toolkit.",
        "imports work"]),
    "rate-limit": ("crawler", [
        "The crawler gets HTTP 429 Too Many Requests from the partner API after a few hundred calls.",
        "The API allows 10 requests a second and sends Retry-After. We fire requests as fast as the pool allows.",
        "grep -c ' 429 ' logs/crawler.log",
        "3412",
        "Honour Retry-After, otherwise back off exponentially with jitter (0.5s, 1s, 2s...) and cap concurrency "
        "with a token bucket at 8 per second.",
        "no more 429s in the last run"]),
    "ssl-proxy": ("scraper", [
        "requests.get fails with SSLError CERTIFICATE_VERIFY_FAILED on my work laptop but not at home.",
        "The office network intercepts TLS with its own root certificate, which certifi does not include.",
        "python -c \"import requests; requests.get('https://pypi.org')\"",
        "ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] unable to get local issuer certificate",
        "Export the company root CA and point REQUESTS_CA_BUNDLE at a bundle that includes it; do not set "
        "verify=False.",
        "works behind the proxy now"]),
    "react-loop": ("frontend", [
        "The profile page freezes the tab and the network panel shows the same request hundreds of times.",
        "useEffect depends on `filters`, an object literal created on every render, so the effect runs, sets "
        "state, re-renders and runs again.",
        "grep -n useEffect src/pages/Profile.tsx",
        "22:  useEffect(() => { load(filters) }, [filters])",
        "Memoise filters with useMemo (or depend on its fields) so the dependency is stable between renders.",
        "page loads once now"]),
    "disk-full": ("infra", [
        "CI jobs on our self-hosted runner die with 'No space left on device' during docker build.",
        "Old images and build cache pile up on self-hosted runners; nothing cleans them.",
        "docker system df",
        "Images 412 48.2GB reclaimable 46.9GB\nBuild Cache 1840 31.5GB",
        "Add a nightly `docker system prune -af --filter until=72h` and `docker builder prune` on the runner, "
        "and alert when the disk is 80% full.",
        "runner has 70 GB free again"]),
    "crashloop": ("search-svc", [
        "The search pod is in CrashLoopBackOff right after every deploy.",
        "The container is killed before it ever becomes ready. Let me check the events.",
        "kubectl describe pod search-7d9f -n prod | tail -5",
        "Liveness probe failed: Get http://10.0.3.7:8080/healthz: connection refused\nKilling container",
        "It loads a 2 GB index at startup, which takes 90 s, but the liveness probe starts after 10 s. Add a "
        "startupProbe with failureThreshold 30 so liveness only begins once it is up.",
        "rollout went through"]),
    "regex-cpu": ("logpipe", [
        "The log parser sits at 100% CPU on some lines and never finishes.",
        "A pattern with nested quantifiers like (\\w+\\s?)*$ backtracks exponentially on a line that almost "
        "matches.",
        "python -m cProfile -s cumtime parse.py sample.log | head",
        "  1    0.000  412.9  re.match",
        "Rewrite it without nested repetition (or use the regex module's atomic groups) and cap line length "
        "before matching. The sample parses in 40 ms.",
        "parser keeps up now"]),
    "pagination": ("catalog", [
        "Paging through products, the last item of every page never shows up anywhere.",
        "The offset is computed as page * size + 1 while the API's offset is zero-based, so one row is "
        "skipped at each boundary.",
        "grep -n offset src/api/products.py",
        "57:    offset = page * size + 1",
        "Use offset = (page - 1) * size for one-based pages and add a test that walks all pages and counts "
        "every row exactly once.",
        "count matches the table now"]),
    "dark-mode": ("docs-site", [
        "Can the docs site follow the operating system's night appearance automatically?",
        "Yes: define the colours as CSS custom properties and switch them in a prefers-color-scheme media "
        "query, with a manual toggle stored in localStorage.",
        "grep -rn 'color:' assets/css/main.css | wc -l",
        "143",
        "I replaced the 143 hard-coded colours with var(--fg), var(--bg) and friends and added "
        "@media (prefers-color-scheme: dark) { :root { --bg: #111; --fg: #eee } }.",
        "looks good at night"]),
    "double-job": ("payments", [
        "Customers got two payout emails this morning; the payout job seems to run twice.",
        "The deployment has two replicas and each one runs the scheduler, so every scheduled job fires once "
        "per replica.",
        "kubectl get deploy payments -o jsonpath='{.spec.replicas}'",
        "2",
        "Take a Postgres advisory lock (pg_try_advisory_lock) before running a job so only one replica "
        "executes it, or move the schedule to a single CronJob.",
        "only one email today"]),
}


def records(name: str, project: str, turns: list[str], day: int) -> list[dict]:
    sid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"threadback-meaning/{name}"))
    cwd = f"/home/dev/{project}"
    env = {"userType": "external", "entrypoint": "cli", "cwd": cwd, "sessionId": sid, "version": "2.1.114",
           "gitBranch": "main", "isSidechain": False}
    user, answer, command, output, fix, last = turns
    tool_id = "toolu_" + uuid.uuid5(uuid.NAMESPACE_URL, name).hex[:24]
    shapes = [
        ("user", {"role": "user", "content": user}),
        ("assistant", _assistant(name, 1, [{"type": "text", "text": answer}])),
        ("assistant", _assistant(name, 1, [{"type": "tool_use", "id": tool_id, "name": "Bash",
                                            "input": {"command": command, "description": "Look at the problem"}}])),
        ("user", {"role": "user", "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": output,
                                                "is_error": False}]}),
        ("assistant", _assistant(name, 2, [{"type": "text", "text": fix}])),
        ("user", {"role": "user", "content": last}),
    ]
    out, parent = [], None
    for i, (kind, message) in enumerate(shapes):
        rid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{name}/{i}"))
        record = {"parentUuid": parent, **env, "type": kind, "message": message, "uuid": rid,
                  "timestamp": f"2026-02-{day:02d}T09:{i * 3:02d}:10.000Z"}
        if kind == "user" and isinstance(message["content"], list):
            record["toolUseResult"] = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}
        out.append(record)
        parent = rid
    return out


def _assistant(name: str, n: int, content: list[dict]) -> dict:
    return {"model": "claude-opus-4-7", "id": f"msg_{uuid.uuid5(uuid.NAMESPACE_URL, f'{name}#{n}').hex[:24]}",
            "type": "message", "role": "assistant", "content": content, "stop_reason": None,
            "usage": {"input_tokens": 1200, "output_tokens": 180}}


def main() -> None:
    for day, (name, (project, turns)) in enumerate(SESSIONS.items(), 1):
        folder = HERE / "projects" / f"-home-dev-{project}"
        folder.mkdir(parents=True, exist_ok=True)
        recs = records(name, project, turns, day)
        (folder / f"{recs[0]['sessionId']}.jsonl").write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")


if __name__ == "__main__":
    main()
