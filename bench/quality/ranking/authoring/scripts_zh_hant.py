"""Traditional Chinese sessions (Taiwan): a Big5 CSV, an idempotent migration with a rollback,
a Redis connection pool, a garbled download file name."""

from __future__ import annotations

from bench.quality.ranking.authoring.model import Script, agent, bash, edit, grep, read, user, write

BIG5_CSV = Script(
    slug="big5-csv-hkscs",
    agent="claude-code",
    lang="zh-Hant",
    cwd="/Users/chen/work/erp-export",
    start="2026-02-18T02:30:00Z",
    about="舊 ERP 匯出的 customers_2019.csv 是 Big5；iconv -f BIG5 在香港增補字符停住 (illegal input "
    "sequence)，改用 BIG5-HKSCS 轉成 UTF-8，匯入程式加上 --encoding",
    traps="'亂碼' is only in the user's prompt; 'iconv -f' is shared with a Shift_JIS session",
    turns=(
        user("舊 ERP 匯出的 data/customers_2019.csv 匯入之後，中文全部變成亂碼，客戶名稱變成「�Ȥ�W��」這種。"
             "幫我看一下這個 csv 到底是什麼編碼"),
        agent("我先看一下檔案的編碼。",
              bash("file -i data/customers_2019.csv", "data/customers_2019.csv: text/plain; charset=unknown-8bit"),
              bash("uchardet data/customers_2019.csv", "BIG5")),
        agent("這個檔案是 Big5 編碼，不是 UTF-8。匯入程式用 UTF-8 去讀，所以中文字都讀錯了。先用 iconv 轉成 UTF-8：",
              bash("iconv -f BIG5 -t UTF-8 data/customers_2019.csv > data/customers_2019.utf8.csv",
                   "iconv: illegal input sequence at position 48213", error=True)),
        agent("iconv 在第 48213 個位元組停下來了（illegal input sequence at position 48213），表示那裡有標準 "
              "Big5 沒有的字。看一下是哪一筆：",
              bash("head -c 48300 data/customers_2019.csv | tail -n 1 | iconv -f BIG5-HKSCS -t UTF-8",
                   "C2019-07731,陳志堃,台北市大安區,02-2700-1234")),
        agent("是「堃」這個字。它在香港增補字符集（HKSCS）裡，標準 BIG5 沒有，所以要用 BIG5-HKSCS 來轉。"
              "人名常用的「堃」「峯」「綉」都屬於這一類。",
              bash("iconv -f BIG5-HKSCS -t UTF-8 data/customers_2019.csv > data/customers_2019.utf8.csv && wc -l data/customers_2019.utf8.csv",
                   "12409 data/customers_2019.utf8.csv"),
              read("scripts/import_customers.py",
                   "import csv\n\ndef load(path):\n    with open(path, newline='', encoding='utf-8') as f:\n        return list(csv.DictReader(f))\n"),
              edit("scripts/import_customers.py", "def load(path):\n    with open(path, newline='', encoding='utf-8') as f:",
                   "def load(path, encoding='big5hkscs'):\n    with open(path, newline='', encoding=encoding) as f:")),
        agent("轉好了：12,408 筆客戶資料（加標題列共 12,409 行），名字都正常。匯入程式 `scripts/import_customers.py` "
              "現在預設用 `big5hkscs` 讀，新的 UTF-8 檔可以用 `--encoding utf-8` 指定。"),
        user("其他年份的匯出檔也都是這種編碼嗎？"),
        agent("",
              bash("for f in data/customers_20*.csv; do printf '%s ' \"$f\"; uchardet \"$f\"; done",
                   "data/customers_2017.csv BIG5\ndata/customers_2018.csv BIG5\ndata/customers_2019.csv BIG5\n"
                   "data/customers_2020.csv UTF-8\ndata/customers_2021.csv UTF-8")),
        agent("2019 年（含）以前的匯出都是 Big5，2020 年起 ERP 升級後改成 UTF-8。舊檔一律用 BIG5-HKSCS 轉，"
              "比標準 BIG5 多涵蓋香港字，對一般 Big5 檔也完全相容。"),
    ),
)

