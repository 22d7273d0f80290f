"""Evidence that must add up: a Codex session with ~290 messages about replacing moment with
date-fns, against a one-line note elsewhere that mentions both once."""

from __future__ import annotations

from bench.quality.ranking.authoring.model import Script, Turn, agent, bash, edit, user

_FOLDERS = ("components/orders", "components/invoices", "components/customers", "components/reports",
            "hooks", "pages", "utils")
_NAMES = (
    "OrdersTable", "OrderRow", "OrderTimeline", "OrderFilters", "RefundDialog", "ShippingBadge",
    "InvoiceList", "InvoiceRow", "InvoicePdfPreview", "DueDateCell", "PaymentHistory", "CreditNoteForm",
    "CustomerCard", "CustomerSince", "LoyaltyTier", "AddressBook", "ContactLog", "BirthdayBanner",
    "RevenueChart", "DailyTotals", "CohortGrid", "ExportDialog", "PeriodPicker", "WeekSelector",
)
_CONVERSIONS = (
    ("moment(order.createdAt).format('YYYY-MM-DD')", "format(order.createdAt, 'yyyy-MM-dd')", "format"),
    ("moment(updatedAt).fromNow()", "formatDistanceToNow(updatedAt, { addSuffix: true })", "formatDistanceToNow"),
    ("moment(dueOn).diff(moment(), 'days')", "differenceInCalendarDays(dueOn, new Date())", "differenceInCalendarDays"),
    ("moment().startOf('month')", "startOfMonth(new Date())", "startOfMonth"),
    ("moment.utc(row.issued_on)", "parseISO(row.issued_on)", "parseISO"),
    ("moment(from).add(7, 'days')", "addDays(from, 7)", "addDays"),
    ("moment(d).format('DD MMM YYYY, HH:mm')", "format(d, 'dd MMM yyyy, HH:mm')", "format"),
    ("moment(a).isBefore(b)", "isBefore(a, b)", "isBefore"),
)


def _files() -> list[str]:
    files = []
    for i in range(96):
        folder = _FOLDERS[i % len(_FOLDERS)]
        name = _NAMES[i % len(_NAMES)]
        if folder == "hooks":
            files.append(f"src/hooks/use{name}.ts")
        elif folder in ("utils", "pages"):
            files.append(f"src/{folder}/{name[0].lower()}{name[1:]}.ts")
        else:
            files.append(f"src/{folder}/{name}{'' if i < 48 else 'V2'}.tsx")
    return sorted(set(files))


def _file_turns(path: str, n: int) -> list[Turn]:
    old, new, fn = _CONVERSIONS[n % len(_CONVERSIONS)]
    return [
        agent("",
              bash(f"rg -n \"moment\" {path}", f"3:import moment from 'moment'\n{20 + n % 40}:    {old}"),
              edit(path, "import moment from 'moment'\n", f"import {{ {fn} }} from 'date-fns'\n"),
              edit(path, old, new),
              thinking=f"**Converting moment calls in {path.rsplit('/', 1)[-1]} to date-fns**"),
        agent(f"`{path}`: swapped the moment import for date-fns `{fn}` and rewrote the call, `{old}` → "
              f"`{new}`. The file type-checks and its rendered output is unchanged, so the snapshot for this "
              "component still matches without being updated."),
    ]


def _turns() -> tuple[Turn, ...]:
    files = _files()
    turns: list[Turn] = [
        user("moment is 290 kB of our admin bundle and it's in maintenance mode. replace moment with date-fns "
             "across the dashboard. keep every displayed format identical, and don't touch the API layer"),
        agent("",
              bash("rg -l \"from 'moment'\" src | wc -l", str(len(files))),
              bash("npm ls moment date-fns", "dashboard@0.9.0\n└── moment@2.30.1"),
              thinking="**Planning moment to date-fns migration across 96 files**"),
        agent(f"{len(files)} files import moment, most of them only to format a date or to compute a difference in "
              "days. Plan: add date-fns 3 next to it, convert the files one at a time so every step stays "
              "reviewable, translating the format tokens as I go (moment's `YYYY`/`DD` are date-fns' "
              "`yyyy`/`dd`, and `fromNow()` has no direct twin), run the tests after every third of the "
              "files, and only at the end remove moment and compare the bundle size with today's build.",
              bash("npm install date-fns@3", "added 1 package, and audited 912 packages in 3s")),
    ]
    for n, path in enumerate(files):
        turns.extend(_file_turns(path, n))
        if n in (31, 63):
            turns.append(agent("", bash("npm test -- --silent", "Test Suites: 58 passed, 58 total\nTests:       412 passed, 412 total")))
            turns.append(user("keep going"))
    turns.extend([
        agent("",
              bash("npm uninstall moment && rg -l \"moment\" src || echo 'no moment left'", "removed 1 package\nno moment left"),
              bash("npm run build && npx source-map-explorer .next/static/chunks/*.js --only-mapped --json | jq '.results[0].totalBytes'",
                   "...\n   Route (app)                              Size     First Load JS\n   ○ /orders                              14.2 kB         201 kB\n1843210"),
              thinking="**Verifying bundle size after removing moment**"),
        agent(f"Done: all {len(files)} files use date-fns, moment is uninstalled, and nothing in `src` references it. "
              "412 tests pass. First-load JS for /orders went from 468 kB to 201 kB. Formats are unchanged: "
              "every moment pattern was translated token by token (`YYYY-MM-DD` → `yyyy-MM-dd`, "
              "`DD MMM YYYY` → `dd MMM yyyy`); `fromNow()` became `formatDistanceToNow(…, { addSuffix: true })`."),
        user("amazing. what about locales? we show German and Japanese dates for two shops"),
        agent("moment's locales were global (`moment.locale('de')`); date-fns takes the locale per call. The two "
              "shops' date components now need `{ locale: de }` / `{ locale: ja }` from `date-fns/locale`. I "
              "haven't changed those yet: want me to thread the shop's locale through `PeriodPicker` and `DueDateCell`?"),
        user("not now, I'll do it next week"),
    ])
    return tuple(turns)


MOMENT_TO_DATE_FNS = Script(
    slug="moment-to-date-fns",
    agent="codex",
    lang="en",
    cwd="/home/sam/work/dashboard",
    start="2026-02-25T09:10:00Z",
    about="replaced moment with date-fns in 96 files of the admin dashboard, removed moment, bundle 468 kB → 201 kB",
    traps="hundreds of messages match 'moment date-fns'",
    turns=_turns(),
)

DATE_FNS_NOTE = Script(
    slug="date-fns-locale-note",
    agent="pi",
    lang="en",
    cwd="/home/sam/work/dashboard",
    start="2026-05-30T16:40:00Z",
    about="a one-line reminder that the German and Japanese date-fns locales still need wiring",
    traps="an 80-character note that mentions moment and date-fns once, newer than the real work",
    turns=(
        user("reminder: moment → date-fns is done, but the de and ja locales still need wiring"),
        agent("Noted."),
    ),
)

SCRIPTS = (MOMENT_TO_DATE_FNS, DATE_FNS_NOTE)
