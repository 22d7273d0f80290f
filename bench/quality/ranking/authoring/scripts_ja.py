"""Japanese sessions: a 504 from nginx on report export, Docker build cache, a Jest test that
fails only on CI because of the timezone, and a Shift_JIS CSV."""

from __future__ import annotations

from bench.quality.ranking.authoring.model import Script, agent, bash, edit, read, user, write

GATEWAY_TIMEOUT = Script(
    slug="ja-504-report-export",
    agent="claude-code",
    lang="ja",
    cwd="/home/tanaka/work/app",
    start="2026-04-03T01:15:00Z",
    about="本番でレポートの CSV エクスポートが 504 Gateway Timeout：生成に約 94 秒かかり nginx の "
    "proxy_read_timeout (60 秒) を超えていた。/reports/ だけ 300 秒にし、非同期ジョブの設計を書いた",
    traps="split query: '504' and 'レポート' are in the first prompt, '非同期' only later",
    turns=(
        user("本番環境でレポートの CSV エクスポートを押すと 504 Gateway Timeout になります。ローカルでは"
             "再現しません。大きい店舗だけみたいです。"),
        agent("nginx のエラーログから確認します。",
              bash("sudo tail -n 5 /var/log/nginx/error.log",
                   "2026/04/03 10:12:44 [error] 2231#2231: *88412 upstream timed out (110: Connection timed out) while reading response header from upstream, "
                   "client: 203.0.113.7, server: app.example.jp, request: \"GET /reports/export.csv?shop=31 HTTP/1.1\", upstream: \"http://127.0.0.1:8000/reports/export.csv?shop=31\""),
              bash("time curl -s -o /dev/null -H 'Host: app.example.jp' 'http://127.0.0.1:8000/reports/export.csv?shop=31'",
                   "real\t1m34.208s\nuser\t0m0.011s\nsys\t0m0.009s")),
        agent("エラーログに「upstream timed out (110: Connection timed out) while reading response header "
              "from upstream」が出ています。アプリに直接リクエストすると 94 秒かかるので、nginx の "
              "proxy_read_timeout（デフォルト 60 秒）を超えて nginx が先に諦めています。ローカルはデータが"
              "少ないので数秒で終わり、再現しません。",
              read("/etc/nginx/conf.d/app.conf",
                   "server {\n    server_name app.example.jp;\n    location / {\n        proxy_pass http://127.0.0.1:8000;\n    }\n}\n")),
        user("とりあえず今日はタイムアウトを延ばして、あとでちゃんと直したい"),
        agent("暫定対応として、エクスポートのパスだけタイムアウトを 300 秒にします。全体を延ばすと、"
              "ほかの詰まったリクエストまで長く待つことになるので避けます。",
              edit("/etc/nginx/conf.d/app.conf",
                   "    location / {\n",
                   "    location /reports/ {\n        proxy_pass http://127.0.0.1:8000;\n        proxy_read_timeout 300s;\n    }\n    location / {\n"),
              bash("sudo nginx -t && sudo systemctl reload nginx",
                   "nginx: the configuration file /etc/nginx/nginx.conf syntax is ok\nnginx: configuration file /etc/nginx/nginx.conf test is successful")),
        agent("反映しました。shop=31 のエクスポートも 94 秒でダウンロードできることを確認しました。"),
        user("恒久対応はどうするのがいい？"),
        agent("エクスポートを非同期ジョブにするのがおすすめです。ボタンを押したらジョブを登録してすぐ返し、"
              "ワーカーが CSV を作って S3 に置き、完了したらメールでダウンロードリンクを送ります。"
              "リクエストが長く張り付かないので、タイムアウトも元の 60 秒に戻せます。"),
        user("じゃあその設計を docs/async-export.md に書いておいて"),
        agent("",
              write("docs/async-export.md",
                    "# エクスポートの非同期化\n\n1. POST /reports/exports でジョブを登録し 202 を返す\n2. ワーカーが CSV を生成して S3 に保存\n"
                    "3. 署名付き URL（24 時間有効）をメールで送る\n4. 画面にはジョブの状態を表示する\n")),
        agent("`docs/async-export.md` に書きました。ジョブ登録、ワーカー、署名付き URL のメール通知、状態表示の 4 段階です。"),
    ),
)

