"""Notice when a prompt points at past work ("我記得上次...", "didn't we fix this before?").

``detect_recall(prompt)`` looks for such phrases in Chinese, Japanese and English and, when one
is found, also extracts search terms from the rest of the prompt. It errs on the side of
silence: a phrase that usually means something else ("remember to run tests", "提交之前先跑测试",
"the previously selected row", ``previously_defined_var``) does not count. Code blocks, inline
code and URLs are ignored when looking for a phrase.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexer.search.query import is_cjk

MAX_PROMPT_CHARS = 8000  # a long paste is not read further: the phrase is almost always early
MAX_TERMS = 4

# --- Chinese -----------------------------------------------------------------------------------
# 之前/以前 mean "earlier" at the start of a clause or after a subject ("我们之前..."), or when
# an experiential 过 follows soon; after a verb they mean "before" ("提交之前先跑测试").
_ZH_CLAUSE_START = r"(?:^|(?<=[\s,.;:!?，。；：！？、「」（）()\"'我你们們咱]))"
_ZH_PAST_FOLLOW = (
    r"(?=好像|不是|是不是|曾|已经|已經|提到|提过|提過|说过|說過|"
    r"(?:我们|我們|你|我|咱们|咱們)?[^，。！？,.!?\n]{0,6}?[过過])"
)
_ZH_PATTERNS = [
    r"我記得|我记得|還記得|还记得|記不記得|记不记得|記得嗎|记得吗|記得吧|记得吧|你記得|你记得|不記得|不记得",
    r"上次|上回|上一次|那一次|那次我们|那次我們",
    r"曾经|曾經|先前",
    _ZH_CLAUSE_START + r"(?:之前|以前)|(?:之前|以前)" + _ZH_PAST_FOLLOW,
    r"翻一下|翻翻|翻一翻",
    # 查一下/找一下 alone is usually "look something up"; only with a history word does it count.
    r"(?:查一下|找一下|搜一下|查查|找找)(?=[^。！？\n]{0,12}(?:记录|記錄|历史|歷史|会话|會話|对话|對話|聊天))",
    r"(?:历史|歷史)(?:记录|記錄|会话|會話|对话|對話)|聊天记录|聊天記錄",
]

# --- Japanese ----------------------------------------------------------------------------------
_JA_PATTERNS = [
    r"前回|この前(?!提)|このまえ|先日|前にも|以前(?=[のにはもで、,]|$)",
    # 覚えてる / 覚えている / 覚えてますか / 覚えてない — not 覚えておいて ("keep in mind").
    r"覚えて(?:る|いる|います|ます|ない|いない)",
    r"(?:た|だ)っけ",
    r"履歴(?:を|から|で)?(?:調べ|探し|見て|確認|検索)",
]

# --- English -----------------------------------------------------------------------------------
_EN_CLAUSE_START = r"(?:^|(?<=[.!?;:,\n]))\s*"
_EN_PATTERNS = [
    r"(?<!for the )\blast time\b(?![_-])(?!\s+(?:values?|stamps?|fields?|columns?|variables?|vars?|keys?|"
    r"params?|parameters?|settings?|options?|formats?|zones?|series|window|slots?)\b)",
    r"\b(?:we|you|i|i've|we've|you've|we'd|you'd|as)\s+previously\b(?![_-])",
    _EN_CLAUSE_START + r"previously\b(?![_-])",
    r"\b(?:did|didn't|didnt|haven't|havent|hadn't)\s+we\b",
    r"\b(?:have|had)\s+(?:we|you)\s+(?:ever|already)\b",
    _EN_CLAUSE_START + r"(?:hey,?\s+)?(?:do you |don't you |dont you |you |we |i )?(?:still )?"
    r"(?:remember|recall)\s+(?:when|how(?!\s+(?:many|much|long|often)\b)|why|that time|the time|"
    r"what (?:we|you|i)|where (?:we|you|i))\b",
    r"\b(?:do|did|don't|dont)\s+you\s+(?:still\s+)?(?:remember|recall)\b(?!\s+to\b)",
    r"\bremember\s*\?",
    r"\bas i (?:remember|recall)\b|\bif i (?:remember|recall) (?:correctly|right)\b|\biirc\b",
    r"\b(?:fixed|solved|did|done|seen|saw|had|hit|discussed|tried|handled|debugged|encountered|"
    r"ran into|run into|worked on|implemented|talked about|mentioned|looked at)\b"
    r"[^.?!\n]{0,40}?\bbefore\s*(?:[?.!,;)]|$|\b(?:right|too|no|yes|huh|didn't|didnt|as well)\b)",
    r"\blike (?:we did )?before\b|\blike last time\b|\bsame as last time\b",
    r"\b(?:in|from) (?:a|an|the|our|my|one of the) (?:previous|earlier|past|prior|last|older|other) "
    r"(?:sessions?|conversations?|chats?|threads?|runs?)\b",
    r"\bthe other day\b|\ba while (?:ago|back)\b",
]

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    *(("zh", re.compile(p)) for p in _ZH_PATTERNS),
    *(("ja", re.compile(p)) for p in _JA_PATTERNS),
    *(("en", re.compile(p, re.IGNORECASE | re.MULTILINE)) for p in _EN_PATTERNS),
]

_FENCED = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"\b(?:https?|file)://\S+")


@dataclass(frozen=True, slots=True)
class RecallMatch:
    """A prompt that refers to past work: the phrase found and what to search for."""

    phrase: str
    language: str  # "zh" | "ja" | "en"
    start: int
    end: int
    terms: tuple[str, ...]

    @property
    def query(self) -> str:
        """The terms as a Threadback query (all must match)."""
        return " ".join(self.terms)

    @property
    def any_query(self) -> str:
        """The terms joined with OR: the fallback when the strict query finds nothing."""
        return " OR ".join(self.terms)


def _blank(match: re.Match[str]) -> str:
    """Keep offsets: replace a span by spaces (newlines kept, so clause starts still work)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _searchable_prose(prompt: str) -> str:
    text = prompt[:MAX_PROMPT_CHARS]
    for pattern in (_FENCED, _INLINE_CODE, _URL):
        text = pattern.sub(_blank, text)
    return text


