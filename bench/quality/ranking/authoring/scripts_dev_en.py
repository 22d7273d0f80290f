"""English development sessions: a flaky test, a React crash, a busy port, a circular import
(with a subagent), and the 'uv' / 'ty' / 'port' / 'act' substring traps."""

from __future__ import annotations

from bench.quality.ranking.authoring.model import Script, agent, bash, edit, grep, read, task, user

FLAKY_LOADER_TIMEZONE = Script(
    slug="flaky-loader-timezone",
    agent="claude-code",
    lang="en",
    cwd="/home/mei/src/ingest",
    start="2026-04-14T10:02:00Z",
    about="test_parse_dates in tests/test_loader.py failed on CI only: the loader used naive local time and "
    "CI runs in UTC; reproduced with TZ=UTC and made the loader timezone-aware",
    traps="split query: 'flaky' is only in the user's prompts, 'timezone' only in the agent's replies",
    turns=(
        user("test_parse_dates in tests/test_loader.py is flaky: it fails on CI maybe one run in three and "
             "always passes on my laptop. can you find out why before I just add a retry"),
        agent("Let me run it locally a few times first.",
              bash("pytest -q tests/test_loader.py", "..........\n10 passed in 0.84s"),
              bash("for i in $(seq 20); do pytest -q tests/test_loader.py -k parse_dates || break; done",
                   "1 passed, 9 deselected in 0.31s\n" * 3 + "..."),
              read("src/ingest/loader.py",
                   "from datetime import datetime\n\ndef parse_dates(rows):\n    today = datetime.now().date()\n"
                   "    for row in rows:\n        row['age_days'] = (today - row['created'].date()).days\n    return rows\n")),
        agent("It never fails here. `parse_dates` takes `datetime.now()` without a timezone, so \"today\" is the "
              "machine's local date, while the fixture builds `created` in UTC. Your laptop is UTC+2; the CI "
              "runners are UTC. Let me run it under the CI timezone.",
              bash("TZ=UTC pytest -q tests/test_loader.py -k parse_dates",
                   "F\n=================================== FAILURES ===================================\n"
                   "______________________________ test_parse_dates ______________________________\n"
                   ">       assert rows[0]['age_days'] == 1\nE       assert 0 == 1\n1 failed, 9 deselected in 0.29s",
                   error=True)),
        agent("Reproduced with `TZ=UTC`. It isn't random: it depends on the timezone and the hour. Between "
              "midnight UTC and your local midnight the two dates differ by a day, which is when the nightly "
              "CI jobs run. I'll make the loader timezone-aware and freeze the clock in the test.",
              edit("src/ingest/loader.py", "from datetime import datetime\n", "from datetime import datetime, timezone\n"),
              edit("src/ingest/loader.py", "    today = datetime.now().date()", "    today = datetime.now(timezone.utc).date()"),
              edit("tests/test_loader.py", "def test_parse_dates(rows):",
                   "@freeze_time(\"2026-04-14 00:30:00\", tz_offset=0)\ndef test_parse_dates(rows):"),
              bash("TZ=UTC pytest -q tests/test_loader.py && TZ=Asia/Tokyo pytest -q tests/test_loader.py && TZ=America/Los_Angeles pytest -q tests/test_loader.py",
                   "..........\n10 passed in 0.88s\n..........\n10 passed in 0.86s\n..........\n10 passed in 0.87s"),
              thinking="Under TZ=UTC it fails between 00:00 UTC and local midnight, when the two dates differ. That's why it's 1 in 3 on CI: the nightly jobs run around midnight UTC."),
        agent("Fixed without a retry: `parse_dates` uses `datetime.now(timezone.utc)`, and the test freezes "
              "the clock at 00:30 UTC, the hour that used to break. It passes under UTC, Asia/Tokyo and "
              "America/Los_Angeles."),
        user("nice. so it was never flaky, just my laptop being in Berlin"),
        agent("Right: deterministic for a given timezone and hour. Adding `TZ=UTC` to the CI env would have "
              "hidden it; the code fix is the right one."),
    ),
)

