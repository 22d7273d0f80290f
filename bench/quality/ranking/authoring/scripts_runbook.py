"""The long-document trap: one 16,000-character runbook reply that names many terms once."""

from __future__ import annotations

from bench.quality.ranking.authoring.model import Script, agent, bash, read, user, write

RUNBOOK = """# Shop platform runbook

This is the single place to look before you touch production. It is written for the person on call at
3 a.m. who has never seen this part of the system: every section says what normally happens, what breaks,
and the exact commands to check and fix it. If a section is wrong, fix the section in the same pull
request as the change that made it wrong.

## 1. Overview

The shop runs as four services behind an AWS Application Load Balancer: `shop-api` (FastAPI, Python 3.12),
`shop-admin` (Next.js), `ingest` (the nightly importers) and `scraper` (competitor prices, runs from cron).
Postgres 15 holds orders, customers and invoices; Redis holds sessions, rate limits and the order event bus.
Static assets are served by nginx on the two web hosts, which also terminate TLS for the legacy domains.
Everything is deployed from `main` by GitHub Actions; production deploys need a green pipeline and a
second reviewer. Infrastructure lives in `shop-infra` (Terraform for AWS, plain files for the hosts).

Owners: the API and admin belong to the storefront team, ingest and scraper to the data team, and the
hosts to platform. On-call rotates weekly across all three; the pager goes to whoever is on the rota in
PagerDuty, and escalation after 20 minutes goes to the platform lead.

## 2. Deploys

A deploy is a merge to `main`. The pipeline builds the images, runs the test suite, pushes to ECR and rolls
the ECS services one task at a time. The admin is built once and uploaded to S3 behind CloudFront. A deploy
takes about twelve minutes end to end. There is no deploy on Fridays after 15:00 and none during the
monthly billing run (the first working day, 02:00 to 06:00 UTC).

To roll back, redeploy the previous image tag from the Actions tab ("Run workflow" with `image_tag`).
Rolling back the code does not roll back the database: read the migrations section before you do it.

Releases are cut from `release/x.y` branches. When a release is signed off it is merged back into main
with `git merge --no-ff release/x.y` so the history shows the release as one unit, and tagged `vx.y.0` on
the release branch's last commit. Hotfixes go to the release branch first and are merged forward.

## 3. Web hosts and TLS

nginx on `web-1` and `web-2` serves the legacy domains and proxies `/api` to the load balancer. The site
files live in `/etc/nginx/sites-available` and are linked from `sites-enabled`. After any change run
`nginx -t` and only then `nginx -s reload`; a reload keeps existing connections, a restart drops them.

Certificates come from Let's Encrypt through certbot. The `certbot.timer` unit renews them twice a day
when they are within 30 days of expiry. nginx only reads certificate files at start or reload, so every
host needs a deploy hook in `/etc/letsencrypt/renewal-hooks/deploy/` that reloads it; without the hook a
renewed certificate sits on disk while browsers keep getting the old one until it expires.

Slow endpoints: the default `proxy_read_timeout` is 60 seconds. Report exports and the CSV download can
take longer on big shops; those locations set their own timeout, and anything over five minutes should be
a background job instead of a longer timeout.

## 4. Load balancer and websockets

The ALB closes idle connections after 60 seconds. The admin's live order feed is a websocket, so the server
sends a heartbeat ping every 25 seconds and the client reconnects with exponential backoff. If agents
report the feed freezing, check that the ping task is running (`orders_ws` logs "ping" at debug level) before
touching the ALB settings.

## 5. Databases

Production Postgres is RDS, version 15, with daily snapshots kept for 14 days and point-in-time recovery.
Local development uses the `db` service in `compose.yaml`; start everything with `docker compose up -d`
and read the database logs with `docker compose logs db`. The image tag is pinned to a minor version: a
floating `latest` tag once pulled a new major version over an old data volume, and Postgres refuses to
start on a data directory from another major version.

### Migrations

Migrations are plain SQL files in `migrations/`, numbered, with an `.up.sql` and a `.down.sql`. Rules:

- Every migration must be idempotent: running it twice leaves the same schema. Use `IF NOT EXISTS` /
  `IF EXISTS`, and guard data changes with a `WHERE` that makes the second run a no-op.
- Every migration has a down file that really restores the previous schema, tested locally, so a rollback
  is a command and not an improvisation.
- Adding a column with a default to a big table rewrites it on old Postgres versions; add the column
  nullable, backfill in batches, then add the default and the constraint.
- Indexes on big tables are created `CONCURRENTLY`, in a migration of their own (it cannot run in a
  transaction).
- Run them with `psql -v ON_ERROR_STOP=1 -f` so the first error stops the file.

The migration job runs before the new API tasks start. If it fails, the deploy stops and the old tasks keep
serving; fix forward where you can, roll back the migration with its down file where you cannot.

### SQLite

A few tools (the scraper's cache, local analytics notebooks) use SQLite. More than one writer needs WAL
mode and a busy timeout; never hold a write transaction open across a network call.

## 6. Redis

Redis is ElastiCache, one primary and one replica. The API uses a connection pool per process; the pool
size is set in `REDIS_MAX_CONNECTIONS` and must stay below the server's `maxclients` divided by the number
of processes. "Too many connections" in the API logs means a pool is leaking or the limit is too low;
check `INFO clients` before raising anything.

## 7. CI

The pipeline runs lint (ruff), the type check, and the test suite on Python 3.12 and 3.13. Locally the same
checks are `uv run ruff check`, `uv run ty check` and `uv run pytest -q`. A single file runs with
`pytest -q tests/test_something.py`.

Flaky tests are treated as bugs. Quarantine a flaky test with the `quarantine` marker and open an issue
the same day; never add a blind retry. The usual causes, in order: tests that depend on the wall clock or
the machine's timezone (CI runs in UTC, most laptops do not; freeze the clock and use aware datetimes),
tests that depend on ordering (run with random order locally), and shared state between tests (a fixture
that writes to a module-level cache).

The workflow files live in `.github/workflows/`. To try a workflow change without pushing, `act` runs it
locally in Docker; on Apple silicon pass `--container-architecture linux/amd64`.

## 8. Front end

The admin is Next.js with React 19. Dates are formatted with date-fns (moment was removed in the 2026
clean-up; do not add it back, it was most of the bundle). Locale files are imported explicitly. Lists from
the API are paginated with cursors and come back as `{items, next_cursor}`; components must render an
empty state while loading rather than assume the list exists, and every page-level widget sits inside an
error boundary.

The dev server runs on port 3000. If it fails with `EADDRINUSE`, an old dev server is still running: find
it with `lsof -i :3000` and stop it, or start on another port with `PORT=3001`.

## 9. Data imports

The ingest service reads partner exports from the `incoming/` bucket every night. Most partners send UTF-8
CSV. Two older ERP systems send Big5 (Taiwan) and one sends Shift_JIS (Japan); convert them first with
`iconv -f BIG5 -t UTF-8` or `iconv -f SHIFT_JIS -t UTF-8`. If iconv stops with "illegal input sequence",
the file contains characters outside the plain code page (Hong Kong supplementary characters for Big5,
vendor extensions for Shift_JIS): use `BIG5-HKSCS` or `CP932` respectively. Never let an importer guess the
encoding: a wrong guess produces mojibake that then gets saved into the database.

The loader computes ages and due dates from timezone-aware UTC datetimes. Do not call `datetime.now()`
without a timezone anywhere in the ingest code.

## 10. Scraper

The scraper runs from cron at 03:15 on `tools-1`. Cron has no virtualenv: the crontab calls the project's
`.venv/bin/python` by full path, and the crontab itself is versioned in `deploy/crontab.txt`. Behind the
office proxy HTTPS is re-signed by the corporate inspection CA; set `REQUESTS_CA_BUNDLE` to a bundle that
includes the corporate root rather than disabling verification.

## 11. Kubernetes (order service)

The order service is the one workload on the EKS cluster. Deploys are `kubectl apply` from the pipeline;
to undo a bad rollout use `kubectl rollout undo deployment/order-service -n prod` and check
`kubectl rollout status`. Pods that end in `OOMKilled` need their memory limit raised in the deployment,
not a restart loop.

## 12. Containers and builds

Images build from multi-stage Dockerfiles. Copy the dependency manifests and install before copying the
source so the dependency layer stays cached, and keep `node_modules`, `.venv` and `.git` out of the build
context with `.dockerignore`. `docker build --progress=plain` shows which step misses the cache.

## 13. Secrets and accounts

Secrets live in AWS Secrets Manager and are injected as environment variables. The staging database
password rotates monthly; the staging deploy reads it from the repository secret, which has to be updated
by hand on rotation day. Never commit `.env` files; `.env.example` lists every variable with a dummy value.

## 14. Incidents

Declare an incident in the #incidents channel with the `/incident` command as soon as customers are
affected; the bot creates the timeline document. One person drives, one person writes. Afterwards, a
blameless review within five working days, with actions that have owners and dates.

Useful first commands on a host: `journalctl -u nginx --since "-15 min"`, `df -h`, `free -m`,
`ss -tlnp`, and for the API `aws logs tail /ecs/shop-api --since 15m --follow`.

## 15. Checklists

Before a migration: the down file works locally, the up file runs twice without error, the table sizes
are known, and the change is announced in #deploys. Before a release: the changelog is complete, the
version is bumped on the release branch, and the release notes are in the shared drive. Before a holiday:
the on-call handover note lists open incidents, known flaky tests in quarantine, certificates expiring
within a month, and anything scheduled to run while you are away.

## 16. Monitoring and alerts

Metrics go to CloudWatch and, for the application, to Grafana Cloud through the OpenTelemetry collector
that runs as a sidecar in every task. The dashboards that matter are "Shop overview" (request rate, error
rate, p95 latency per endpoint), "Checkout funnel" (cart, payment, confirmation), "Database" (connections,
replication lag, slow queries) and "Jobs" (last successful run of every scheduled job). Alerts page only
when a customer can notice: checkout error rate above 2% for five minutes, p95 latency of the order API
above 1.5 seconds for ten minutes, any scheduled job more than two hours late, a certificate within seven
days of expiry, and disk above 85% on any host. Everything else goes to the #alerts channel without a page.

When an alert fires, acknowledge it first, then open the dashboard linked from the alert. Most alerts
have a runbook link; if the link is missing, add one after the incident. Silence an alert only with an end
time and a reason; open-ended silences are removed every Monday.

## 17. Backups and restores

RDS takes a snapshot every night and keeps 14 days; point-in-time recovery covers the last seven days to
the second. The S3 buckets with partner files and invoices have versioning and a 90-day lifecycle rule.
Redis is a cache and the event bus: it is not backed up, and nothing may be stored there that cannot be
rebuilt from Postgres.

A restore is rehearsed every quarter on staging: restore the latest snapshot into a new instance, point
a staging API at it, run the smoke tests, and record how long each step took. The last rehearsal took 41
minutes from the start of the restore to a green smoke test; the target is under an hour. Never restore
over the production instance: restore next to it and switch the connection string.

## 18. Access

Production access is through AWS SSO with a one-hour session. Nobody has standing SSH access to the web
hosts; `aws ssm start-session` opens a shell and records it. Database access for debugging uses the
read-only role through the bastion, and writes to production data go through a reviewed script in the
`ops-scripts` repository, never an interactive session. Break-glass credentials are in the sealed vault
entry and using them pages the platform lead automatically.

New joiners get access in three steps: the SSO group for their team on day one, read-only production
access after the on-call shadow week, and the on-call rota after they have driven one incident with a
buddy. Leavers lose everything on their last day through the identity provider; the platform team checks
the AWS IAM users report once a month for anything created outside SSO.

## 19. Costs

The monthly AWS bill is reviewed in the first platform meeting of each month. The big items are RDS, the
NAT gateways and CloudWatch logs; log retention is 30 days for application logs and 7 days for access
logs, and debug logging in production needs an end date. Spot instances run the scraper and the nightly
ingest; if a spot interruption kills a run, the job is idempotent and simply runs again on the next
schedule. Unused EBS volumes and old ECR images are cleaned up by a weekly job.

## 20. Glossary

- **ALB**: the AWS Application Load Balancer in front of the API and the admin.
- **Billing run**: the monthly job that issues invoices on the first working day.
- **Deploy hook**: a script certbot runs after a successful renewal.
- **Down file**: the SQL that reverses a migration.
- **Quarantine**: the pytest marker that keeps a known flaky test out of the required checks.
- **Spot**: cheaper EC2 capacity that AWS can take back with two minutes' notice.

## 21. Known quirks

- The admin's CSV export of all orders for the three biggest shops takes several minutes; it is queued as a
  background job and the user gets an email with the link. Do not "fix" slow exports by raising timeouts.
- The payment provider's sandbox returns HTTP 200 with an error body for declined test cards; the client
  checks the body, not the status.
- Times in the admin are shown in the shop's own timezone, stored in UTC. Reports that group by day group by
  the shop's day, which is why a report for "yesterday" can differ from a UTC query.
- The VAT rounding rule is per line, not per basket (the 2.4 release fixed mixed baskets); accountants will
  ask, and the answer is in the 2.4.0 changelog entry.
- Partner files sometimes arrive twice. The importer keys rows on the partner's own id and the file's
  checksum, so a second copy is a no-op; if a partner changes their ids, talk to them before re-importing.
- Staging sends email through a sandbox SMTP account. If staging emails reach real customers, stop the
  worker and check `SMTP_HOST` first.
- `web-2` has a smaller disk than `web-1`; the access logs rotate daily there, weekly on `web-1`.
- The order service's readiness probe waits for Redis. During a Redis failover, pods go unready for up to a
  minute and the ALB drains them; this is expected and does not need a page.

## 22. Changing this runbook

Keep sections short and imperative, put commands in code spans so they can be copied, and date any
statement that will go stale ("as of March 2026"). When you remove a system, remove its section in the
same pull request. When an incident review finds that the runbook was missing something, the action item
is a change to this file with the incident number in the commit message. The platform lead reviews the
whole document once a quarter with whoever was on call most often that quarter.
"""