def find_recall_phrases(prompt: str) -> list[tuple[str, int, int]]:
    """Every trigger phrase in the prose of ``prompt``: ``(language, start, end)``, in order."""
    prose = _searchable_prose(prompt)
    found = []
    for language, pattern in _PATTERNS:
        for m in pattern.finditer(prose):
            if m.end() > m.start():
                found.append((language, m.start(), m.end()))
    return sorted(found, key=lambda f: (f[1], -f[2]))


def detect_recall(prompt: str) -> RecallMatch | None:
    """The first phrase in ``prompt`` that points at past work, with search terms, or None."""
    if not isinstance(prompt, str) or not prompt.strip():
        return None
    found = find_recall_phrases(prompt)
    if not found:
        return None
    language, start, end = found[0]
    text = prompt[:MAX_PROMPT_CHARS]
    return RecallMatch(
        phrase=text[start:end].strip(),
        language=language,
        start=start,
        end=end,
        # Trigger words are stop words, so nothing in between (``seen this TypeError before``)
        # is lost by cutting the phrase out.
        terms=tuple(extract_terms(text)),
    )


# --- search terms ------------------------------------------------------------------------------

_EN_STOP = frozenset("""
a about above after again against all also am an and any are aren't as ask at be because been
before being below between both but by can can't cannot could couldn't did didn't didnt do does
doesn't doing don't dont done down during each else even ever every few fix fixed fixing for from
further get got had hadn't has hasn't have haven't havent having he her here hers herself him
himself his how i i'd i'll i'm i've if in into is isn't it it's its itself just know last let
let's like look looked make made me might mine more most much must my myself need no nor not now
of off ok okay on once one only or other our ours ourselves out over own please previously
problem issue error bug recall remember remembered same say see seen she should shouldn't so some
such sure than that that's the their theirs them themselves then there these they thing things
this those through time times to too try tried under until up us use used very want was wasn't
way we we'd we'll we're we've were weren't what what's when where which while who whom why will
with won't work worked would wouldn't yes yet you you'd you'll you're you've your yours yourself
again earlier ago back while day other session sessions conversation chat thread didn doesn don isn wasn won aren haven hasn hadn couldn wouldn shouldn weren ll ve re
hit add added wrote write written run ran handle handled set find found tell show check go went
said talk talked discuss discussed solve solved help think thought yesterday today ever already
still correctly right hey iirc
""".split())

