"""Sessions whose telling words stand only in a tool's output (issue 32: "find the session by the
error I half remember"): the person and the agent talk around it ("the tests are red", "fixed
it"), the pytest line, the traceback or the compiler error is in what a command printed. Each
query is written from the one-line ``memory``, as a person would type it days later (a piece of
the error as remembered, a wrong number, a typo), not copied from the output.

Group: output.
"""

PYTEST_HEAD = "============================= test session starts ==============================\nplatform linux -- Python 3.12.3, pytest-8.3.2\ncollected 48 items\n\n"

SESSIONS = [
    {
        "key": "out-bulk-checkout", "agent": "claude-code", "project": "storefront", "day": 11,
        "memory": "the bulk checkout test was off by one on the quantity total",
        "turns": [
            "run the order tests before I push",
            "Running the order suite now, quietly.",
            {"run": "pytest tests/orders -q", "output": PYTEST_HEAD
             + "tests/orders/test_checkout.py ....F....\n\n=================================== FAILURES ===================================\n"
               "________________________ test_bulk_checkout_totals ________________________\n"
               "E       AssertionError: assert 41 == 42\n"
               "FAILED tests/orders/test_checkout.py::test_bulk_checkout_totals - AssertionError: assert 41 == 42\n"
               "========================= 1 failed, 47 passed in 3.18s ========================="},
            "ugh, what broke",
            "The loop that adds up line quantities starts at the second line. I made it start at the first; all green now.",
        ],
        "queries": [("output", "test_bulk_checkout failing"), ("output", "bulk checkout totals assert 42 == 43")],
    },
    {
        "key": "out-invoice-currency", "agent": "claude-code", "project": "invoicing", "day": 12,
        "memory": "the invoice page crashed with a KeyError for the currency field",
        "turns": [
            "the invoice preview page is blank for some customers",
            "Let me render one of those invoices from the Django shell.",
            {"run": "python manage.py render_invoice 8812",
             "output": "Traceback (most recent call last):\n  File \"/app/invoices/render.py\", line 88, in render_totals\n"
                       "    symbol = SYMBOLS[invoice.meta['currency']]\nKeyError: 'currency'"},
            "those are the old customers from before the migration",
            "Their invoices have no currency in meta. I default it to the account's currency when it is missing.",
        ],
        "queries": [("output", "KeyError currency invoice render"), ("output", "keyerror 'currancy' in render_totals")],
    },
    {
        "key": "out-tsc-module", "agent": "codex", "project": "web-dashboard", "day": 13,
        "memory": "typescript could not find the format module after the shared utils moved",
        "turns": [
            "I moved the shared helpers into packages/shared, make the build pass again",
            "I'll run the TypeScript check before touching imports.",
            {"run": "pnpm tsc --noEmit",
             "output": "src/pages/report.tsx(3,28): error TS2307: Cannot find module '@/lib/format' or its corresponding type declarations.\n"
                       "src/pages/usage.tsx(5,10): error TS2307: Cannot find module '@/lib/format' or its corresponding type declarations.\n"
                       "Found 2 errors in 2 files."},
            "right, the old alias",
            "Both pages now import from @acme/shared/format and the tsconfig path alias for @/lib is gone.",
        ],
        "queries": [("output", "TS2307 cannot find module lib/format"), ("output", "tsc error cant find module format after moving utils")],
    },
    {
        "key": "out-nginx-refused", "agent": "claude-code", "project": "edge-proxy", "day": 14,
        "memory": "staging gave 502s because nginx got connection refused from the upstream",
        "turns": [
            "staging returns 502 on every API route since this morning",
            "I'll read the last lines of the proxy container's logs.",
            {"run": "docker compose logs --tail 20 nginx",
             "output": "nginx-1  | 2026/02/14 08:12:09 [error] 29#29: *1201 connect() failed (111: Connection refused) while connecting to upstream, "
                       "client: 10.0.3.7, server: api.staging, request: \"GET /v2/orders HTTP/1.1\", upstream: \"http://172.18.0.5:8080/v2/orders\""},
            "the api container restarted last night",
            "It came back on port 8000 after the base image change. I set the port back to 8080 in the compose file.",
        ],
        "queries": [("output", "connection refused while connecting to upstream"), ("output", "nginx 111 refused upstream 8000 staging")],
    },
    {
        "key": "out-docker-space", "agent": "claude-code", "project": "ml-pipeline", "day": 15,
        "memory": "the docker image build died because the disk was full",
        "turns": [
            "the training image build stops halfway, can you see why",
            "Running the image build with plain progress output.",
            {"run": "docker build --progress=plain -t trainer .",
             "output": "#12 [5/9] RUN pip install -r requirements.txt\n#12 41.30 Installing collected packages: torch\n"
                       "#12 ERROR: failed to solve: write /var/lib/docker/overlay2/x1/diff/usr/lib/python3/torch/lib/libtorch_cuda.so: no space left on device"},
            "we build a lot of images on that box",
            "The build cache held 180 GB. I pruned it and added a weekly prune to the runner's cron.",
        ],
        "queries": [("output", "no space left on device docker build"), ("output", "docker build failed disk full overlay2")],
    },
    {
        "key": "out-npm-eresolve", "agent": "codex", "project": "marketing-site", "day": 16,
        "memory": "npm install refused because a package wanted react 18 and we had 19",
        "turns": [
            "install the new carousel package",
            "Adding the carousel with npm install.",
            {"run": "npm install @acme/carousel",
             "output": "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR! Found: react@19.0.0\n"
                       "npm ERR! Could not resolve dependency:\nnpm ERR! peer react@\"^18.2.0\" from @acme/carousel@2.4.1"},
            "do we have to downgrade?",
            "No: version 3 of the carousel supports the current React. I installed 3.0.2 instead.",
        ],
        "queries": [("output", "ERESOLVE peer react 18 carousel"), ("output", "npm unable to resolve dependency tree react")],
    },
    {
        "key": "out-psql-auth", "agent": "claude-code", "project": "payments-db", "day": 17,
        "memory": "the migration job could not log in to postgres, password auth failed for the app user",
        "turns": [
            "the migration job in the pipeline is red again",
            "Running the migration script locally with the pipeline's settings.",
            {"run": "./scripts/migrate.sh --env ci",
             "output": "psql: error: connection to server at \"db.ci.internal\" (10.4.0.12), port 5432 failed: "
                       "FATAL:  password authentication failed for user \"app\""},
            "someone rotated the secrets on friday",
            "The pipeline still had the old secret. I pointed the job at the secret manager entry instead of the copied value.",
        ],
        "queries": [("output", "password authentication failed for user app"), ("output", "psql fatal auth failed migration ci")],
    },
    {
        "key": "out-go-nilmap", "agent": "claude-code", "project": "rate-limiter", "day": 18,
        "memory": "the go rate limiter panicked writing to a nil map",
        "turns": [
            "the limiter tests crash sometimes",
            "Running the limiter package tests with the race detector.",
            {"run": "go test -race ./limiter/...",
             "output": "--- FAIL: TestBurst (0.00s)\npanic: assignment to entry in nil map [recovered]\n\tpanic: assignment to entry in nil map\n\n"
                       "goroutine 7 [running]:\nexample.com/limiter.(*Bucket).Take(0xc000126000, {0x6b3a20, 0x3})\n\t/src/limiter/bucket.go:42 +0x1c5"},
            "only when a key is new?",
            "Yes: buckets made by the zero value never got their map. The constructor makes it now, and Take checks for nil.",
        ],
        "queries": [("output", "assignment to entry in nil map"), ("output", "go panic nil map bucket Take limiter")],
    },
    {
        "key": "out-rust-borrow", "agent": "codex", "project": "tile-server", "day": 19,
        "memory": "rust borrow checker error on the cache, mutable and immutable borrow at once",
        "turns": [
            "add a hit counter to the tile cache",
            "Adding a counter field to the tile cache and building.",
            {"run": "cargo build",
             "output": "error[E0502]: cannot borrow `self.cache` as mutable because it is also borrowed as immutable\n"
                       "  --> src/cache.rs:57:13\n   |\n55 |         let tile = self.cache.get(&key);\n"
                       "error: could not compile `tile-server` (lib) due to 1 previous error"},
            "classic",
            "I copy the tile out before counting, so the lookup's borrow ends first.",
        ],
        "queries": [("output", "E0502 cannot borrow cache as mutable"), ("output", "borrow checker error tile cache hit counter E0499")],
    },
    {
        "key": "out-docker-sock", "agent": "claude-code", "project": "ci-runners", "day": 20,
        "memory": "the CI runner could not talk to docker, permission denied on the socket",
        "turns": [
            "the new runner fails every job at the image step",
            "Checking whether the runner user can reach docker.",
            {"run": "sudo -u runner docker ps",
             "output": "permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: "
                       "Get \"http://%2Fvar%2Frun%2Fdocker.sock/v1.45/containers/json\": dial unix /var/run/docker.sock: connect: permission denied"},
            "it worked on the old runner",
            "The runner user was not in the docker group on the new machine. Added it and restarted the service.",
        ],
        "queries": [("output", "docker.sock permission denied runner"), ("output", "permision denied docker daemon socket ci")],
    },
    {
        "key": "out-yaml-module", "agent": "codex", "project": "deploy-tools", "day": 21,
        "memory": "the deploy script died because the yaml module was not installed",
        "turns": [
            "run the deploy dry run for the eu cluster",
            "Running the eu dry run from the deploy tools folder.",
            {"run": "python deploy.py --cluster eu --dry-run",
             "output": "Traceback (most recent call last):\n  File \"/home/dev/deploy-tools/deploy.py\", line 4, in <module>\n"
                       "    import yaml\nModuleNotFoundError: No module named 'yaml'"},
            "it's a fresh venv",
            "PyYAML was never in requirements.txt; it came with an old global install. Added it and pinned it.",
        ],
        "queries": [("output", "ModuleNotFoundError yaml deploy"), ("output", "no module named yaml in deploy.py dry run")],
    },
    {
        "key": "out-vips-segfault", "agent": "claude-code", "project": "image-resizer", "day": 22,
        "memory": "the image resize worker segfaulted on some huge pngs",
        "turns": [
            "the thumbnail worker dies without any log line",
            "Running the worker on one file from the failed thumbnail queue.",
            {"run": "python -X faulthandler worker.py --one uploads/8f2a.png",
             "output": "Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f3b (most recent call first):\n"
                       "  File \"/app/resize.py\", line 31 in thumbnail\nSegmentation fault (core dumped)"},
            "that png is 30000 pixels wide",
            "libvips runs out of its own limits there. I check the dimensions first and send huge images to a slower path.",
        ],
        "queries": [("output", "resize worker segmentation fault core dumped"), ("output", "segfault thumbnail png huge libvips")],
    },
]
