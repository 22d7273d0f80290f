"""English sessions of the labelled recall set: what was said, and what people later typed to
find it. Each query is written from a one-line memory of the session (the ``memory`` field),
not copied from it, except the ``exact`` ones, which are the session's own words.

Groups: exact, paraphrase, wrong-detail, typo, stack-trace, cjk-sentence, zh-variant,
cross-language, meaning.
"""

SESSIONS = [
    {
        "key": "sqlite-locked", "agent": "claude-code", "project": "inventory-api", "day": 3,
        "memory": "the sqlite db kept saying it was locked under the worker pool",
        "turns": [
            "the celery workers keep failing with sqlite3.OperationalError: database is locked when two jobs write the stock table at once",
            "SQLite allows one writer at a time. Turn on WAL mode (PRAGMA journal_mode=WAL) and set a busy_timeout of 5000 ms so a second writer waits instead of failing immediately.",
            "still see it sometimes during the nightly import",
            "The nightly import holds one long transaction. I split it into batches of 500 rows with a commit after each batch, so the workers get the lock between batches.",
        ],
        "queries": [
            ("exact", "database is locked"),
            ("exact", "busy_timeout of 5000 ms"),
            ("paraphrase", "sqlite lock errors when celery jobs write concurrently"),
            ("wrong-detail", "sqlite database is locked busy_timeout 3000 postgres"),
            ("typo", "databse is lockd"),
            ("stack-trace", "sqlite3.OperationalError: database is locked"),
            ("meaning", "the time the db kept saying it was locked"),
        ],
    },
    {
        "key": "cron-monday", "agent": "claude-code", "project": "billing-ci", "day": 5,
        "memory": "the CI build that only broke on Mondays because of a cron schedule",
        "turns": [
            "our scheduled GitHub Actions workflow fails every Monday morning but passes the rest of the week, the nightly job is fine",
            "The workflow's cron is '0 6 * * 1' which runs only on day-of-week 1. That run also rotates the fixtures bucket, so the integration tests read an empty bucket. I moved the rotation to its own workflow and pinned the test fixtures.",
            "great, so the weekly schedule was the culprit",
            "Yes: the weekly cron trigger ran the cleanup before the tests. Now the cleanup has a needs: dependency on the test job.",
        ],
        "queries": [
            ("exact", "fails every Monday morning"),
            ("paraphrase", "workflow only failing at the start of the week"),
            ("wrong-detail", "github actions fails every tuesday cron"),
            ("typo", "shceduled workflow fials monday"),
            ("meaning", "the build that only broke on Mondays"),
        ],
    },
    {
        "key": "colour-theme", "agent": "claude-code", "project": "dashboard-ui", "day": 7,
        "memory": "dark mode colors were wrong because the css variable was overridden",
        "turns": [
            "in dark mode the sidebar text color is unreadable, it stays #222 on a black background",
            "The tailwind config sets the sidebar color through --sidebar-fg, but a later stylesheet in legacy.css overrides the custom property on :root. I moved the dark-mode variables under the [data-theme=dark] selector so they win by specificity.",
            "and the chart legend color too?",
            "The chart reads the color once at mount; I made it subscribe to the theme change event so the legend color updates live.",
        ],
        "queries": [
            ("exact", "sidebar text color is unreadable"),
            ("wrong-detail", "dark mode sidebar colour unreadable"),
            ("paraphrase", "css custom property overridden so dark theme text was invisible"),
            ("typo", "dakr mode sidbar color"),
        ],
    },
    {
        "key": "docker-buildx", "agent": "codex", "project": "edge-proxy", "day": 9,
        "memory": "docker multi-arch image for arm64 failed with exec format error",
        "turns": [
            "the arm64 image built with docker buildx crashes on the raspberry pi with exec /usr/local/bin/proxy: exec format error",
            "The Dockerfile copies a binary built on the amd64 builder stage. Use --platform=$BUILDPLATFORM for the builder and cross-compile with GOARCH=$TARGETARCH so the final stage gets an arm64 binary.",
            "buildx now builds linux/amd64 and linux/arm64 and pushes a manifest list",
        ],
        "queries": [
            ("exact", "exec format error"),
            ("exact", "docker buildx"),
            ("typo", "dokcer buildx arm64"),
            ("paraphrase", "multi architecture container crashes on raspberry pi"),
            ("wrong-detail", "docker buildx arm64 segmentation fault raspberry pi"),
            ("stack-trace", "exec /usr/local/bin/proxy: exec format error"),
        ],
    },
    {
        "key": "pytest-fixture", "agent": "claude-code", "project": "payments", "day": 11,
        "memory": "pytest fixture scope caused the test database to leak between tests",
        "turns": [
            "test_refund_partial passes alone but fails when I run the whole pytest suite, it sees orders from another test",
            "The db_session fixture is scope='module', so rows committed in test_checkout_flow stay visible. I changed it to a function-scoped fixture that wraps each test in a SAVEPOINT and rolls back.",
            "run pytest -p no:randomly to confirm",
            "With pytest-randomly disabled and enabled the suite now passes in both orders.",
        ],
        "queries": [
            ("exact", "test_refund_partial"),
            ("typo", "pyteset fixture scope leak"),
            ("paraphrase", "test passes alone but fails in the full run, data leaking between tests"),
            ("wrong-detail", "test_refund_full fails in whole suite fixture scope session"),
            ("stack-trace", "FAILED tests/test_refunds.py::test_refund_partial - AssertionError: assert 3 == 1"),
        ],
    },
    {
        "key": "alembic-migration", "agent": "claude-code", "project": "crm-backend", "day": 13,
        "memory": "alembic migration had two heads after merging branches",
        "turns": [
            "alembic upgrade head says Multiple head revisions are present for given argument 'head'",
            "Two branches each added a migration on top of 4f2a1c. Run alembic merge heads -m 'merge contact and invoice branches' to create a merge revision, then upgrade.",
            "done, and I added a CI check that fails when alembic heads prints more than one line",
        ],
        "queries": [
            ("exact", "Multiple head revisions are present"),
            ("typo", "alembic migraiton two heads"),
            ("paraphrase", "database migrations diverged after merging two branches"),
            ("wrong-detail", "django migration multiple heads merge"),
            ("stack-trace", "FAILED: Multiple head revisions are present for given argument 'head'; please specify a specific target revision"),
        ],
    },
    {
        "key": "timezone-tokyo", "agent": "claude-code", "project": "scheduler", "day": 15,
        "memory": "reminder emails went out an hour late because of a DST timezone bug",
        "turns": [
            "reminders scheduled for 9:00 Europe/Berlin fire at 10:00 since the clocks changed",
            "The scheduler stores naive datetimes and converts with a fixed UTC+1 offset. I switched to zoneinfo.ZoneInfo('Europe/Berlin') and store aware UTC timestamps, so daylight saving time is handled.",
            "add a test for the March transition",
            "Added test_dst_spring_forward with freezegun at 2026-03-29 01:30 UTC.",
        ],
        "queries": [
            ("exact", "Europe/Berlin"),
            ("wrong-detail", "reminders fire an hour late Europe/Paris daylight saving"),
            ("paraphrase", "notifications off by one hour after the clock change"),
            ("typo", "daylight savnig timezone remniders"),
            ("cross-language", "夏令时 提醒 晚了一个小时"),
        ],
    },
    {
        "key": "nginx-502", "agent": "codex", "project": "storefront", "day": 17,
        "memory": "nginx returned 502 because gunicorn workers timed out on large uploads",
        "turns": [
            "uploads over 20 MB return 502 Bad Gateway from nginx, smaller ones work",
            "The nginx error log shows upstream prematurely closed connection while reading response header. Gunicorn's default timeout of 30 s kills the worker during the upload. I raised --timeout to 120, set client_max_body_size 50m, and proxy_read_timeout 120s.",
            "works now for 45 MB files",
        ],
        "queries": [
            ("exact", "upstream prematurely closed connection"),
            ("wrong-detail", "nginx 504 on big file uploads gunicorn"),
            ("paraphrase", "large uploads fail behind the reverse proxy"),
            ("typo", "ngnix 502 uplaod gunicron timeout"),
            ("stack-trace", "upstream prematurely closed connection while reading response header from upstream, client: 10.0.3.7"),
        ],
    },
    {
        "key": "react-hydration", "agent": "claude-code", "project": "marketing-site", "day": 19,
        "memory": "next.js hydration mismatch from rendering the date on the server",
        "turns": [
            "Warning: Text content did not match. Server: \"4/2/2026\" Client: \"02/04/2026\" on the blog page",
            "The post date is formatted with toLocaleDateString during render, so the server's locale differs from the browser's. Format with an explicit locale and timeZone, or render the date in a useEffect.",
            "using Intl.DateTimeFormat('en-GB', {timeZone: 'UTC'}) now",
        ],
        "queries": [
            ("exact", "Text content did not match"),
            ("paraphrase", "hydration error because server and browser format dates differently"),
            ("typo", "hydraton mismatch date locale"),
            ("wrong-detail", "hydration mismatch toLocaleTimeString en-US blog"),
        ],
    },
    {
        "key": "k8s-oom", "agent": "claude-code", "project": "search-service", "day": 21,
        "memory": "elasticsearch pod OOMKilled because heap was bigger than the memory limit",
        "turns": [
            "the search pod restarts every few hours, kubectl describe says Last State: Terminated Reason: OOMKilled exit code 137",
            "ES_JAVA_OPTS sets -Xmx4g but the container limit is 4Gi, and the JVM needs off-heap memory too. Set the heap to half the limit (-Xms2g -Xmx2g) or raise the limit to 8Gi.",
            "set heap to 2g, restarts stopped",
        ],
        "queries": [
            ("exact", "OOMKilled"),
            ("wrong-detail", "pod killed exit code 139 elasticsearch heap"),
            ("paraphrase", "kubernetes keeps restarting the search container out of memory"),
            ("typo", "kubectl oomkiled elastcsearch"),
            ("cross-language", "ポッドがメモリ不足で再起動する"),
        ],
    },
    {
        "key": "git-rebase-lost", "agent": "claude-code", "project": "mobile-app", "day": 23,
        "memory": "recovered commits lost after an interactive rebase with reflog",
        "turns": [
            "I did git rebase -i and dropped the wrong commit, the offline sync work is gone",
            "The commit is still in the reflog. git reflog shows HEAD@{3}: commit: offline sync queue. Run git branch rescue-sync HEAD@{3} and cherry-pick it back.",
            "got it back, thanks",
        ],
        "queries": [
            ("exact", "git reflog"),
            ("paraphrase", "get back a commit I threw away while rebasing"),
            ("typo", "git reflgo recover droped commit"),
            ("meaning", "undo a history rewrite that deleted my work"),
        ],
    },
    {
        "key": "utf8-csv-excel", "agent": "claude-code", "project": "reports", "day": 25,
        "memory": "exported CSV showed mojibake in Excel, fixed with a BOM",
        "turns": [
            "the exported CSV shows garbage like Ã© instead of é when opened in Excel on Windows",
            "Excel assumes the ANSI code page unless the file starts with a byte order mark. Write with encoding='utf-8-sig' so the BOM is there; Numbers and LibreOffice ignore it.",
            "Chinese customer names are fine now too",
        ],
        "queries": [
            ("exact", "utf-8-sig so the BOM is there"),
            ("paraphrase", "accented characters garbled when opening the export in excel"),
            ("wrong-detail", "csv export utf-16 excel mac garbled"),
            ("cross-language", "导出的CSV文件在Excel里乱码"),
        ],
    },
    {
        "key": "redis-eviction", "agent": "codex", "project": "session-store", "day": 27,
        "memory": "users got logged out because redis evicted session keys with allkeys-lru",
        "turns": [
            "users get logged out randomly during the sale, sessions disappear from redis",
            "INFO stats shows evicted_keys climbing. maxmemory-policy is allkeys-lru, so session keys are evicted with cache keys. Move sessions to their own Redis database with noeviction or use volatile-lru and put a TTL only on cache keys.",
            "split into two instances, no more logouts",
        ],
        "queries": [
            ("exact", "allkeys-lru"),
            ("paraphrase", "people randomly signed out, cache store dropping keys"),
            ("typo", "reddis evicted sesion keys"),
            ("wrong-detail", "memcached evicting sessions users logged out"),
        ],
    },
    {
        "key": "flaky-selenium", "agent": "claude-code", "project": "qa-suite", "day": 29,
        "memory": "selenium test flaky because of stale element after re-render",
        "turns": [
            "test_checkout_button is flaky on CI, StaleElementReferenceException about one run in five",
            "The cart re-renders after the price API responds, replacing the button node. Wait for the cart total to settle with WebDriverWait and re-find the element right before click().",
            "ran it 50 times without a failure",
        ],
        "queries": [
            ("exact", "StaleElementReferenceException"),
            ("typo", "stale elment selenum flaky"),
            ("paraphrase", "browser test intermittently fails because the button gets replaced"),
            ("stack-trace", "selenium.common.exceptions.StaleElementReferenceException: Message: stale element reference: element is not attached to the page document"),
        ],
    },
    {
        "key": "terraform-state-lock", "agent": "claude-code", "project": "infra", "day": 2,
        "memory": "terraform state lock stuck after a cancelled apply in CI",
        "turns": [
            "terraform plan fails with Error acquiring the state lock, ConditionalCheckFailedException, nobody is running apply",
            "A cancelled pipeline left the DynamoDB lock item behind. Check the lock ID in the error and run terraform force-unlock with it, after confirming no apply is running.",
            "unlocked, and I set the pipeline to run terraform with -lock-timeout=5m",
        ],
        "queries": [
            ("exact", "Error acquiring the state lock"),
            ("paraphrase", "infrastructure plan blocked by a leftover lock after a cancelled job"),
            ("typo", "terrafrom force unlcok"),
            ("wrong-detail", "terraform state lock s3 bucket error acquiring lock apply running"),
        ],
    },
    {
        "key": "jwt-clock-skew", "agent": "codex", "project": "auth-gateway", "day": 4,
        "memory": "JWT rejected as not yet valid because of clock skew between servers",
        "turns": [
            "some logins fail with ImmatureSignatureError: The token is not yet valid (iat) but only on one node",
            "That node's clock is 40 seconds ahead of the identity provider. Fix NTP on the node, and pass leeway=30 to jwt.decode to tolerate small skew.",
            "chrony was not running on that VM",
        ],
        "queries": [
            ("exact", "ImmatureSignatureError"),
            ("paraphrase", "token rejected because one server's time was ahead"),
            ("wrong-detail", "jwt expired signature error clock skew one node"),
            ("typo", "jwt clcok skew leway"),
        ],
    },
    {
        "key": "webpack-memory", "agent": "claude-code", "project": "admin-console", "day": 6,
        "memory": "production build ran out of memory: javascript heap out of memory",
        "turns": [
            "npm run build dies with FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
            "Source maps for the whole monaco editor are generated in production. Set devtool to 'hidden-source-map', exclude monaco from babel-loader, and raise NODE_OPTIONS=--max-old-space-size=4096 as a stopgap.",
            "build takes 90 s now instead of crashing",
        ],
        "queries": [
            ("exact", "JavaScript heap out of memory"),
            ("paraphrase", "frontend bundle build crashing with not enough memory"),
            ("typo", "javscript heap out of memroy webpack"),
            ("stack-trace", "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory"),
        ],
    },
    {
        "key": "cors-preflight", "agent": "claude-code", "project": "partner-portal", "day": 8,
        "memory": "CORS preflight failed because the API didn't answer OPTIONS with the auth header allowed",
        "turns": [
            "the browser blocks calls to api.partner.dev: Response to preflight request doesn't pass access control check",
            "The OPTIONS preflight returns 401 because the auth middleware runs before the CORS middleware. Register CORS first and add Authorization to Access-Control-Allow-Headers.",
            "fixed by reordering the middleware",
        ],
        "queries": [
            ("exact", "Response to preflight request"),
            ("paraphrase", "browser blocked cross origin calls because auth ran before cors"),
            ("typo", "cros preflght 401"),
            ("wrong-detail", "cors preflight 403 access-control-allow-origin"),
        ],
    },
    {
        "key": "python-circular-import", "agent": "claude-code", "project": "analytics", "day": 10,
        "memory": "circular import between models and services after refactor",
        "turns": [
            "after moving the helpers I get ImportError: cannot import name 'Report' from partially initialized module 'analytics.models'",
            "analytics.models imports services.pricing at module level, and pricing imports Report from models. Move the import inside the function or import the module, not the name.",
            "moved it inside compute_totals, works",
        ],
        "queries": [
            ("exact", "partially initialized module"),
            ("paraphrase", "two modules importing each other broke after a refactor"),
            ("stack-trace", "ImportError: cannot import name 'Report' from partially initialized module 'analytics.models' (most likely due to a circular import)"),
            ("typo", "circlar improt partialy initialized"),
        ],
    },
    {
        "key": "postgres-slow-query", "agent": "codex", "project": "marketplace", "day": 12,
        "memory": "slow postgres query fixed with a composite index on seller and created_at",
        "turns": [
            "the seller dashboard query takes 8 seconds, EXPLAIN ANALYZE shows a Seq Scan on orders",
            "The filter is WHERE seller_id = $1 ORDER BY created_at DESC LIMIT 50. A composite index on (seller_id, created_at DESC) lets Postgres read the 50 newest rows directly.",
            "down to 4 ms with CREATE INDEX CONCURRENTLY",
        ],
        "queries": [
            ("exact", "Seq Scan on orders"),
            ("paraphrase", "dashboard query took seconds until we added an index"),
            ("wrong-detail", "mysql slow seller dashboard query full table scan"),
            ("typo", "postgress composit index seler"),
        ],
    },
    {
        "key": "ssh-agent-forwarding", "agent": "claude-code", "project": "deploy-scripts", "day": 14,
        "memory": "git clone on the build server failed: permission denied publickey, agent forwarding",
        "turns": [
            "the deploy script's git clone on the bastion fails with Permission denied (publickey)",
            "The script runs ssh without -A, so the agent is not forwarded, and sudo drops SSH_AUTH_SOCK. Use ForwardAgent yes for that host in ~/.ssh/config and sudo --preserve-env=SSH_AUTH_SOCK.",
            "clone works through the bastion now",
        ],
        "queries": [
            ("exact", "Permission denied (publickey)"),
            ("paraphrase", "cloning on the jump host failed because my key wasn't forwarded"),
            ("typo", "ssh agnet forwardng bastoin"),
        ],
    },
    {
        "key": "rust-borrow", "agent": "claude-code", "project": "tile-renderer", "day": 16,
        "memory": "rust borrow checker error mutable borrow inside a loop over a hashmap",
        "turns": [
            "error[E0499]: cannot borrow `self.cache` as mutable more than once at a time in render_tile",
            "You hold a reference from self.cache.get() while calling self.cache.insert(). Use the entry API: self.cache.entry(key).or_insert_with(|| load(key)).",
            "compiles with the entry API",
        ],
        "queries": [
            ("exact", "E0499"),
            ("paraphrase", "rust complained about borrowing the cache twice"),
            ("stack-trace", "error[E0499]: cannot borrow `self.cache` as mutable more than once at a time"),
            ("typo", "cannot borow mutable more then once"),
        ],
    },
    {
        "key": "s3-presigned", "agent": "codex", "project": "media-upload", "day": 18,
        "memory": "S3 presigned URL upload failed with SignatureDoesNotMatch because of the content type",
        "turns": [
            "PUT to the presigned URL returns 403 SignatureDoesNotMatch from S3",
            "The URL was signed with ContentType image/jpeg but the browser sends image/png. Sign with the exact Content-Type the client will send, or leave it out of the signature.",
            "passing the file's type to the signing endpoint fixed it",
        ],
        "queries": [
            ("exact", "SignatureDoesNotMatch"),
            ("paraphrase", "upload to bucket with signed link rejected, content type mismatch"),
            ("wrong-detail", "presigned url 401 AccessDenied content-type"),
            ("typo", "presinged url signatre mismatch"),
        ],
    },
    {
        "key": "logging-duplicate", "agent": "claude-code", "project": "etl", "day": 20,
        "memory": "every log line printed twice because of propagate and two handlers",
        "turns": [
            "every log line appears twice in the ETL output",
            "The etl logger has its own StreamHandler and also propagates to the root logger, which basicConfig gave a handler. Set logger.propagate = False or drop the extra handler.",
            "propagate False did it",
        ],
        "queries": [
            ("exact", "propagate = False"),
            ("paraphrase", "log messages duplicated in output"),
            ("typo", "loggin lines printed twise"),
            ("meaning", "why does each message show up two times in my output"),
        ],
    },
    {
        "key": "mypy-optional", "agent": "claude-code", "project": "sdk-python", "day": 22,
        "memory": "mypy strict complained about Optional return without a None check",
        "turns": [
            "mypy --strict: error: Item \"None\" of \"Optional[Client]\" has no attribute \"send\"  [union-attr]",
            "get_client() can return None when the config lacks an API key. Narrow it: if client is None: raise ConfigError(...), then mypy knows it is a Client.",
            "all 14 union-attr errors gone",
        ],
        "queries": [
            ("exact", "union-attr"),
            ("paraphrase", "type checker complaining a value might be None"),
            ("stack-trace", "error: Item \"None\" of \"Optional[Client]\" has no attribute \"send\""),
            ("typo", "myyp optinal has no atribute"),
        ],
    },
    {
        "key": "vite-env", "agent": "claude-code", "project": "booking-web", "day": 24,
        "memory": "environment variables undefined in vite because they lacked the VITE_ prefix",
        "turns": [
            "import.meta.env.API_URL is undefined in the production build",
            "Vite only exposes variables prefixed with VITE_ to client code. Rename it to VITE_API_URL in .env.production and in the code.",
            "renamed, works",
        ],
        "queries": [
            ("exact", "import.meta.env"),
            ("paraphrase", "env var missing in the frontend bundle"),
            ("typo", "viet env varible undefined"),
        ],
    },
    {
        "key": "cache-invalidation-cdn", "agent": "codex", "project": "docs-site", "day": 26,
        "memory": "docs site showed the old version because cloudfront cached index.html",
        "turns": [
            "after deploy people still see last week's docs for hours",
            "CloudFront caches index.html for 24 h (Cache-Control max-age=86400). Serve HTML with no-cache and hashed assets with immutable, and create an invalidation for /index.html after each deploy.",
            "added aws cloudfront create-invalidation to the deploy job",
        ],
        "queries": [
            ("exact", "create-invalidation"),
            ("paraphrase", "visitors kept seeing the stale site after a release"),
            ("wrong-detail", "cloudflare caching old index.html after deploy"),
            ("typo", "cloudfrnt invaldation index html"),
        ],
    },
    {
        "key": "go-nil-map", "agent": "claude-code", "project": "metrics-agent", "day": 28,
        "memory": "go panic assignment to entry in nil map in the metrics collector",
        "turns": [
            "panic: assignment to entry in nil map at collector.go:88",
            "Collector.labels is declared but never made. Initialise it in NewCollector: labels: make(map[string]string).",
            "fixed, added a constructor test",
        ],
        "queries": [
            ("exact", "assignment to entry in nil map"),
            ("stack-trace", "panic: assignment to entry in nil map\n\ngoroutine 1 [running]:\nmain.(*Collector).Add(...)\n\tcollector.go:88"),
            ("paraphrase", "golang crash writing to a map that was never initialised"),
            ("typo", "asignment to entry in nill map"),
        ],
    },
    {
        "key": "pip-resolver", "agent": "claude-code", "project": "ml-pipeline", "day": 30,
        "memory": "pip dependency conflict between numpy 2 and an old pandas",
        "turns": [
            "pip install fails: ResolutionImpossible, pandas 1.5.3 depends on numpy<2 but torch wants numpy>=2",
            "Pin torch to 2.2.2 which still accepts numpy 1.26, or move pandas to 2.2 which supports numpy 2. I moved pandas to 2.2.2 and regenerated the lock file with uv pip compile.",
            "lock file regenerated",
        ],
        "queries": [
            ("exact", "ResolutionImpossible"),
            ("paraphrase", "package versions couldn't be satisfied, numpy conflict"),
            ("wrong-detail", "poetry resolution failed numpy 2 pandas 1.4"),
            ("typo", "numpi confilct pandas resolver"),
        ],
    },
    {
        "key": "websocket-proxy", "agent": "claude-code", "project": "chat-server", "day": 1,
        "memory": "websocket connections closed after 60 seconds behind the load balancer",
        "turns": [
            "websocket clients disconnect exactly after one minute of silence with close code 1006",
            "The ALB idle timeout is 60 s. Send a ping frame every 25 s from the server, and raise the idle timeout to 300 s for this target group.",
            "ping every 25 s keeps them alive",
        ],
        "queries": [
            ("exact", "close code 1006"),
            ("paraphrase", "realtime connections drop after a minute idle behind the load balancer"),
            ("wrong-detail", "websocket disconnects after 30 seconds nginx 1001"),
            ("typo", "websoket idle timout alb"),
        ],
    },
    {
        "key": "bash-set-e", "agent": "codex", "project": "release-tools", "day": 3,
        "memory": "release script continued after a failed command because of a pipe without pipefail",
        "turns": [
            "the release script uploaded an empty tarball even though the build step failed",
            "The build runs as make dist | tee build.log; with set -e alone the pipeline's status is tee's. Add set -o pipefail at the top.",
            "added set -euo pipefail",
        ],
        "queries": [
            ("exact", "set -o pipefail"),
            ("paraphrase", "shell script kept going after a failing step inside a pipe"),
            ("typo", "pipfail tee exit status"),
        ],
    },
    {
        "key": "ios-signing", "agent": "claude-code", "project": "mobile-app", "day": 5,
        "memory": "xcode build failed because the provisioning profile did not include the new device",
        "turns": [
            "Xcode: Provisioning profile \"Tasks Dev\" doesn't include the currently selected device \"QA iPhone 15\"",
            "Register the device's UDID in the developer portal, regenerate the development profile, and download it in Xcode settings; automatic signing will then pick it up.",
            "installed on the QA phone",
        ],
        "queries": [
            ("exact", "doesn't include the currently selected device"),
            ("paraphrase", "couldn't install the app on the test phone, signing profile"),
            ("typo", "provisionning profle device"),
        ],
    },
    {
        "key": "unicode-filename", "agent": "claude-code", "project": "file-sync", "day": 7,
        "memory": "files with accents duplicated between mac and linux because of NFD vs NFC",
        "turns": [
            "syncing from the Mac creates duplicate files like résumé.pdf twice on the Linux server",
            "macOS gives the name in NFD (e + combining accent), Linux keeps bytes as they are, so the two spellings differ. Normalize names to NFC with unicodedata.normalize before comparing.",
            "normalising on both ends fixed the duplicates",
        ],
        "queries": [
            ("exact", "unicodedata.normalize"),
            ("paraphrase", "same file appears twice after sync because accented names differ"),
            ("typo", "unicdoe normalisation nfd nfc duplicats"),
        ],
    },
    {
        "key": "cache-stampede", "agent": "codex", "project": "pricing-api", "day": 9,
        "memory": "thundering herd when the price cache expired at the same time",
        "turns": [
            "every hour on the hour the pricing API spikes to 100% CPU and latency goes to 9 s",
            "All price keys were set with the same 3600 s TTL at boot, so they expire together and every request recomputes. Add random jitter to the TTL and a single-flight lock so one request recomputes a key.",
            "jitter plus lock flattened the spikes",
        ],
        "queries": [
            ("exact", "single-flight lock"),
            ("paraphrase", "hourly cpu spike when cached prices all expire at once"),
            ("meaning", "thundering herd"),
            ("typo", "cahce expiry jiter"),
        ],
    },
    {
        "key": "oauth-redirect", "agent": "claude-code", "project": "partner-portal", "day": 11,
        "memory": "google oauth redirect_uri_mismatch on the staging domain",
        "turns": [
            "Google sign-in on staging says Error 400: redirect_uri_mismatch",
            "The app sends https://staging.partner.dev/auth/callback but the console only lists the production URL. Add the staging callback to Authorized redirect URIs.",
            "added it, login works on staging",
        ],
        "queries": [
            ("exact", "redirect_uri_mismatch"),
            ("paraphrase", "google login failing on the staging environment, callback url"),
            ("wrong-detail", "github oauth redirect uri mismatch staging"),
            ("typo", "redirct uri mismach google"),
        ],
    },
    {
        "key": "fd-leak", "agent": "claude-code", "project": "crawler", "day": 13,
        "memory": "crawler died with too many open files because responses weren't closed",
        "turns": [
            "after a few hours the crawler fails with OSError: [Errno 24] Too many open files",
            "Each fetch creates a new requests.Session and never closes the response when raising for status. Use one Session with a context manager and close responses in a finally block; ulimit -n was 1024.",
            "open fds stay around 60 now",
        ],
        "queries": [
            ("exact", "Too many open files"),
            ("paraphrase", "scraper ran out of file descriptors after hours"),
            ("stack-trace", "OSError: [Errno 24] Too many open files"),
            ("typo", "to many open fils crawler"),
        ],
    },
    {
        "key": "float-money", "agent": "claude-code", "project": "payments", "day": 15,
        "memory": "invoice totals off by a cent because of floats, switched to Decimal",
        "turns": [
            "invoice total shows 10.199999999 and sometimes rounds a cent wrong",
            "Money is kept as float. Store amounts as integer cents or decimal.Decimal, and round with ROUND_HALF_UP only when displaying.",
            "migrated the amount columns to NUMERIC(12,2)",
        ],
        "queries": [
            ("exact", "ROUND_HALF_UP"),
            ("paraphrase", "invoice totals wrong by one cent rounding"),
            ("typo", "floting point invocie cent"),
            ("cross-language", "金额计算差一分钱 浮点数"),
        ],
    },
]