DOCKER_CACHE = Script(
    slug="ja-docker-build-cache",
    agent="pi",
    lang="ja",
    cwd="/home/tanaka/work/app",
    start="2026-05-12T06:00:00Z",
    about="Docker ビルドのキャッシュが効かず毎回 npm ci からやり直し：COPY . . が npm ci より前にあり、"
    ".dockerignore もなかった。依存ファイルを先に COPY し .dockerignore を追加、再ビルド 8 分→40 秒",
    turns=(
        user("Docker イメージのビルドが毎回 8 分かかる。ソースを 1 行変えただけでも npm ci からやり直しで、"
             "キャッシュが効かないみたい"),
        agent("",
              read("Dockerfile",
                   "FROM node:22-bookworm-slim AS build\nWORKDIR /app\nCOPY . .\nRUN npm ci\nRUN npm run build\n\n"
                   "FROM node:22-bookworm-slim\nWORKDIR /app\nCOPY --from=build /app/dist ./dist\nCOPY --from=build /app/node_modules ./node_modules\nCMD [\"node\", \"dist/server.js\"]\n"),
              bash("ls -a | grep dockerignore; docker build --progress=plain . 2>&1 | grep -E 'transferring context|CACHED|RUN npm'",
                   "#4 transferring context: 1.21GB 14.2s done\n#6 [build 3/5] COPY . .\n#7 [build 4/5] RUN npm ci")),
        agent("原因は 2 つです。\n1. `COPY . .` が `RUN npm ci` より前にあるので、どのファイルが変わっても依存関係の"
              "レイヤーのキャッシュが無効になります。\n2. `.dockerignore` がないので、node_modules と .git まで"
              "ビルドコンテキストに入っています（1.21GB）。",
              edit("Dockerfile", "COPY . .\nRUN npm ci\n", "COPY package.json package-lock.json ./\nRUN npm ci\nCOPY . .\n"),
              write(".dockerignore", "node_modules\n.git\ndist\ncoverage\n*.log\n"),
              bash("docker build -t app:dev . >/dev/null && touch src/server.ts && time docker build --progress=plain -t app:dev . 2>&1 | grep -E 'transferring context|CACHED \\[build 3/5\\]|real'",
                   "#4 transferring context: 2.31MB 0.1s done\n#6 CACHED [build 3/5] RUN npm ci\nreal\t0m41.883s")),
        agent("依存ファイルだけを先に COPY して `npm ci` し、そのあとでソースを COPY するようにしました。"
              "`.dockerignore` も追加したのでコンテキストは 2.3MB です。ソースを変えたあとの再ビルドは "
              "8 分から約 40 秒になり、`npm ci` のレイヤーは CACHED になっています。"),
    ),
)

JEST_TIMEZONE = Script(
    slug="ja-jest-timezone",
    agent="codex",
    lang="ja",
    cwd="/home/tanaka/work/front",
    start="2026-03-09T02:40:00Z",
    about="formatDeliveryDate の jest テストが CI でだけたまに落ちる：ローカルは Asia/Tokyo、CI は UTC。"
    "関数を Asia/Tokyo 固定で整形するよう直し、jest の globalSetup で TZ=UTC にして再現性を持たせた",
    turns=(
        user("CI でだけ jest のテストがたまに落ちる。formatDeliveryDate のテスト。ローカルでは毎回通るんだけど"),
        agent("",
              read("src/utils/formatDeliveryDate.ts",
                   "export function formatDeliveryDate(iso: string): string {\n  const d = new Date(iso)\n"
                   "  return `${d.getFullYear()}/${d.getMonth() + 1}/${d.getDate()}`\n}\n"),
              bash("npx jest src/utils/formatDeliveryDate.test.ts", "PASS src/utils/formatDeliveryDate.test.ts\n  ✓ formats the delivery date (3 ms)"),
              bash("TZ=UTC npx jest src/utils/formatDeliveryDate.test.ts",
                   "FAIL src/utils/formatDeliveryDate.test.ts\n  ✕ formats the delivery date (5 ms)\n\n    Expected: \"2026/3/10\"\n    Received: \"2026/3/9\"",
                   error=True),
              thinking="**Reproducing CI failure under UTC**"),
        agent("原因はタイムゾーンです。`getDate()` などは実行環境のローカル時刻で計算されるので、ローカル"
              "（Asia/Tokyo）と CI（UTC）で日付がずれます。テストデータの時刻が日本時間の 0 時〜9 時に"
              "当たるときだけ落ちるので「たまに」になります。`TZ=UTC` で jest を動かすと手元でも再現しました。"),
        user("配送日は日本時間で表示したい。直して"),
        agent("",
              edit("src/utils/formatDeliveryDate.ts",
                   "  const d = new Date(iso)\n  return `${d.getFullYear()}/${d.getMonth() + 1}/${d.getDate()}`",
                   "  return new Intl.DateTimeFormat('ja-JP', { timeZone: 'Asia/Tokyo', year: 'numeric', month: 'numeric', day: 'numeric' }).format(new Date(iso))"),
              write("jest.global-setup.js", "module.exports = async () => {\n  process.env.TZ = 'UTC'\n}\n"),
              edit("jest.config.js", "module.exports = {", "module.exports = {\n  globalSetup: './jest.global-setup.js',"),
              bash("npx jest && TZ=Asia/Tokyo npx jest", "Test Suites: 41 passed, 41 total\nTests:       268 passed, 268 total\nTest Suites: 41 passed, 41 total\nTests:       268 passed, 268 total")),
        agent("`formatDeliveryDate` は `Intl.DateTimeFormat` で `timeZone: 'Asia/Tokyo'` を指定して整形するように"
              "しました。さらに jest の `globalSetup` で `TZ=UTC` に固定したので、手元でも CI と同じ条件で"
              "テストが走ります。UTC でも Asia/Tokyo でも全部通りました。"),
    ),
)