PLATFORM_RUNBOOK = Script(
    slug="platform-runbook",
    agent="claude-code",
    lang="en",
    cwd="/home/mei/src/shop-infra",
    start="2026-05-20T09:00:00Z",
    about="wrote docs/runbook.md, the platform runbook, from the user's notes (a long document that names "
    "many tools and problems once each; no debugging happened here)",
    traps="a 16,000-character message mentioning nginx -s reload, docker compose up -d, flaky/timezone, "
    "websocket/heartbeat, iconv -f BIG5, git merge --no-ff, date-fns ... once each",
    title="Platform runbook from on-call notes",
    turns=(
        user("I've dumped my on-call notes in notes/oncall.txt. turn them into a proper docs/runbook.md that a "
             "new person could follow at 3am: deploys, web hosts, databases, CI, front end, imports, the "
             "scraper, k8s. show me the full text here first, then write the file"),
        agent("",
              read("notes/oncall.txt",
                   "- nginx: test then reload\n- certbot hook!!\n- pg pinned to 15, never latest\n- migrations idempotent + down file\n"
                   "- flaky = bug, quarantine marker\n- big5 / sjis partners -> iconv\n- cron uses .venv python\n- ALB 60s idle -> ws ping 25s\n"
                   "- rollout undo for order-service\n- no fri deploys after 3pm\n"),
              bash("ls docs/", "architecture.md\nhosts.md\n")),
        agent(RUNBOOK),
        user("looks good. write it"),
        agent("", write("docs/runbook.md", RUNBOOK),
              bash("wc -c docs/runbook.md", f"{len(RUNBOOK.encode())} docs/runbook.md")),
        agent("Written to `docs/runbook.md`. I left `docs/hosts.md` as it is; the runbook links to it from "
              "the web hosts section."),
    ),
)

SCRIPTS = (PLATFORM_RUNBOOK,)
