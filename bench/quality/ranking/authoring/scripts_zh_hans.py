"""Simplified Chinese sessions (mainland): a Kubernetes rollback after OOMKilled, moving upload
files to a new server with rsync, nginx gzip, and a short note."""

from __future__ import annotations

from bench.quality.ranking.authoring.model import Script, agent, bash, edit, grep, read, user

K8S_ROLLBACK = Script(
    slug="k8s-rollback-oomkilled",
    agent="codex",
    lang="zh-Hans",
    cwd="/home/wang/deploy/k8s",
    start="2026-05-06T03:05:00Z",
    about="刚部署的 order-service v1.8.0 一直重启 (OOMKilled)：kubectl rollout undo 回滚，查出新加的不限大小的"
    "商品缓存，内存限制调大到 1Gi 并给缓存加上限",
    traps="Simplified 回滚 for a Traditional query 回滾; 部署 also appears in a Traditional migration session",
    turns=(
        user("刚部署的 order-service v1.8.0 一直重启，先帮我回滚，再查原因"),
        agent("",
              bash("kubectl get pods -n prod -l app=order-service",
                   "NAME                             READY   STATUS             RESTARTS      AGE\n"
                   "order-service-7f9c6d5b8-2kqzp    0/1     CrashLoopBackOff   5 (31s ago)   6m\n"
                   "order-service-7f9c6d5b8-x8w4n    0/1     OOMKilled          5 (44s ago)   6m\n"
                   "order-service-5d4b8c7f9-lm2ts    1/1     Running            0             3d"),
              bash("kubectl describe pod order-service-7f9c6d5b8-x8w4n -n prod | grep -A4 'Last State'",
                   "    Last State:     Terminated\n      Reason:       OOMKilled\n      Exit Code:    137\n      Started:      Wed, 06 May 2026 11:01:12 +0800\n      Finished:     Wed, 06 May 2026 11:01:49 +0800"),
              thinking="**Confirming new pods are OOMKilled before rolling back**"),
        agent("新版本的 pod 被 OOMKilled（退出码 137），内存限制是 512Mi。先回滚：",
              bash("kubectl rollout undo deployment/order-service -n prod", "deployment.apps/order-service rolled back"),
              bash("kubectl rollout status deployment/order-service -n prod --timeout=120s",
                   "Waiting for deployment \"order-service\" rollout to finish: 1 old replicas are pending termination...\n"
                   "deployment \"order-service\" successfully rolled out")),
        agent("已经回滚到上一个版本 v1.7.3，三个 pod 都是 Running。接下来看 v1.8.0 为什么内存不够。"),
        user("好，查一下 1.8.0 改了什么"),
        agent("",
              bash("git log --oneline v1.7.3..v1.8.0 -- src/", "c41d2e7 cache product catalogue in memory\n8a90f13 order export: add sku column"),
              grep("lru_cache", "src/", "src/catalogue/repository.py:14:@lru_cache(maxsize=None)"),
              read("src/catalogue/repository.py",
                   "@lru_cache(maxsize=None)\ndef product(sku: str) -> Product:\n    ...\n\n"
                   "def warm_cache():\n    for sku in all_skus():  # ~180k SKUs at startup\n        product(sku)\n")),
        agent("原因找到了：c41d2e7 给商品目录加了一个不限大小的内存缓存（`lru_cache(maxsize=None)`），启动时 "
              "`warm_cache()` 预热全部约 18 万个 SKU，大约要 700Mi，超过了 512Mi 的限制，所以一启动就被杀。"
              "建议：缓存加上限（比如 20000 个热门 SKU），同时把内存限制调大到 1Gi 留余量。"),
        user("可以，内存限制调大到 1Gi，缓存上限 20000，然后重新发"),
        agent("",
              edit("src/catalogue/repository.py", "@lru_cache(maxsize=None)", "@lru_cache(maxsize=20_000)"),
              edit("src/catalogue/repository.py", "    for sku in all_skus():  # ~180k SKUs at startup", "    for sku in top_skus(20_000):"),
              edit("order-service/deployment.yaml", "            memory: 512Mi", "            memory: 1Gi"),
              bash("kubectl apply -f order-service/deployment.yaml -n prod && kubectl rollout status deployment/order-service -n prod --timeout=180s",
                   "deployment.apps/order-service configured\ndeployment \"order-service\" successfully rolled out"),
              bash("kubectl top pod -n prod -l app=order-service", "NAME                             CPU(cores)   MEMORY(bytes)\norder-service-6c8d9f7b4-9fj2k    212m         338Mi")),
        agent("v1.8.1 已经上线：缓存最多 2 万个 SKU，内存限制 1Gi，实际占用约 340Mi，没有再重启。"),
    ),
)