REACT_UNDEFINED_MAP = Script(
    slug="react-undefined-map",
    agent="claude-code",
    lang="en",
    cwd="/home/sam/work/dashboard",
    start="2026-01-22T15:30:00Z",
    about="the orders page crashed with 'Cannot read properties of undefined (reading 'map')' after the "
    "API started wrapping lists in {items}; fixed OrdersTable.tsx and the fetch hook",
    traps="the user says 'exactly' and React is everywhere: 'act' and 'react' substrings",
    turns=(
        user("the orders page is blank since this morning and the console says\n\nTypeError: Cannot read "
             "properties of undefined (reading 'map')\n    at OrdersTable (OrdersTable.tsx:42:23)\n\nthe react "
             "devtools show the component mounting and then it's gone"),
        agent("",
              read("src/components/OrdersTable.tsx",
                   "export function OrdersTable({ orders }: { orders: Order[] }) {\n  // ...\n  return (\n    <tbody>\n"
                   "      {orders.map((o) => <OrderRow key={o.id} order={o} />)}\n    </tbody>\n  )\n}\n"),
              grep("useOrders", "src", "src/hooks/useOrders.ts:8:  return { orders: data?.orders, isLoading }\n"
                   "src/pages/OrdersPage.tsx:14:  const { orders, isLoading } = useOrders(shopId)"),
              bash("curl -s localhost:8000/api/orders?shop=12 | head -c 200",
                   "{\"items\":[{\"id\":9913,\"status\":\"paid\",\"total\":\"42.10\"}],\"next_cursor\":\"9912\"}")),
        agent("The API changed shape: it now returns `{items, next_cursor}` instead of `{orders}`, so "
              "`data?.orders` is `undefined` and `orders.map` throws during render. React then unmounts the "
              "whole tree because there is no error boundary. Is the pagination change intended?"),
        user("yes exactly, the backend team added cursors yesterday. that's exactly it"),
        agent("Then I'll read `items` in the hook, keep the cursor for later, and make the table safe while loading.",
              edit("src/hooks/useOrders.ts", "  return { orders: data?.orders, isLoading }",
                   "  return { orders: data?.items ?? [], nextCursor: data?.next_cursor, isLoading }"),
              edit("src/components/OrdersTable.tsx", "      {orders.map((o) => <OrderRow key={o.id} order={o} />)}",
                   "      {(orders ?? []).map((o) => <OrderRow key={o.id} order={o} />)}"),
              bash("npm test -- OrdersTable", "PASS  src/components/OrdersTable.test.tsx\n  ✓ renders rows (23 ms)\n  ✓ renders empty while loading (4 ms)")),
        agent("The page renders again. `useOrders` reads `items` (and exposes `nextCursor` for the "
              "pagination you'll want next), and `OrdersTable` tolerates a missing list while loading."),
        user("perfect, exactly what I needed. can you also add an error boundary so one broken widget doesn't blank the page"),
        agent("",
              edit("src/pages/OrdersPage.tsx", "<OrdersTable orders={orders} />",
                   "<ErrorBoundary fallback={<WidgetError />}>\n  <OrdersTable orders={orders} />\n</ErrorBoundary>"),
              bash("npm run typecheck", "> tsc --noEmit\n")),
        agent("Wrapped the table in `ErrorBoundary` with a small fallback; a render error now stays inside the "
              "widget."),
    ),
)

PORT_IN_USE = Script(
    slug="port-3000-in-use",
    agent="claude-code",
    lang="en",
    cwd="/home/sam/work/dashboard",
    start="2026-03-18T08:50:00Z",
    about="npm run dev failed with EADDRINUSE on port 3000: a stale next dev from a closed terminal; killed "
    "it and made the dev port configurable",
    turns=(
        user("npm run dev fails:\n\nError: listen EADDRINUSE: address already in use :::3000\n\nI have nothing "
             "else running that I know of"),
        agent("Something still holds port 3000. Let me find it.",
              bash("lsof -i :3000",
                   "COMMAND   PID USER   FD   TYPE DEVICE SIZE/OFF NODE NAME\nnode    48213  sam   23u  IPv6 0x8c1f      0t0  TCP *:hbci (LISTEN)"),
              bash("ps -o pid,etime,command -p 48213",
                   "  PID     ELAPSED COMMAND\n48213  2-03:11:09 node /home/sam/work/dashboard/node_modules/.bin/next dev")),
        agent("PID 48213 is a stale `next dev` process started two days ago, probably from a terminal tab that "
              "was closed without stopping it. Kill it?"),
        user("yes, and make it so I can pick another port without editing package.json"),
        agent("",
              bash("kill 48213 && sleep 1 && lsof -i :3000 || echo 'port 3000 is free'", "port 3000 is free"),
              edit("package.json", "\"dev\": \"next dev\"", "\"dev\": \"next dev -p ${PORT:-3000}\""),
              bash("PORT=3001 npm run dev -- --help >/dev/null; echo ok", "ok")),
        agent("Port 3000 is free again. `npm run dev` now honours `PORT`, so `PORT=3001 npm run dev` runs a "
              "second copy next to the first."),
    ),
)

BILLING_SUBAGENT = Script(
    slug="import-cycle-subagent",
    agent="claude-code",
    lang="en",
    cwd="/home/sam/work/billing",
    start="2026-04-02T11:06:00Z",
    about="subagent: found every module importing from billing.models and the cycle through billing.reports",
    description="Map imports of billing.models",
    turns=(
        user("Find every module under src/billing that imports from billing.models, and report the import "
             "chain that leads back to billing.models (there is a circular import). Do not edit anything."),
        agent("",
              bash("grep -rn \"from billing.models import\" src/billing",
                   "src/billing/reports/monthly.py:3:from billing.models import Invoice, Customer\n"
                   "src/billing/export/csv_export.py:5:from billing.models import Invoice\n"
                   "src/billing/models/__init__.py:4:from billing.models.invoice import Invoice"),
              bash("grep -rn \"^from billing\\|^import billing\" src/billing/models",
                   "src/billing/models/invoice.py:6:from billing.reports.monthly import summarise_month")),
        agent("The cycle: `billing.models/__init__` imports `billing.models.invoice`, which imports "
              "`billing.reports.monthly` (for `summarise_month`), which imports `Invoice` from "
              "`billing.models` while that package is still initialising. `billing.export.csv_export` only "
              "imports from `billing.models` and is not part of the cycle."),
    ),
)