SHIPPED_AT_MIGRATION = Script(
    slug="orders-shipped-at-migration",
    agent="claude-code",
    lang="zh-Hant",
    cwd="/Users/chen/work/shop-backend",
    start="2026-03-11T06:10:00Z",
    about="orders 表加 shipped_at 欄位和索引：冪等的遷移 (IF NOT EXISTS，跑兩次驗證)、回滾用的 down 檔、"
    "回填舊資料的 UPDATE 也冪等",
    traps="Traditional script (遷移 冪等 回滾) for Simplified queries; single-character words 表 加",
    turns=(
        user("orders 表要加一個欄位 shipped_at（出貨時間），順便加索引。遷移要冪等，跑兩次不能出錯，"
             "也要有回滾的腳本。照 migrations/ 裡面原本的寫法"),
        agent("我先看現有的遷移檔怎麼寫。",
              bash("ls migrations | tail -n 4", "0040_add_coupon_code.down.sql\n0040_add_coupon_code.up.sql\n0041_invoice_due_date.down.sql\n0041_invoice_due_date.up.sql"),
              read("migrations/0041_invoice_due_date.up.sql",
                   "ALTER TABLE invoices ADD COLUMN IF NOT EXISTS due_date date;\n")),
        agent("原本的寫法是一個編號兩個檔（up / down），用 `IF NOT EXISTS` 保持冪等。索引在大表上要用 "
              "`CONCURRENTLY`，它不能在交易裡跑，所以照慣例不加 `-1`。",
              write("migrations/0042_add_shipped_at.up.sql",
                    "ALTER TABLE orders ADD COLUMN IF NOT EXISTS shipped_at timestamptz;\n"
                    "CREATE INDEX CONCURRENTLY IF NOT EXISTS idx_orders_shipped_at ON orders (shipped_at);\n"),
              write("migrations/0042_add_shipped_at.down.sql",
                    "DROP INDEX CONCURRENTLY IF EXISTS idx_orders_shipped_at;\nALTER TABLE orders DROP COLUMN IF EXISTS shipped_at;\n"),
              bash("psql \"$DATABASE_URL\" -v ON_ERROR_STOP=1 -f migrations/0042_add_shipped_at.up.sql",
                   "ALTER TABLE\nCREATE INDEX"),
              bash("psql \"$DATABASE_URL\" -v ON_ERROR_STOP=1 -f migrations/0042_add_shipped_at.up.sql",
                   "psql:migrations/0042_add_shipped_at.up.sql:1: NOTICE:  column \"shipped_at\" of relation \"orders\" already exists, skipping\n"
                   "ALTER TABLE\npsql:migrations/0042_add_shipped_at.up.sql:2: NOTICE:  relation \"idx_orders_shipped_at\" already exists, skipping\nCREATE INDEX")),
        agent("第二次執行只有 NOTICE（already exists, skipping），沒有錯誤，所以這個遷移是冪等的。接著測回滾：",
              bash("psql \"$DATABASE_URL\" -v ON_ERROR_STOP=1 -f migrations/0042_add_shipped_at.down.sql && "
                   "psql \"$DATABASE_URL\" -c '\\d orders' | grep shipped_at || echo '欄位已移除'",
                   "DROP INDEX\nALTER TABLE\n欄位已移除"),
              bash("psql \"$DATABASE_URL\" -v ON_ERROR_STOP=1 -f migrations/0042_add_shipped_at.up.sql", "ALTER TABLE\nCREATE INDEX")),
        agent("回滾（down）和重新套用（up）都正常。`0042_add_shipped_at.up.sql` 加欄位和索引，"
              "`0042_add_shipped_at.down.sql` 把兩個都拿掉，兩個檔都可以重複執行。"),
        user("舊訂單的 shipped_at 要從 shipments 表回填，這個 UPDATE 也要冪等嗎？"),
        agent("要，部署時遷移可能重跑。條件加上 `shipped_at IS NULL`，第二次就不會再改到任何一列；"
              "分批執行避免長時間鎖表。",
              write("migrations/0043_backfill_shipped_at.up.sql",
                    "UPDATE orders o SET shipped_at = s.shipped_at\nFROM shipments s\n"
                    "WHERE s.order_id = o.id AND o.shipped_at IS NULL AND o.id IN (\n"
                    "  SELECT id FROM orders WHERE shipped_at IS NULL ORDER BY id LIMIT 5000\n);\n"),
              bash("for i in 1 2 3 4 5 6 7 8 9; do psql \"$DATABASE_URL\" -qt -f migrations/0043_backfill_shipped_at.up.sql; done",
                   "UPDATE 5000\nUPDATE 5000\nUPDATE 5000\nUPDATE 5000\nUPDATE 5000\nUPDATE 5000\nUPDATE 3117\nUPDATE 0\nUPDATE 0")),
        agent("回填完成，共 33,117 筆；後面兩次都是 `UPDATE 0`，證明重跑不會有副作用。回填不需要回滾檔："
              "down 移除欄位時資料就一起消失了。"),
    ),
)