RSYNC_MOVE = Script(
    slug="rsync-uploads-new-server",
    agent="claude-code",
    lang="zh-Hans",
    cwd="/home/wang/ops",
    start="2026-03-25T12:00:00Z",
    about="把用户上传的文件（380G）从旧服务器迁移到新服务器：先在线 rsync 全量，再只读窗口里增量同步，"
    "最后切换 NFS 挂载",
    traps="shares 迁移 with the idempotent migration session, but nothing here is about 幂等",
    turns=(
        user("要把用户上传的文件从旧服务器 10.0.3.21 迁移到新服务器 10.0.5.8，大概 380G，中间尽量不停服务。怎么做比较稳？"),
        agent("分两步：先在服务正常运行时做一次全量同步（耗时长但不影响用户），然后切换前开一个很短的只读窗口，"
              "再跑一次增量同步，只传这段时间的变化。先试跑一下看看规模：",
              bash("ssh 10.0.3.21 'du -sh /srv/uploads && find /srv/uploads -type f | wc -l'", "381G\t/srv/uploads\n2417730"),
              bash("rsync -aP --dry-run --stats 10.0.3.21:/srv/uploads/ /srv/uploads/ | tail -n 5",
                   "Number of files: 2,417,731 (reg: 2,417,730, dir: 1)\nTotal file size: 409,027,114,556 bytes\n"
                   "Total transferred file size: 409,027,114,556 bytes\nsent 19 bytes  received 88,410,221 bytes\ntotal size is 409,027,114,556  speedup is 4,626.47 (DRY RUN)")),
        agent("241 万个文件，约 381G。第一次全量用 `-aP` 保留权限和时间戳，可以断点续传；带宽限制在 80MB/s，"
              "避免影响线上：",
              bash("nohup rsync -aP --bwlimit=80m 10.0.3.21:/srv/uploads/ /srv/uploads/ > /tmp/rsync-full.log 2>&1 &", ""),
              bash("tail -n 2 /tmp/rsync-full.log", "     1,204,118 100%    1.15MB/s    0:00:01 (xfr#2417730, to-chk=0/2417731)\nsent 41.3K bytes  received 409.1G bytes  77.9M bytes/sec"),
              gap=5400),
        user("全量跑完了。切换那天怎么弄？", gap=7200),
        agent("切换当天：\n1. 应用切到只读模式（上传按钮隐藏，API 返回 503）\n2. 增量同步，带 `--delete` 让新服务器和旧的完全一致\n"
              "3. 校验文件数\n4. 应用的 NFS 挂载改到 10.0.5.8，解除只读\n增量同步只传变化的文件，几分钟就够了。",
              bash("rsync -aP --delete --stats 10.0.3.21:/srv/uploads/ /srv/uploads/ | grep -E 'Number of (regular )?files transferred|Number of deleted'",
                   "Number of deleted files: 12\nNumber of regular files transferred: 3,904"),
              bash("ssh 10.0.3.21 'find /srv/uploads -type f | wc -l'; find /srv/uploads -type f | wc -l", "2421622\n2421622")),
        agent("增量同步传了 3904 个新文件、删除了 12 个，两边文件数都是 2,421,622，一致。可以改挂载、解除只读了。"),
    ),
)

GZIP_TYPES = Script(
    slug="nginx-gzip-types",
    agent="pi",
    lang="zh-Hans",
    cwd="/home/wang/site",
    start="2026-02-12T09:30:00Z",
    about="前端打包后的 js 没有被 gzip 压缩：nginx 只开了 gzip on，gzip_types 默认只有 text/html；补上 "
    "gzip_types 后 js 从 2.1MB 降到 612KB",
    turns=(
        user("前端打包出来的 index.js 有 2MB，nginx 明明开了 gzip，浏览器里看响应头还是没有 Content-Encoding，gzip 没生效"),
        agent("",
              grep("gzip", "/etc/nginx/nginx.conf", "/etc/nginx/nginx.conf:31:\tgzip on;"),
              bash("curl -sI -H 'Accept-Encoding: gzip' https://www.example.cn/assets/index-3f9a1c.js | grep -iE 'content-(type|encoding)'",
                   "content-type: application/javascript")),
        agent("配置里只有 `gzip on;`，没有 `gzip_types`。nginx 默认只压缩 `text/html`，所以 js、css 都没有被压缩。"
              "加上常见的类型，再设置最小长度和 `gzip_vary`：",
              edit("/etc/nginx/nginx.conf", "\tgzip on;",
                   "\tgzip on;\n\tgzip_types text/css application/javascript application/json image/svg+xml;\n\tgzip_min_length 1024;\n\tgzip_vary on;"),
              bash("sudo nginx -t && sudo systemctl reload nginx", "nginx: configuration file /etc/nginx/nginx.conf test is successful"),
              bash("curl -s -H 'Accept-Encoding: gzip' -o /dev/null -w '%{size_download}\\n' https://www.example.cn/assets/index-3f9a1c.js", "626688")),
        agent("现在响应头里有 `Content-Encoding: gzip` 了，index.js 传输大小从 2.1MB 降到 612KB。"
              "以后新加的静态文件类型（比如字体）如果也想压缩，要加到 `gzip_types` 里。"),
    ),
)

FRIDAY_NOTE = Script(
    slug="friday-release-note",
    agent="pi",
    lang="zh-Hans",
    cwd="/home/wang/deploy/k8s",
    start="2026-05-08T10:12:00Z",
    about="一条备忘：周五下午三点以后不上线，每月初结算期间也不发布",
    traps="a short note as the right answer",
    turns=(
        user("备忘：周五下午三点以后不上线；每月第一个工作日 2 点到 6 点在跑结算，也不要发布"),
        agent("记下了。"),
    ),
)

SCRIPTS = (K8S_ROLLBACK, RSYNC_MOVE, GZIP_TYPES, FRIDAY_NOTE)
