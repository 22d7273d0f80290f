"""English operations sessions: certificates and nginx, Docker Compose, websockets, notes."""

from __future__ import annotations

from bench.quality.ranking.authoring.model import Script, agent, bash, edit, grep, read, user, write

NGINX_CERT_RELOAD = Script(
    slug="nginx-cert-reload",
    agent="claude-code",
    lang="en",
    cwd="/home/mei/src/shop-infra",
    start="2026-03-03T08:12:40Z",
    about="certbot had renewed the shop certificate but nginx kept serving the old one; reloaded nginx "
    "and added a certbot deploy hook (reload-nginx.sh) so renewals reload it",
    title="Browsers still get the expired certificate after certbot renewal",
    turns=(
        user("shop.example.dev is showing an expired certificate in Chrome again. certbot says the cert "
             "was renewed last week so I don't get it. can you check the box? you're on the server already"),
        agent("Let me compare what certbot has on disk with what nginx is actually serving.",
              bash("sudo certbot certificates",
                   "Found the following certs:\n  Certificate Name: shop.example.dev\n    Serial Number: 4a1f0c2e9b\n"
                   "    Key Type: ECDSA\n    Domains: shop.example.dev www.shop.example.dev\n"
                   "    Expiry Date: 2026-05-27 07:02:11+00:00 (VALID: 84 days)\n"
                   "    Certificate Path: /etc/letsencrypt/live/shop.example.dev/fullchain.pem\n"),
              bash("echo | openssl s_client -connect shop.example.dev:443 -servername shop.example.dev 2>/dev/null | openssl x509 -noout -dates -serial",
                   "notBefore=Nov 28 07:03:40 2025 GMT\nnotAfter=Feb 26 07:03:39 2026 GMT\nserial=03B9D77E21")),
        agent("The file on disk is the new certificate (serial 4a1f0c2e9b, valid until 27 May), but the server "
              "still hands out the old one (serial 03B9D77E21, expired 26 Feb). nginx reads certificates only at "
              "start or reload, and nothing reloaded it after the renewal. I'll check the config and reload.",
              bash("sudo nginx -t",
                   "nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\n"
                   "nginx: configuration file /etc/nginx/nginx.conf test is successful"),
              bash("sudo nginx -s reload", ""),
              bash("echo | openssl s_client -connect shop.example.dev:443 -servername shop.example.dev 2>/dev/null | openssl x509 -noout -dates -serial",
                   "notBefore=Feb 26 07:02:12 2026 GMT\nnotAfter=May 27 07:02:11 2026 GMT\nserial=4A1F0C2E9B"),
              thinking="Disk cert valid till May, served cert expired Feb 26 with a different serial. nginx still has the old file loaded: it was never reloaded after renewal."),
        agent("Reloaded: the server now presents the renewed certificate (valid until 27 May 2026). Chrome may "
              "need a hard refresh. To stop this happening at the next renewal, certbot needs a deploy hook."),
        user("yes please add the hook. and check whether the renew timer is even running"),
        agent("",
              bash("systemctl list-timers certbot.timer --no-pager",
                   "NEXT                        LEFT     LAST                        PASSED  UNIT          ACTIVATES\n"
                   "Tue 2026-03-03 19:41:00 UTC 11h left Tue 2026-03-03 07:12:00 UTC 1h ago  certbot.timer certbot.service"),
              bash("ls /etc/letsencrypt/renewal-hooks/deploy/", ""),
              write("/etc/letsencrypt/renewal-hooks/deploy/reload-nginx.sh",
                    "#!/bin/sh\n# certbot runs this after every successful renewal\nnginx -t && nginx -s reload\n"),
              bash("sudo chmod 755 /etc/letsencrypt/renewal-hooks/deploy/reload-nginx.sh && sudo certbot renew --dry-run",
                   "Saving debug log to /var/log/letsencrypt/letsencrypt.log\nProcessing /etc/letsencrypt/renewal/shop.example.dev.conf\n"
                   "Simulating renewal of an existing certificate for shop.example.dev and www.shop.example.dev\n"
                   "Congratulations, all simulated renewals succeeded:\n  /etc/letsencrypt/live/shop.example.dev/fullchain.pem (success)\n"
                   "Dry run: skipping deploy hook command: /etc/letsencrypt/renewal-hooks/deploy/reload-nginx.sh")),
        agent("Done. The certbot.timer runs twice a day and the renewal itself works; the missing piece was the "
              "reload. `/etc/letsencrypt/renewal-hooks/deploy/reload-nginx.sh` now runs `nginx -t && nginx -s reload` "
              "after each successful renewal (the dry run lists it and skips it, as it should). I also put the script "
              "in the repo under `hosts/shop/letsencrypt/` so the next rebuild keeps it."),
        user("great, thanks. commit the repo copy", gap=300),
        agent("",
              bash("git add hosts/shop/letsencrypt/reload-nginx.sh && git commit -m 'certbot: reload nginx after renewal'",
                   "[main 81c2e4d] certbot: reload nginx after renewal\n 1 file changed, 3 insertions(+)\n create mode 100755 hosts/shop/letsencrypt/reload-nginx.sh")),
        agent("Committed as 81c2e4d."),
    ),
)