SJIS_CSV = Script(
    slug="ja-shift-jis-csv",
    agent="claude-code",
    lang="ja",
    cwd="/home/tanaka/work/batch",
    start="2026-01-28T04:20:00Z",
    about="取引先の CSV が文字化け：Excel で保存された Shift_JIS (実際は CP932、丸数字などの機種依存文字入り)。"
    "iconv -f SHIFT_JIS では変換できず CP932 で変換、取り込みバッチも cp932 で読むよう修正",
    traps="'iconv -f' shared with the Big5 session; '文字化け' only in the user's prompt",
    turns=(
        user("取引先から届いた CSV を取り込むと文字化けします。Excel で作ったファイルらしいです。data/torihiki_202601.csv"),
        agent("文字コードを確認します。",
              bash("file -i data/torihiki_202601.csv && nkf --guess data/torihiki_202601.csv",
                   "data/torihiki_202601.csv: text/plain; charset=unknown-8bit\nShift_JIS (CRLF)")),
        agent("Excel が Shift_JIS で保存したファイルで、改行も CRLF です。取り込み側は UTF-8 前提なので読めていません。"
              "UTF-8 に変換してみます。",
              bash("iconv -f SHIFT_JIS -t UTF-8 data/torihiki_202601.csv > /tmp/torihiki.csv",
                   "iconv: illegal input sequence at position 10234", error=True),
              bash("head -c 10300 data/torihiki_202601.csv | tail -n 1 | iconv -f CP932 -t UTF-8",
                   "A-0193,株式会社サンプル商事,①通常便,12,¥48,000")),
        agent("途中で止まった箇所には「①」（丸数字）がありました。丸数字や「㈱」は Windows の機種依存文字で、"
              "厳密な SHIFT_JIS には含まれません。Excel が保存する「Shift_JIS」は実際には CP932 なので、CP932 で変換します。",
              bash("iconv -f CP932 -t UTF-8 data/torihiki_202601.csv | tr -d '\\r' > data/torihiki_202601.utf8.csv && wc -l data/torihiki_202601.utf8.csv",
                   "3187 data/torihiki_202601.utf8.csv"),
              read("batch/import_torihiki.py",
                   "def load(path):\n    with open(path, encoding='utf-8', newline='') as f:\n        return list(csv.reader(f))\n"),
              edit("batch/import_torihiki.py", "    with open(path, encoding='utf-8', newline='') as f:",
                   "    with open(path, encoding='cp932', newline='') as f:")),
        agent("3,186 件すべて正しく読めました。取り込みバッチ `batch/import_torihiki.py` も cp932 で読むように直したので、"
              "取引先のファイルをそのまま置けば取り込めます。"),
    ),
)

SCRIPTS = (GATEWAY_TIMEOUT, DOCKER_CACHE, JEST_TIMEZONE, SJIS_CSV)
