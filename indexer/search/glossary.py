"""Developer words in Chinese and Japanese with the English a session held in English uses for
them, so a query typed in one language finds a session written in the other (数据库被锁住了 →
database, lock; タイムアウトで落ちる → timeout), and the other way (timezone → 时区, タイムゾーン).

Why a hand-kept list and not a dictionary package: the general dictionaries on PyPI (CC-CEDICT
readers, JMdict through ``jamdict``) are unmaintained or ship 100 MB of data, and they give every
sense of a word (锁: lock, padlock, to lock up, a surname), where search needs the one word a
developer's session would hold. Simplified forms are listed; a Traditional query reaches them
through its OpenCC conversion (``indexer.search.recall_words``). Japanese katakana loanwords are
listed in their usual spelling.
"""

from __future__ import annotations

import functools

from indexer.text.fold import fold

LONGEST = 8  # characters in the longest entry: how far a match is looked for

_ENTRIES = """
数据库 database|数据 data|锁 lock|被锁 locked|锁住 locked|死锁 deadlock|超时 timeout|测试 test|单元测试 unit test
集成测试 integration test|部署 deploy|发布 release|上线 deploy release|回滚 rollback|迁移 migration|缓存 cache
内存 memory|内存泄漏 memory leak|泄漏 leak|泄露 leak|依赖 dependency|版本 version|升级 upgrade|降级 downgrade
权限 permission|证书 certificate|过期 expired|时区 timezone|时间戳 timestamp|乱码 encoding|编码 encoding
导出 export|导入 import|文件 file|目录 directory|路径 path|配置 config|配置文件 config file|环境变量 environment variable
密钥 key secret|密码 password|登录 login|认证 auth|授权 authorization|令牌 token|会话 session|接口 api
请求 request|响应 response|服务器 server|客户端 client|前端 frontend|后端 backend|索引 index|数据表 table|查询 query
慢查询 slow query|事务 transaction|并发 concurrent|线程 thread|进程 process|队列 queue|任务 task job
定时任务 cron schedule|日志 log|报错 error|错误 error|异常 exception|崩溃 crash|卡住 hang|卡死 hang|慢 slow
性能 performance|优化 optimize|重构 refactor|构建 build|编译 compile|打包 build bundle|镜像 image|容器 container
端口 port|网络 network|代理 proxy|反向代理 reverse proxy|负载均衡 load balancer|域名 domain|跨域 cors|上传 upload
下载 download|图片 image|压缩 compress|解析 parse|格式 format|字段 field|空值 null|类型 type|函数 function
变量 variable|参数 parameter argument|循环 loop|正则 regex|字符串 string|数组 array|列表 list|字典 dict|对象 object
模块 module|插件 plugin|钩子 hook|中间件 middleware|路由 route|页面 page|组件 component|样式 style css|按钮 button
表单 form|校验 validation|验证 validation|通知 notification|邮件 email|支付 payment|订单 order|购物车 cart
库存 inventory stock|价格 price|金额 amount|发票 invoice|用户 user|账号 account|账户 account|搜索 search
分页 pagination|排序 sort|过滤 filter|报表 report|监控 monitoring|告警 alert|重试 retry|限流 rate limit|备份 backup
恢复 restore|同步 sync|异步 async|回调 callback|事件 event|消息 message|分支 branch|合并 merge|冲突 conflict
提交 commit|仓库 repository|流水线 pipeline|持续集成 ci|脚本 script|命令 command|终端 terminal|快捷键 shortcut
主题 theme|字体 font|每周 weekly|周一 monday|星期一 monday|定时 schedule cron|凌晨 night|半夜 night|夜里 night
磁盘 disk|空间 space|磁盘满 disk full|连接 connection|连接池 connection pool|断开 disconnect|重连 reconnect
心跳 heartbeat|套接字 socket|刷新 refresh|失效 invalidate|热更新 hot reload|国际化 i18n|翻译 translation
日期 date|时间 time|浮点 float|精度 precision|四舍五入 rounding|舍入 rounding|货币 currency|汇率 exchange rate
并行 parallel|偶现 flaky|不稳定 flaky|随机失败 flaky|跳过 skip|断言 assert|覆盖率 coverage|模拟 mock|文档 docs
注释 comment|类型检查 type check|代码检查 lint|格式化 format|警告 warning|弃用 deprecated|兼容 compatible
浏览器 browser|布局 layout|滚动 scroll|弹窗 modal dialog|下拉 dropdown|图表 chart|导航 navigation|侧边栏 sidebar
暗色模式 dark mode|深色模式 dark mode|重复 duplicate|删除 delete|更新 update|修复 fix|修改 change|漏洞 vulnerability
内存不足 out of memory|容器重启 container restart|重启 restart|启动 start startup|关闭 shutdown|卸载 uninstall
安装 install|环境 environment|生产环境 production|测试环境 staging|本地 local|远程 remote|签名 signature|加密 encrypt
解密 decrypt|哈希 hash|序列化 serialize|反序列化 deserialize|中文 chinese|日文 japanese|英文 english|字符 character
データベース database|データ data|ロック lock|デッドロック deadlock|タイムアウト timeout|テスト test|単体テスト unit test
デプロイ deploy|リリース release|ロールバック rollback|マイグレーション migration|移行 migration|キャッシュ cache
メモリ memory|メモリー memory|メモリリーク memory leak|リーク leak|依存 dependency|依存関係 dependency|バージョン version
アップグレード upgrade|権限 permission|パーミッション permission|証明書 certificate|期限切れ expired|タイムゾーン timezone
文字化け encoding|文字コード encoding|エンコーディング encoding|エクスポート export|インポート import|ファイル file
ディレクトリ directory|フォルダ folder|パス path|設定 config settings|設定ファイル config file|環境変数 environment variable
パスワード password|ログイン login|認証 auth|トークン token|セッション session|リクエスト request|レスポンス response
サーバー server|サーバ server|クライアント client|フロントエンド frontend|フロント frontend|バックエンド backend
テーブル table|インデックス index|クエリ query|遅い slow|トランザクション transaction|並行 concurrent|並列 parallel
スレッド thread|プロセス process|キュー queue|ジョブ job|定期実行 cron schedule|ログ log|エラー error|例外 exception
クラッシュ crash|失敗 fail|固まる hang|フリーズ freeze|パフォーマンス performance|性能 performance|最適化 optimize
リファクタ refactor|リファクタリング refactor|ビルド build|コンパイル compile|イメージ image|コンテナ container|ポート port
ネットワーク network|プロキシ proxy|アップロード upload|ダウンロード download|画像 image|圧縮 compress|パース parse
フォーマット format|関数 function|変数 variable|引数 argument|正規表現 regex|文字列 string|配列 array|モジュール module
パッケージ package|プラグイン plugin|フック hook|ミドルウェア middleware|ルーティング routing|ページ page
コンポーネント component|ボタン button|フォーム form|バリデーション validation|検証 validation|通知 notification
メール email|決済 payment|支払い payment|注文 order|カート cart|在庫 inventory stock|価格 price|請求書 invoice
ユーザー user|アカウント account|検索 search|ページネーション pagination|並び替え sort|監視 monitoring|アラート alert
リトライ retry|再試行 retry|バックアップ backup|復元 restore|同期 sync|非同期 async|イベント event|ブランチ branch
マージ merge|コンフリクト conflict|競合 conflict|コミット commit|リポジトリ repository|パイプライン pipeline
スクリプト script|コマンド command|ターミナル terminal|テーマ theme|フォント font|夜中 night|深夜 night|月曜 monday
毎週 weekly|ディスク disk|容量 disk space|接続 connection|コネクションプール connection pool|切断 disconnect
ソケット socket|有効期限 expiry|日付 date|時刻 time|浮動小数点 float|丸め rounding|通貨 currency|不安定 flaky
スキップ skip|アサーション assertion|カバレッジ coverage|モック mock|ドキュメント docs|型チェック type check|警告 warning
非推奨 deprecated|互換 compatible|ブラウザ browser|レイアウト layout|スクロール scroll|ダイアログ dialog|モーダル modal
ダークモード dark mode|ショートカット shortcut|遅延 latency|重複 duplicate|削除 delete|更新 update|追加 add|修正 fix
バグ bug|不具合 bug|再起動 restart|起動 startup|インストール install|環境 environment|本番 production|本番環境 production
ステージング staging|ローカル local|リモート remote|暗号化 encrypt|ハッシュ hash|日本語 japanese|中国語 chinese
"""