COMPOSE_POSTGRES_RESTART = Script(
    slug="compose-postgres-restart",
    agent="claude-code",
    lang="en",
    cwd="/home/mei/src/shop-api",
    start="2026-02-10T14:03:05Z",
    about="after pulling, docker compose up -d left the db container restarting: postgres:latest had moved "
    "to 16 and could not read the version-15 data volume; pinned postgres:15.6 in compose.yaml",
    title="Postgres container restart loop after docker compose up",
    turns=(
        user("after I pulled main and ran `docker compose up -d` the db container keeps restarting and the api "
             "can't connect. nothing changed in the schema"),
        agent("Let me look at the container state and the database logs.",
              bash("docker compose ps",
                   "NAME           IMAGE             COMMAND                  SERVICE   STATUS                         PORTS\n"
                   "shop-api-api-1 shop-api-api      \"uvicorn app.main:a…\"   api       Up 2 minutes                   0.0.0.0:8000->8000/tcp\n"
                   "shop-api-db-1  postgres:latest   \"docker-entrypoint.s…\"   db        Restarting (1) 9 seconds ago"),
              bash("docker compose logs db --tail 50",
                   "db-1  | PostgreSQL Database directory appears to contain a database; Skipping initialization\n"
                   "db-1  | 2026-02-10 14:03:31.224 UTC [1] FATAL:  database files are incompatible with server\n"
                   "db-1  | 2026-02-10 14:03:31.224 UTC [1] DETAIL:  The data directory was initialized by PostgreSQL version 15, which is not compatible with this version 16.2 (Debian 16.2-1.pgdg120+2).")),
        agent("Found it: `FATAL: database files are incompatible with server`. The compose file uses "
              "`postgres:latest`, the pull brought in 16.2, and the `pgdata` volume was initialised by 15. "
              "Postgres cannot open an older major version's data directory in place.",
              read("compose.yaml",
                   "services:\n  api:\n    build: .\n    env_file: .env\n    ports:\n      - \"8000:8000\"\n    depends_on:\n      - db\n"
                   "  db:\n    image: postgres:latest\n    environment:\n      POSTGRES_USER: shop\n      POSTGRES_PASSWORD: shop\n"
                   "    volumes:\n      - pgdata:/var/lib/postgresql/data\nvolumes:\n  pgdata:\n")),
        agent("Two ways out: pin the image back to 15 (no data change), or dump and restore into 16. For a dev "
              "database I'd pin now and plan the upgrade separately. Pin it?"),
        user("pin it, we'll do the 16 upgrade with pg_upgrade later"),
        agent("",
              edit("compose.yaml", "    image: postgres:latest", "    image: postgres:15.6"),
              bash("docker compose up -d db && sleep 5 && docker compose ps db",
                   "[+] Running 1/1\n ✔ Container shop-api-db-1  Started\n"
                   "NAME          IMAGE           COMMAND                  SERVICE   STATUS         PORTS\n"
                   "shop-api-db-1 postgres:15.6   \"docker-entrypoint.s…\"   db        Up 5 seconds   5432/tcp"),
              bash("docker compose exec db psql -U shop -c 'select version()'",
                   "                                      version\n-----------------------------------------------------------------------------------\n"
                   " PostgreSQL 15.6 (Debian 15.6-1.pgdg120+2) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14) 12.2.0, 64-bit\n(1 row)")),
        agent("The db container is up on 15.6 and the api reconnected. `compose.yaml` now pins `postgres:15.6` "
              "so a pull can't change the major version under the volume again. When you do the upgrade: "
              "`pg_dumpall` from 15, a fresh volume for 16, restore, then bump the tag."),
    ),
)