IMPORT_CYCLE = Script(
    slug="import-cycle-invoice",
    agent="claude-code",
    lang="en",
    cwd="/home/sam/work/billing",
    start="2026-04-02T10:58:00Z",
    about="ImportError 'cannot import name Invoice from partially initialized module billing.models': a "
    "circular import through billing.reports.monthly; moved the import into the function",
    traps="'import', 'export', 'report' everywhere: substrings of 'port'; a subagent holds the grep",
    turns=(
        user("the worker won't start after I added monthly summaries:\n\nImportError: cannot import name "
             "'Invoice' from partially initialized module 'billing.models' (most likely due to a circular "
             "import) (/home/sam/work/billing/src/billing/models/__init__.py)"),
        agent("I'll have a subagent map who imports `billing.models` while I read the new report code.",
              task("Find every module under src/billing that imports from billing.models, and report the import "
                   "chain that leads back to billing.models (there is a circular import). Do not edit anything.",
                   BILLING_SUBAGENT,
                   "The cycle: billing.models/__init__ → billing.models.invoice → billing.reports.monthly → "
                   "billing.models (Invoice). billing.export.csv_export is not part of it."),
              read("src/billing/models/invoice.py",
                   "from decimal import Decimal\nfrom billing.reports.monthly import summarise_month\n\n"
                   "class Invoice(Model):\n    def month_summary(self):\n        return summarise_month(self.customer, self.issued_on)\n")),
        agent("A circular import between the invoice model and the monthly report: the new `Invoice.month_summary` "
              "imports `billing.reports.monthly` at module level, and that module imports `Invoice` back. Moving the report import inside the method breaks the cycle "
              "without changing behaviour; the report module shouldn't be a dependency of the model anyway.",
              edit("src/billing/models/invoice.py",
                   "from billing.reports.monthly import summarise_month\n\n", "\n"),
              edit("src/billing/models/invoice.py", "    def month_summary(self):\n",
                   "    def month_summary(self):\n        from billing.reports.monthly import summarise_month  # avoids a cycle\n\n"),
              bash("uv run python -c 'import billing.worker' && uv run pytest -q tests/reports",
                   "......\n6 passed in 1.02s")),
        agent("The worker imports cleanly and the report tests pass. The lazy import is commented so nobody "
              "moves it back to the top."),
    ),
)

UV_INDEX_WEATHER = Script(
    slug="uv-index-card",
    agent="pi",
    lang="en",
    cwd="/home/jo/src/weather-cards",
    start="2026-05-28T18:10:00Z",
    about="added the UV index to the city weather card and ran the type checks (uv run mypy) and tests",
    traps="prose full of 'UV', 'type', 'city', 'run', 'check': every word of 'uv run ty check' as a substring",
    turns=(
        user("add the UV index to the city card, colour coded like the met office does it. run the type "
             "check before you commit, the last PR broke typing"),
        agent("I'll add a `uv_index` field to the forecast model, render a coloured UV badge on the city "
              "card, then run the type check and the tests with uv.",
              read("src/weather_cards/models.py",
                   "@dataclass\nclass Forecast:\n    city: str\n    temperature_c: float\n    condition: str\n"),
              edit("src/weather_cards/models.py", "    condition: str\n", "    condition: str\n    uv_index: int | None = None\n"),
              edit("src/weather_cards/card.py", "    parts.append(condition_badge(f.condition))",
                   "    parts.append(condition_badge(f.condition))\n    if f.uv_index is not None:\n        parts.append(uv_badge(f.uv_index))")),
        agent("",
              bash("uv run mypy src/", "src/weather_cards/card.py:48: error: Name \"uv_badge\" is not defined  [name-defined]\nFound 1 error in 1 file (checked 9 source files)", error=True)),
        agent("The type check caught a missing helper. Adding `uv_badge` with the usual bands: 0-2 low "
              "(green), 3-5 moderate (yellow), 6-7 high (orange), 8-10 very high (red), 11+ extreme (violet).",
              edit("src/weather_cards/card.py", "def condition_badge(", "def uv_badge(index: int) -> str:\n    ...\n\n\ndef condition_badge("),
              bash("uv run mypy src/ && uv run pytest -q", "Success: no issues found in 9 source files\n.............\n13 passed in 0.74s")),
        agent("Every city card now shows a coloured UV index badge. Type check clean, 13 tests pass. Ready to commit."),
        user("commit it"),
        agent("", bash("git commit -am 'city card: UV index badge'", "[main 5d0e9a1] city card: UV index badge\n 2 files changed, 24 insertions(+)")),
    ),
)

SCRIPTS = (FLAKY_LOADER_TIMEZONE, REACT_UNDEFINED_MAP, PORT_IN_USE, IMPORT_CYCLE, UV_INDEX_WEATHER)