REDIS_POOL = Script(
    slug="redis-pool-exhausted",
    agent="pi",
    lang="zh-Hant",
    cwd="/Users/lin/work/api-gateway",
    start="2026-04-27T05:40:00Z",
    about="尖峰時段 redis-py 報 Too many connections：64 個執行緒共用上限 20 的連接池，連接池耗盡；"
    "改成 BlockingConnectionPool 並把上限調成和執行緒數一致",
    traps="Traditional 連接池 耗盡 for a Simplified query 连接池 耗尽",
    turns=(
        user("尖峰時段 API 一直噴 redis.exceptions.ConnectionError: Too many connections，可是 Redis 那邊 "
             "INFO clients 看起來才用到 maxclients 的一半，到底是哪裡滿了？"),
        agent("",
              grep("ConnectionPool|max_connections", "gateway", "gateway/cache.py:9:pool = redis.ConnectionPool.from_url(REDIS_URL, max_connections=20)"),
              bash("grep -n threads gunicorn.conf.py", "7:threads = 64"),
              thinking="redis-py raises 'Too many connections' client-side when its pool is exhausted, not the server."),
        agent("滿的是客戶端，不是 Redis 伺服器。這個錯誤是 redis-py 的連接池發出的：每個 gunicorn worker 有 "
              "64 個執行緒，但連接池上限只有 20，尖峰時 20 條連線都被借走，第 21 個請求就直接丟例外，"
              "連接池耗盡。Redis 伺服器那邊當然還很空。"),
        user("那要怎麼改？直接把上限調大嗎"),
        agent("調大要配合執行緒數，另外改用 `BlockingConnectionPool`：池子用完時會等一下，而不是馬上失敗。",
              edit("gateway/cache.py",
                   "pool = redis.ConnectionPool.from_url(REDIS_URL, max_connections=20)",
                   "pool = redis.BlockingConnectionPool.from_url(REDIS_URL, max_connections=64, timeout=2)"),
              bash("uv run locust -f loadtest/peak.py --headless -u 400 -r 50 -t 2m 2>&1 | tail -n 3",
                   "Aggregated  48211  0(0.00%) |  38  12  410  31 | 401.7  0.00\nResponse time percentiles (approximated)\n"
                   "Aggregated   31   35   40   44   61   92  170  260  410  410  410  48211")),
        agent("壓測 400 個使用者兩分鐘，0 個錯誤。現在每個 worker 的連接池上限 64，和執行緒數一樣；4 個 worker "
              "最多 256 條連線，仍低於 Redis 的 maxclients 10000。真的耗盡時請求最多等 2 秒才失敗。"),
    ),
)

EXCEL_FILENAME = Script(
    slug="excel-download-filename",
    agent="codex",
    lang="zh-Hant",
    cwd="/Users/chen/work/shop-backend",
    start="2026-04-16T08:20:00Z",
    about="後台匯出的 Excel 報表下載時檔名亂碼，並把檔名改成中文：Content-Disposition 加上 RFC 5987 的 "
    "filename*=UTF-8'' 和 ASCII 備用檔名",
    traps="shares 亂碼 with the Big5 session; single-character word 改",
    turns=(
        user("後台匯出的訂單報表下載下來，Excel 檔名會變亂碼（Chrome 正常，Safari 和 Edge 是亂碼）。"
             "順便把檔名改成中文，例如「2026年4月訂單報表.xlsx」"),
        agent("",
              grep("Content-Disposition", "app/reports", "app/reports/views.py:57:    resp[\"Content-Disposition\"] = f'attachment; filename=\"{name}\"'"),
              thinking="**Checking how the report download sets its file name**"),
        agent("`Content-Disposition` 直接把檔名放進 `filename=\"...\"`。這個參數只能放 ASCII，非 ASCII 的字每個瀏覽器"
              "猜法不同，所以會亂碼。正確做法是 RFC 6266 / RFC 5987：`filename*=UTF-8''` 加上百分比編碼的中文檔名，"
              "再留一個 ASCII 的 `filename=` 給舊瀏覽器。"),
        user("好，照這個改"),
        agent("",
              edit("app/reports/views.py",
                   "    resp[\"Content-Disposition\"] = f'attachment; filename=\"{name}\"'",
                   "    resp[\"Content-Disposition\"] = content_disposition(name, fallback=f\"orders-{month:%Y-%m}.xlsx\")"),
              write("app/reports/download.py",
                    "from urllib.parse import quote\n\n\ndef content_disposition(name: str, fallback: str) -> str:\n"
                    "    return f\"attachment; filename=\\\"{fallback}\\\"; filename*=UTF-8''{quote(name)}\"\n"),
              bash("curl -sI 'http://localhost:8000/admin/reports/orders.xlsx?month=2026-04' -b cookies.txt | grep -i content-disposition",
                   "content-disposition: attachment; filename=\"orders-2026-04.xlsx\"; filename*=UTF-8''2026%E5%B9%B44%E6%9C%88%E8%A8%82%E5%96%AE%E5%A0%B1%E8%A1%A8.xlsx")),
        agent("改好了：下載的檔名是「2026年4月訂單報表.xlsx」，Safari、Edge、Chrome 都會讀 `filename*`；"
              "不支援的舊瀏覽器會拿到 `orders-2026-04.xlsx`。檔名邏輯放在 `app/reports/download.py`，其他報表也可以共用。"),
    ),
)

SCRIPTS = (BIG5_CSV, SHIPPED_AT_MIGRATION, REDIS_POOL, EXCEL_FILENAME)