WEBSOCKET_HEARTBEAT = Script(
    slug="websocket-heartbeat",
    agent="codex",
    lang="en",
    cwd="/home/mei/src/shop-api",
    start="2026-04-22T09:40:00Z",
    about="live order updates dropped after 60 s idle behind the load balancer; added a 25 s ping/pong "
    "heartbeat on the server and a reconnect with backoff in the client",
    traps="split query: 'websocket' is only in the user's messages, 'heartbeat' only in the agent's",
    turns=(
        user("the order status websocket on the admin page disconnects after about a minute when nothing "
             "happens. works fine locally. prod is behind the AWS ALB"),
        agent("",
              grep("idle_timeout|keepalive", "infra/", "infra/alb.tf:31:  idle_timeout = 60"),
              read("app/realtime/orders_ws.py",
                   "from fastapi import WebSocket\n\nasync def order_updates(ws: WebSocket, shop_id: int):\n    await ws.accept()\n"
                   "    async for event in bus.subscribe(f\"orders:{shop_id}\"):\n        await ws.send_json(event)\n")),
        agent("The load balancer has `idle_timeout = 60`, and the server only writes when an order event "
              "arrives, so a quiet minute means the ALB closes the connection. The fix is a heartbeat: the "
              "server sends a ping every 25 s, which keeps traffic under the idle limit, and the client "
              "reconnects with backoff if a pong is missed.",
              thinking="The ALB closes idle connections after 60 s and the server only sends when there is an order event."),
        user("ok do that. keep the timeout at 60 on the ALB"),
        agent("",
              write("app/realtime/heartbeat.py",
                    "import asyncio\n\nPING_EVERY = 25  # seconds, under the ALB's 60 s idle timeout\n\n"
                    "async def keep_alive(ws):\n    while True:\n        await asyncio.sleep(PING_EVERY)\n        await ws.send_json({\"type\": \"ping\"})\n"),
              edit("app/realtime/orders_ws.py", "    await ws.accept()\n",
                   "    await ws.accept()\n    pinger = asyncio.create_task(keep_alive(ws))\n"),
              edit("admin/src/live/ordersSocket.ts", "socket.onclose = () => setStatus('closed')",
                   "socket.onclose = () => scheduleReconnect(backoff.next())"),
              bash("uv run pytest -q tests/realtime", "....\n4 passed in 0.61s")),
        agent("Added `app/realtime/heartbeat.py` (ping every 25 s), started it next to the subscription, and "
              "the admin client now reconnects with exponential backoff (1 s, 2 s, 4 s … capped at 30 s) "
              "instead of showing 'closed'. Tests pass."),
        user("deployed to staging. how do I check it from the terminal?", gap=1800),
        agent("",
              bash("wscat -c 'wss://staging.shop.example.dev/ws/orders?shop=12' -H 'Authorization: Bearer $TOKEN'",
                   "Connected (press CTRL+C to quit)\n< {\"type\":\"ping\"}\n< {\"type\":\"ping\"}\n< {\"type\":\"ping\"}")),
        agent("`wscat -c` stays connected past two minutes and shows a ping every 25 s, so the ALB no longer "
              "sees an idle connection."),
    ),
)

STAGING_PASSWORD_NOTE = Script(
    slug="staging-password-note",
    agent="pi",
    lang="en",
    cwd="/home/mei/src/shop-infra",
    start="2026-03-27T17:55:10Z",
    about="a short note: the staging database password rotates on the 1st; update .env.staging and the "
    "STAGING_DB_PASSWORD secret",
    traps="a short note as the right answer",
    turns=(
        user("note for later: staging db password rotates on the 1st of every month. when it does, update "
             ".env.staging and the STAGING_DB_PASSWORD secret in GitHub, otherwise deploys fail at migrate"),
        agent("Noted. On the 1st: new password into `.env.staging` and the `STAGING_DB_PASSWORD` repository "
              "secret, then re-run the staging deploy."),
    ),
)

MAKEFILE_TABS = Script(
    slug="makefile-missing-separator",
    agent="pi",
    lang="en",
    cwd="/home/jo/src/weather-cards",
    start="2026-03-05T19:20:00Z",
    about="make failed with 'missing separator' because an editor had turned the recipe tabs into spaces; "
    "restored tabs and added an .editorconfig rule for Makefiles",
    turns=(
        user("make build suddenly says\n\nMakefile:14: *** missing separator.  Stop.\n\nI only renamed a target"),
        agent("That error almost always means a recipe line starts with spaces instead of a tab. Let me see "
              "the whitespace.",
              bash("cat -A Makefile | sed -n 12,16p",
                   "build: assets$\n    uv run python -m weather_cards.build$\n$\nassets:$\n\tnpm run build --prefix web$")),
        agent("Line 13 is indented with four spaces (`cat -A` shows tabs as `^I`, and there is none), so make "
              "reads it as a new rule and stops on line 14. Your editor converted the tab when you renamed the target.",
              edit("Makefile", "build: assets\n    uv run python -m weather_cards.build",
                   "build: assets\n\tuv run python -m weather_cards.build"),
              write(".editorconfig", "root = true\n\n[Makefile]\nindent_style = tab\n"),
              bash("make build", "npm run build --prefix web\nuv run python -m weather_cards.build\nwrote dist/cards.html")),
        agent("Fixed: the recipe uses a tab again and `make build` works. `.editorconfig` now tells the editor "
              "to keep tabs in the Makefile."),
    ),
)

SCRIPTS = (NGINX_CERT_RELOAD, COMPOSE_POSTGRES_RESTART, WEBSOCKET_HEARTBEAT, STAGING_PASSWORD_NOTE, MAKEFILE_TABS)