# Function characters and filler words; CJK runs are split at these.
_CJK_STOP_WORDS = sorted(
    """
    我記得 我记得 还记得 還記得 記不記得 记不记得 記得 记得 上一次 上次 上回 之前 以前 曾经 曾經 先前
    翻一下 翻翻 查一下 找一下 搜一下 查查 找找 一下 看看 帮我 幫我 请 請 怎么 怎麼 怎样 怎樣 什么 什麼
    为什么 為什麼 如何 是不是 有没有 有沒有 那个 那個 这个 這個 那次 时候 時候 问题 問題 东西 東西
    事情 讨论 討論 记录 記錄 历史 歷史 会话 會話 对话 對話 聊天 我们 我們 你们 你們 咱们 咱們 已经 已經 好像
    前回 この前 このまえ 先日 前にも 覚えて 履歴 どうやって どう どうして なんで 何を 何か ください
    ました ません でした です ます する した して いる ある って っけ たっけ だっけ
    この その あの どの これ それ あれ どれ とき 時 よね ような
    """.split(),
    key=len,
    reverse=True,
)
_CJK_STOP_CHARS = set(
    "的了吗嗎呢吧啊呀么麼是在我你他她它们們这這那个個把被和跟与與就也都还還有过過又再很太"
    "の は が を に で と も へ や か ね よ な だ た て し ぞ さ"
    "，。、；：！？「」『』（）【】《》"
)
_CODEISH = re.compile(r"[A-Za-z0-9_][\w.\-/:#@]*[\w]|[A-Za-z0-9_]")
_HAS_CODE_SHAPE = re.compile(r"[_./:#@\d-]|[a-z][A-Z]")
_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_RUN_OR_OTHER = re.compile(f"(?P<cjk>[{_CJK_CHARS}]+)|(?P<other>[^{_CJK_CHARS}]+)")


def _cjk_words(run: str) -> list[str]:
    """Split one CJK run at stop words and function characters; keep pieces of 2+ characters."""
    for word in _CJK_STOP_WORDS:
        run = run.replace(word, " ")
    pieces = "".join(" " if ch in _CJK_STOP_CHARS else ch for ch in run).split()
    return [p for p in pieces if len(p) >= 2]


def _clean_token(token: str) -> str | None:
    token = token.strip(".,;:!?()[]{}<>'\"`").lstrip("-")
    if len(token) < 3 and not _HAS_CODE_SHAPE.search(token):
        return None
    if len(token) < 2 or token == "OR":
        return None
    if token.lower() in _EN_STOP:
        return None
    return token


def extract_terms(prompt: str, drop_spans: list[tuple[int, int]] | None = None, *, limit: int = MAX_TERMS) -> list[str]:
    """Search words from a prompt: the trigger phrases and stop words dropped, CJK runs and
    code-ish tokens kept (``sqlite3``, ``foo_bar``, ``src/app.py``); at most ``limit``, with
    code-ish and longer words preferred, in the order they appear."""
    chars = list(prompt)
    for start, end in drop_spans or ():
        for i in range(start, min(end, len(chars))):
            chars[i] = " "
    text = "".join(chars)
    candidates: list[tuple[int, str, bool]] = []  # (position, term, code-ish)
    for part in _CJK_RUN_OR_OTHER.finditer(text):
        if part.group("cjk"):
            for word in _cjk_words(part.group("cjk")):
                candidates.append((part.start(), word, False))
            continue
        for tok in _CODEISH.finditer(part.group("other")):
            cleaned = _clean_token(tok.group(0))
            if cleaned:
                code = bool(_HAS_CODE_SHAPE.search(cleaned))
                candidates.append((part.start() + tok.start(), cleaned, code))
    seen: set[str] = set()
    unique = []
    for position, term, code in candidates:
        key = term.lower()
        if key in seen:
            continue
        seen.add(key)
        unique.append((position, term, code))
    ranked = sorted(unique, key=lambda c: (not c[2], -_weight(c[1])))
    chosen = sorted(ranked[:limit], key=lambda c: c[0])
    return [_as_query_term(term) for _, term, _ in chosen]


def _weight(term: str) -> int:
    """Longer is more specific; a CJK character carries about as much as two Latin letters."""
    return sum(2 if is_cjk(ch) else 1 for ch in term)


def _as_query_term(term: str) -> str:
    """A term that the query parser will read literally (``agent:x`` would be a filter)."""
    term = term.replace('"', "")
    if ":" in term or term.startswith("-"):
        return f'"{term}"'
    return term
