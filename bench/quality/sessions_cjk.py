"""Chinese (both scripts) and Japanese sessions of the labelled recall set (see sessions_en)."""

SESSIONS = [
    {
        "key": "zh-export-garbled", "agent": "claude-code", "project": "report-export", "day": 4,
        "memory": "导出的 Excel 文件中文乱码 (Simplified)",
        "turns": [
            "用户反馈导出的报表文件里中文全部变成乱码了，用 WPS 打开是正常的，用 Excel 打开就不行",
            "原因是导出时用了 GBK 以外的编码但没有写 BOM。改成 utf-8-sig 编码写入，Excel 就能正确识别中文。",
            "改好了，客户那边确认正常",
        ],
        "queries": [
            ("exact", "中文全部变成乱码"),
            ("cjk-sentence", "导出的文件中文变成乱码"),
            ("zh-variant", "匯出的檔案中文亂碼"),
            ("cross-language", "exported report chinese characters garbled in excel"),
        ],
    },
    {
        "key": "zh-default-config", "agent": "codex", "project": "gateway-config", "day": 6,
        "memory": "默认配置文件路径不对，服务器启动失败 (Simplified)",
        "turns": [
            "服务器启动的时候报错，说找不到默认配置文件，明明放在 /etc/gateway/ 下面了",
            "程序读取默认配置的路径是相对路径 ./config/gateway.yaml，以 systemd 启动时工作目录是 /，所以找不到。改成读取环境变量 GATEWAY_CONFIG，默认值用绝对路径。",
            "加上 WorkingDirectory 之后也可以了",
        ],
        "queries": [
            ("exact", "找不到默认配置文件"),
            ("cjk-sentence", "服务器启动找不到配置文件"),
            ("zh-variant", "伺服器啟動找不到預設設定檔"),
            ("cross-language", "server fails to start cannot find default config file systemd"),
        ],
    },
    {
        "key": "zh-software-install", "agent": "claude-code", "project": "desktop-client", "day": 8,
        "memory": "軟體安裝程式在 Windows 上被防毒軟體擋下 (Traditional)",
        "turns": [
            "我們的軟體安裝程式在部分 Windows 電腦上被防毒軟體誤判成病毒，安裝到一半就被刪掉",
            "安裝程式沒有數位簽章，而且用 UPX 壓縮過，很容易被誤判。建議用 EV 憑證簽章，並移除 UPX 壓縮，再送到防毒廠商重新審核。",
            "簽章之後誤判就少很多了",
        ],
        "queries": [
            ("exact", "被防毒軟體誤判成病毒"),
            ("cjk-sentence", "安装程序被杀毒软件误报"),
            ("zh-variant", "软件安装程序被防毒软件删掉"),
            ("cross-language", "installer flagged as virus by antivirus code signing"),
        ],
    },
    {
        "key": "zh-db-pool", "agent": "claude-code", "project": "order-service", "day": 10,
        "memory": "数据库连接池耗尽导致接口超时 (Simplified)",
        "turns": [
            "高峰期下单接口大量超时，日志里全是 HikariPool-1 - Connection is not available, request timed out after 30000ms",
            "连接池最大只有 10 个连接，而慢查询占住连接不释放。把 maximumPoolSize 调到 30，同时给报表查询单独建一个连接池，并加上 leakDetectionThreshold 找出没有关闭的连接。",
            "调整后高峰期没有再超时",
        ],
        "queries": [
            ("exact", "Connection is not available"),
            ("cjk-sentence", "高峰期数据库连接池用完了接口超时"),
            ("zh-variant", "資料庫連線池耗盡 逾時"),
            ("cross-language", "connection pool exhausted during peak hours"),
            ("typo", "HikariPool connecton not avaliable"),
        ],
    },
    {
        "key": "zh-tw-memory-leak", "agent": "claude-code", "project": "image-worker", "day": 12,
        "memory": "記憶體洩漏，圖片處理程式跑久了就被 OOM (Traditional)",
        "turns": [
            "圖片處理的背景程式跑幾個小時之後記憶體就一直漲，最後被系統砍掉",
            "每次處理都開了 PIL Image 但沒有關閉，而且縮圖結果放在全域的快取字典裡沒有上限。改用 with Image.open(...) 並把快取換成 LRU，最多 256 筆。",
            "記憶體現在穩定在 300MB 左右",
        ],
        "queries": [
            ("exact", "記憶體就一直漲"),
            ("cjk-sentence", "图片处理程序内存一直涨"),
            ("zh-variant", "内存泄漏 图片 缓存"),
            ("cross-language", "image worker memory keeps growing PIL not closed"),
        ],
    },
    {
        "key": "zh-network-timeout", "agent": "codex", "project": "sync-agent", "day": 14,
        "memory": "網路請求逾時，重試機制沒有退避 (Traditional)",
        "turns": [
            "同步程式在網路不穩的時候會瘋狂重試，把伺服器打爆",
            "重試沒有間隔也沒有上限。加上指數退避（1、2、4、8 秒）並加入隨機抖動，最多重試五次，失敗後記錄到佇列稍後再試。",
            "伺服器的壓力降下來了",
        ],
        "queries": [
            ("exact", "瘋狂重試"),
            ("cjk-sentence", "网络不稳定的时候同步程序一直重试"),
            ("zh-variant", "服务器被重试打爆"),
            ("cross-language", "retry storm without exponential backoff"),
        ],
    },
    {
        "key": "zh-test-nightly", "agent": "claude-code", "project": "ledger", "day": 16,
        "memory": "测试只在半夜失败，因为时区和日期边界 (Simplified)",
        "turns": [
            "有一个测试只在半夜十二点以后跑才会失败，白天跑都通过",
            "测试里用 date.today() 计算账期，而数据库用的是 UTC。北京时间凌晨 0 点到 8 点之间两边的日期不一样。统一用 UTC 并在测试里固定时间。",
            "用 freezegun 固定时间之后稳定了",
        ],
        "queries": [
            ("exact", "只在半夜十二点以后跑才会失败"),
            ("cjk-sentence", "测试半夜才失败"),
            ("zh-variant", "測試只在半夜失敗"),
            ("cross-language", "test only fails after midnight timezone date"),
        ],
    },
    {
        "key": "zh-deploy-rollback", "agent": "claude-code", "project": "shop-frontend", "day": 18,
        "memory": "上线后白屏，回滚版本 (Simplified)",
        "turns": [
            "刚上线的版本打开就是白屏，控制台报 ChunkLoadError",
            "新版本的静态资源文件名变了，但 CDN 上还缓存着旧的 index.html，引用了已经删除的 chunk。先回滚，之后部署时保留上一版的静态资源并刷新 index.html 的缓存。",
            "回滚之后恢复了",
        ],
        "queries": [
            ("exact", "ChunkLoadError"),
            ("cjk-sentence", "上线之后页面白屏"),
            ("zh-variant", "部署後頁面白畫面"),
            ("cross-language", "blank white page after release chunk load error"),
        ],
    },
    {
        "key": "ja-nightly-test", "agent": "claude-code", "project": "reservation", "day": 20,
        "memory": "テストが夜中だけ落ちる件、タイムゾーンが原因",
        "turns": [
            "CIのテストが夜中の0時から9時の間だけ落ちる。昼間に再実行すると通る",
            "テストが datetime.now() をローカル時刻で取り、サーバーはUTCで動いているため、日本時間の0時から9時は日付がずれます。タイムゾーンを Asia/Tokyo に固定し、テストでは時刻を固定してください。",
            "時刻を固定したら安定しました",
        ],
        "queries": [
            ("exact", "夜中の0時から9時の間だけ落ちる"),
            ("cjk-sentence", "テストが夜中だけ落ちる件"),
            ("cross-language", "CI test fails only at night timezone"),
            ("cross-language", "测试只在夜里失败"),
        ],
    },
    {
        "key": "ja-docker-permission", "agent": "codex", "project": "batch-jobs", "day": 22,
        "memory": "Dockerコンテナでボリュームの書き込み権限がない",
        "turns": [
            "コンテナからマウントしたディレクトリに書き込もうとすると Permission denied になる",
            "コンテナ内のユーザーの UID が 1000 ではなく 999 なので、ホスト側のディレクトリに書けません。docker run に --user $(id -u):$(id -g) を付けるか、ディレクトリの所有者を合わせてください。",
            "--user を付けたら書き込めました",
        ],
        "queries": [
            ("exact", "マウントしたディレクトリに書き込もう"),
            ("cjk-sentence", "コンテナでマウントしたフォルダに書き込めない"),
            ("typo", "dokcer ボリューム 権限"),
            ("cross-language", "container cannot write to mounted volume uid"),
        ],
    },
    {
        "key": "ja-mojibake-csv", "agent": "claude-code", "project": "accounting", "day": 24,
        "memory": "CSVをExcelで開くと文字化けする",
        "turns": [
            "出力したCSVをExcelで開くと日本語が文字化けする。メモ帳だと正しく表示される",
            "Excel は BOM なしの UTF-8 を Shift_JIS として読みます。utf-8-sig で書き出すか、Shift_JIS (cp932) で出力してください。",
            "utf-8-sig にしたら直りました",
        ],
        "queries": [
            ("exact", "日本語が文字化けする"),
            ("cjk-sentence", "エクセルで開くと文字化け"),
            ("cross-language", "csv japanese garbled in excel shift_jis"),
        ],
    },
    {
        "key": "ja-memory-leak-node", "agent": "claude-code", "project": "notification-server", "day": 26,
        "memory": "Nodeのサーバーでメモリリーク、イベントリスナーが増え続ける",
        "turns": [
            "通知サーバーのメモリ使用量が毎日少しずつ増えて、一週間で落ちる。MaxListenersExceededWarning も出ている",
            "接続ごとに emitter.on('message') を登録して、切断時に removeListener していません。切断イベントでリスナーを外すか once を使ってください。",
            "リスナーを外すようにしたらメモリが横ばいになりました",
        ],
        "queries": [
            ("exact", "MaxListenersExceededWarning"),
            ("cjk-sentence", "メモリが少しずつ増えて一週間で落ちる"),
            ("cross-language", "node server memory leak event listeners not removed"),
            ("typo", "MaxListenersExceeded warnning"),
        ],
    },
    {
        "key": "ja-git-lfs", "agent": "claude-code", "project": "game-assets", "day": 28,
        "memory": "git pushが大きいファイルで拒否された、LFSに移行",
        "turns": [
            "git push すると remote: error: File Assets/intro.mp4 is 180.00 MB; this exceeds GitHub's file size limit of 100.00 MB と言われて拒否される",
            "大きなファイルは Git LFS で管理します。git lfs migrate import --include='*.mp4' で履歴ごと移行し、強制プッシュしてください。",
            "LFS に移行してプッシュできました",
        ],
        "queries": [
            ("exact", "exceeds GitHub's file size limit"),
            ("cjk-sentence", "大きいファイルでプッシュが拒否される"),
            ("cross-language", "push rejected big video file lfs"),
        ],
    },
    {
        "key": "ja-ssl-cert", "agent": "codex", "project": "internal-api", "day": 30,
        "memory": "社内APIの証明書の検証に失敗する",
        "turns": [
            "社内APIを requests で呼ぶと SSLError: certificate verify failed: unable to get local issuer certificate になる",
            "社内の中間証明書がサーバー側で送られていません。サーバーにチェーン全体を設定するか、クライアントで REQUESTS_CA_BUNDLE に社内CAのバンドルを指定してください。",
            "REQUESTS_CA_BUNDLE を設定して解決",
        ],
        "queries": [
            ("exact", "unable to get local issuer certificate"),
            ("cjk-sentence", "社内のAPIで証明書エラーが出る"),
            ("stack-trace", "requests.exceptions.SSLError: HTTPSConnectionPool(host='api.corp.local', port=443): Max retries exceeded with url: /v1/users (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)')))"),
            ("cross-language", "证书验证失败 内部API"),
        ],
    },
    {
        "key": "en-zh-encoding-api", "agent": "claude-code", "project": "translation-api", "day": 2,
        "memory": "API returned question marks for Chinese because MySQL column was latin1",
        "turns": [
            "the translation API stores Chinese text but reads back ???? from MySQL",
            "The column charset is latin1. Convert the table to utf8mb4 with ALTER TABLE translations CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci, and add charset=utf8mb4 to the connection string.",
            "utf8mb4 everywhere now",
        ],
        "queries": [
            ("exact", "CONVERT TO CHARACTER SET utf8mb4"),
            ("paraphrase", "chinese text turned into question marks in mysql"),
            ("cross-language", "MySQL 中文变成问号"),
            ("wrong-detail", "postgres chinese question marks latin1"),
        ],
    },
    {
        "key": "zh-tw-default-branch", "agent": "claude-code", "project": "monorepo-tools", "day": 1,
        "memory": "預設分支改名後 CI 沒有觸發 (Traditional)",
        "turns": [
            "我們把預設分支從 master 改成 main 之後，CI 就再也沒有被觸發了",
            "工作流程檔裡的 on.push.branches 還寫著 master。把它改成 main，並檢查部署腳本和保護規則裡是否還有寫死的分支名稱。",
            "改完之後 CI 正常觸發",
        ],
        "queries": [
            ("exact", "預設分支從 master 改成 main"),
            ("cjk-sentence", "默认分支改名之后CI不触发了"),
            ("zh-variant", "默认分支 改成 main CI 没有触发"),
            ("cross-language", "ci not triggered after renaming default branch to main"),
        ],
    },
]