_JAPANESE_FROM = "データベース database"  # the entries from here on are Japanese


def _entries() -> list[tuple[str, str, bool]]:
    """(term, English, is Japanese) for every entry, in the order listed."""
    japanese_at = _ENTRIES.index(_JAPANESE_FROM)
    out = []
    for part, japanese in ((_ENTRIES[:japanese_at], False), (_ENTRIES[japanese_at:], True)):
        for entry in part.replace("\n", "|").split("|"):
            term, _, english = entry.strip().partition(" ")
            if term and english:
                out.append((term, english, japanese))
    return out


@functools.cache
def _table() -> dict[str, tuple[str, ...]]:
    return {fold(term): tuple(english.split()) for term, english, _ in _entries()}


@functools.cache
def _reverse() -> dict[str, tuple[str, str]]:
    """An English word's (Chinese, Japanese) term ("" where none): the first entry whose English
    is that word alone (数据库 for database, not 数据表 for "table"), else the first holding it."""
    alone: dict[str, list[str]] = {}
    within: dict[str, list[str]] = {}
    for term, english, japanese in _entries():
        words = english.split()
        for word in words:
            slot = (alone if len(words) == 1 else within).setdefault(word, ["", ""])
            if not slot[japanese]:
                slot[japanese] = fold(term)
    out = {}
    for word in {*alone, *within}:
        first, second = alone.get(word, ["", ""]), within.get(word, ["", ""])
        out[word] = (first[0] or second[0], first[1] or second[1])
    return out


def cjk_words(word: str) -> tuple[str, str]:
    """The Chinese and Japanese developer terms for an English word (lower case; "" where the
    glossary has none): what a session written in that language would hold instead."""
    return _reverse().get(word, ("", ""))


def english_words(run: str) -> list[str]:
    """The English words for the developer terms in a CJK run (folded), longest term first at
    each place, each word once, in the order found."""
    table, i = _table(), 0
    words: list[str] = []
    while i < len(run):
        for size in range(min(LONGEST, len(run) - i), 0, -1):
            found = table.get(run[i:i + size])
            if found is not None:
                words.extend(w for w in found if w not in words)
                i += size
                break
        else:
            i += 1
    return words
