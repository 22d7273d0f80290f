"""The evidence the past-work detector weighs: one table of cues per language.

A cue is a pattern for one way of pointing at shared past work, with the context that tells it
from the same words in another sense (上次登入時間欄位 is an attribute, 以前端 is 以 + 前端). STRONG
is enough alone, WEAK needs a second cue, AGAINST speaks for the current conversation, VETO says
the cue word is used in another sense (and keeps the word model from overruling that). Texts come
folded (lower case; Chinese in simplified characters). Patterns start with a literal word and check
what precedes it in lookbehinds after it, so ``re`` skips fast to where that word occurs.
"""

from __future__ import annotations

import re

from indexer.util.named_record import NamedTuple

STRONG, WEAK, AGAINST, VETO = 1.0, 0.5, -0.5, -1.0
REACH = 120  # how far a match may reach from its needle: a long text is searched only that near


class Cue(NamedTuple):
    """One kind of evidence for past work. Every match contains one of ``needles``, so the pattern
    runs only on a text that has one, and near it (a test checks that this hides no match)."""

    name: str
    weight: float
    needles: tuple[str, ...]
    source: str

    @property
    def pattern(self) -> re.Pattern[str]:
        """Compiled on first use (``re`` keeps it): a hook process compiles only the cues it needs."""
        return re.compile(self.source)

    def finditer(self, text: str) -> list[re.Match[str]]:
        if len(text) <= 4 * REACH:
            if not any(needle in text for needle in self.needles):
                return []
            return [m for m in self.pattern.finditer(text) if m.end() > m.start()]
        return [m for start, end in _around(text, self.needles)
                for m in self.pattern.finditer(text, start, end) if m.end() > m.start()]


def _around(text: str, needles: tuple[str, ...]) -> list[tuple[int, int]]:
    """The stretches of ``text`` within REACH of an occurrence of a needle, merged, in order."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted((max(0, m.start() - REACH), m.end() + REACH)
                             for needle in needles for m in re.finditer(re.escape(needle), text)):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _cues(rows: list[tuple[str, float, str, str]]) -> tuple[Cue, ...]:
    """Cues from (name, weight, needles "a|b", pattern) rows."""
    return tuple(Cue(name, weight, tuple(needles.split("|")), pattern) for name, weight, needles, pattern in rows)


def _word(words: str) -> str:
    """Any of ``words`` ("we|we've") as a whole word: the word first, then no letter before it."""
    return "(?:" + "|".join(f"{re.escape(w)}(?<!\\w{re.escape(w)})" for w in words.split("|")) + ")"


def _behind(word: str, befores: str, negative: bool = False) -> str:
    """Lookbehinds for ``word`` right after one of ``befores``: one per width (Python's rule),
    which compiles far faster than one per word."""
    widths: dict[int, list[str]] = {}
    for before in filter(None, befores.split("|")):
        widths.setdefault(len(before), []).append(re.escape(before + word))
    sign = "!" if negative else "="
    return ("" if negative else "|").join(f"(?<{sign}{'|'.join(group)})" for group in widths.values())


def _starting(words: str, clause_end: str, befores: str = "") -> str:
    """Any of ``words`` where a clause starts (after ``clause_end`` characters and up to two
    spaces, or at the start) or right after one of ``befores``."""
    alternatives = []
    for word in words.split("|"):
        w = re.escape(word)
        checks = [f"(?<=^{w})", f"(?<=^[ \\t]{w})", f"(?<=[{clause_end}]{w})",
                  f"(?<=[{clause_end}][ \\t]{w})", f"(?<=[{clause_end}][ \\t][ \\t]{w})"]
        alternatives.append(w + "(?:" + "|".join(checks + ([_behind(word, befores)] if befores else [])) + ")")
    return "(?:" + "|".join(alternatives) + ")"


def _not_after(words: str, befores: str) -> str:
    """Any of ``words`` unless right after one of ``befores`` (缓存 + 上次)."""
    return "(?:" + "|".join(re.escape(w) + _behind(w, befores, negative=True) for w in words.split("|")) + ")"


# --- English -----------------------------------------------------------------------------------
_EN_CLAUSE_END = r".!?;:,(\n"
_IRREGULAR = (
    "did|had|made|wrote|built|got|went|saw|found|took|ran|set up|came up with|came|chose|left|brought|"
    "thought|told|said|sent|gave|kept|began|broke|caught|drew|felt|fought|held|hit|knew|led|lost|meant|"
    "met|paid|put|showed|spoke|spent|stood|stuck|taught|threw|understood|won|dug|forgot|sorted out|"
    "been|seen|done|written|gone|taken|given|known|shown|broken|chosen|gotten|begun|landed on|ended up"
)

_PAST = rf"(?:{_IRREGULAR}|(?!(?:need|feed|seed|speed|proceed|exceed|succeed|embed)\b)[a-z]{{2,}}ed)\b"
_ADVERB = (r"(?:(?:already|once|previously|originally|finally|eventually|actually|also|all|ever|first|last|"
           r"briefly|recently|successfully|somehow|properly|initially)\s+)?")
_MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
_SEASONS = "spring|summer|autumn|fall|winter"
# A time in the past, as a phrase ("from this morning") ...
_ANCHOR_PHRASE = (
    r"(?:yesterday|last (?:week|month|sprint|release|night|year|weekend|" + _WEEKDAY + r")|this morning|"
    r"earlier (?:today|this (?:week|month))|the other day|a while (?:back|ago)|back then|"
    r"(?:(?:a|one|two|three|a few|a couple of|several|some|many|\d+) )?(?:days|weeks|months|years|time)(?: or so)? ago|"
    r"over the weekend|(?:on )?" + _WEEKDAY + r"|at some point|in (?:the )?(?:" + _SEASONS + "|" + _MONTHS + r")\b)"
)
# ... and as a cue of its own, each alternative starting with its telling word ("morning"), for speed.
_ANCHOR = (
    r"(?:yesterday|last (?:week|month|sprint|release|night|year|weekend|" + _WEEKDAY + r")|morning(?<=this morning)|"
    r"earlier (?:today|this (?:week|month))|other day(?<=the other day)|while (?:back|ago)|back then|"
    r"(?:days|weeks|months|years|ages|time)(?: or so)? ago|weekend(?<=over the weekend)|" + _WEEKDAY + r"|"
    r"some point(?<=at some point)|"
    + "|".join(f"{m}(?<!\\w{m})(?:(?<=in {m})|(?<=in the {m}))\\b" for m in (_SEASONS + "|" + _MONTHS).split("|"))
    + ")"
)
_WORK_NOUN = (
    r"(?:bug|fix|fixes|refactor|thing|change|changes|work|plan|idea|approach|patch|script|discussion|issue|"
    r"problem|pr|branch|migration|hack|trick|experiment|spike|draft|prototype|notes?|numbers|benchmarks?|"
    r"results|stuff|investigation|debugging|exporter|cleanup|setup|config)"
)
_METHOD_NOUN = (
    r"(?:trick|approach|fix|way|method|deal|thing|story|procedure|steps|recipe|pattern|solution|workaround|"
    r"setup|treatment|playbook|process|drill|routine|strategy|technique|hack|idea|cleanup|dance|template)"
)
_CLAUSE_ENDS_HERE = r"[ \t]*(?:[?.!,;)\n]|$)"


def _after_words(words: str, befores: str) -> str:
    """Any of ``words`` right after one of ``befores`` (each a fixed string), word first."""
    return "(?:" + "|".join(f"{w}(?<!\\w{w})(?:" + "|".join(f"(?<={b}{w})" for b in befores.split("|")) + ")"
                            for w in words.split("|")) + ")"


# "in a previous session", "from the last chat", "check our old conversations".
_PAST_SESSION_ADJECTIVE = (r"(?:in|from|during|across|through|check|search)\s+(?:(?:a|an|the|our|my|one of (?:the|our|my))"
                           r"\s+)?(?:previous|earlier|past|prior|last|older|old|other)")

EN_CUES = _cues([
    # we + a past verb inside a sentence ("the regex we came up with", "I know we talked"); opening one
    # ("We handled the error before save()") it is often narration of code, so it needs a second cue.
    ("we-did", STRONG, "we", rf"we(?<!\wwe)(?<=[a-z] we)(?<!\bif we)(?:'ve|'d)?\s+{_ADVERB}{_PAST}"),
    ("we-did-opening", WEAK, "we", rf"we(?<!\wwe)(?<![a-z] we)(?:'ve|'d)?\s+{_ADVERB}(?!used to\b){_PAST}"),
    ("did-we", STRONG, "we", _word("did|didn't|didnt|haven't|havent|hadn't|have|had|were|weren't") + r"\s+we\b(?!\s+got\b)"),
    ("already", STRONG, "already", r"(?:didn't|did not|haven't|have not|hadn't|wasn't) (?:you|we) already\b"),
    ("you-told-me", STRONG, "you", _word("didn't|didnt|did not|weren't|wasn't")
     + r" you (?:tell|say|mention|suggest|recommend|warn|promise|show|find|figure|write|add|fix)\b"),
    ("our-history", STRONG, "history",
     r"(?:check|search|look (?:at|in|through)|go through|dig through|grep|find (?:it |that )?in)\s+(?:our|my) "
     r"(?:chat |session |conversation |agent )?history\b"),
    ("check-history", WEAK, "history", r"(?:check|search|look (?:at|in|through)|go through|grep)\s+(?:the\s+)?history\b"),
    ("last-time", STRONG, "last time",
     _word("like|as|than|since|unlike|same as|just like") + r"\s+(?:the\s+)?last time\b|"
     + _starting("last time", _EN_CLAUSE_END) + r"\b(?!\s*(?:field|column|label|value|stamp|format|zone)s?\b)|"
     rf"last time{_CLAUSE_ENDS_HERE}|the last time (?:we|you)\b"),
    ("like-last-one", STRONG, "last|previous|earlier|prior",
     _word("same as|like|as|unlike|similar to") + r"\s+(?:the\s+|our\s+)?(?:last|previous|earlier|prior)\s+"
     r"(?:sprint|week|month|time|release|year|session|pr|iteration|quarter|night|deploy|deployment|migration|"
     r"refactor|upgrade|project|ticket|round)s?\b"),
    ("like-before", STRONG, "before", r"(?:like|as|same as|similar to|the way we did it)\s+before\b"),
    ("before-end", WEAK, "before",
     rf"before(?<!\wbefore)(?<!never before)(?:{_CLAUSE_ENDS_HERE}|[ \t]*,?[ \t]*(?:right|too|no|yes|huh|"
     r"didn't|didnt|i think|i'm (?:pretty |fairly )?sure|in|on|with|at|somewhere|as well)\b)"),
    ("remember", STRONG, "rememb|recall|remind|iirc",
     r"(?:do|did|don't|dont|can) you\s+(?:still\s+)?(?:remember|recall)\b(?!\s+to\b)|"
     r"(?:remember|recall)(?<!\wremember)(?<!\wrecall)(?<!should remember)(?<!would remember)(?<!could remember)"
     r"(?<!must remember)(?<!will remember)(?<!to remember)(?<!it remember)\s+(?:when|how(?!\s+(?:many|much|"
     r"long|often)\b)|why|what|where|which|that time|the time|our|we)\b|"
     r"remember\s*\?|remind me\s+(?:how|what|why|where|which|when|of)\b|as (?:i|we) (?:remember|recall)\b|"
     r"if i (?:remember|recall) (?:correctly|right)\b|iirc\b|i(?<!\wi) (?:remember|recall) (?:that )?(?:we|you)\b"),
    ("past-session", STRONG, "session|conversation|chat|thread",
     _PAST_SESSION_ADJECTIVE + r"\s+(?:sessions?|conversations?|chats?|threads?)\b|"
     r"(?:in|from) another (?:session|chat|conversation|thread)\b|"
     r"(?:our|my) (?:old|past|previous|earlier) (?:sessions|conversations|chats|threads)\b|"
     r"(?:from|in) that (?:session|chat|conversation)\b"),
    ("usual", STRONG, "usual", r"(?:like|as) usual\b|our usual\b|(?:the way|like) we (?:always|usually) do\b|"
     r"the usual\b(?! (?:way|method|approach|practice|pattern|idiom) (?:to|of|for)\b)"),
    ("your-earlier-work", STRONG, "your", r"your (?:earlier|previous|last|old|first) (?:analysis|summary|suggestion|fix|"
     r"patch|script|plan|review|investigation|work|notes|benchmark|proposal|draft|prototype|write-?up|research)\b"),
    ("then-work", STRONG, "'s",
     r"(?:yesterday|last (?:week|month|night|sprint|friday|monday|tuesday|wednesday|thursday|time)|this morning|"
     rf"(?:mon|tues|wednes|thurs|fri)day)'s\s+(?:[\w-]+\s+)?{_WORK_NOUN}\b"),
    ("wasnt-there", STRONG, "wasn't|weren't|wasnt",
     r"(?:wasn't|weren't|wasnt) there (?:a|an|some|already a) (?:decision|discussion|plan|agreement|rule|"
     r"convention|fix|script|helper|test|workaround|ticket)\b"),
    ("same-method", STRONG, "same", rf"same\s+(?:old\s+)?{_METHOD_NOUN}\s+(?!as (?:above|below|here|this)\b)"
     r"(?:as|we|that|you|like|from|again|for|with)\b"),
    ("same-problem", WEAK, "same", r"same (?:problem|issue|bug|error|regression|crash|failure|symptom)s?\s+"
     r"(?!as (?:above|below|here|this|before you|now)\b)(?:as|we|that)\b"),
    ("what-again", STRONG, "again", r"(?:what|which|where|who)\b[^.?!\n]{0,60}\bagain\s*\?"),
    ("what-was-our", STRONG, "what",
     r"what (?:was|were) (?:that|those|our)\b|what (?:was|were) the (?:workaround|fix|trick|solution|"
     r"conclusion|decision|verdict|consensus|approach|plan|outcome|command|flag|script|setting|option|port|regex)\b"),
    ("what-was-it", WEAK, "what", rf"what (?:was|were) (?:it|they|that){_CLAUSE_ENDS_HERE}"),
    ("work-from-then", STRONG, "from",
     rf"(?:the|that|our)\s+(?:[\w.-]+\s+){{0,2}}?{_WORK_NOUN}\s+from\s+(?:{_ANCHOR_PHRASE}|"
     r"when (?:we|you)\b|before\b|earlier\b|last time\b)|"
     r"from (?:the|our) (?:earlier|previous|last|old|prior|first) (?:work|session|attempt|approach|refactor|fix|"
     r"round|iteration|try|spike|prototype|investigation|migration|release|upgrade|sprint|incident|outage|"
     r"rollout|deploy|deployment)\b|"
     r"from (?:the|that|our) (?:[\w-]+ ){0,3}?(?:session|chat|conversation|pairing|debugging|switch|upgrade|rewrite)\b"),
    ("continue-from", STRONG, "from|where|'s",
     r"(?:continue|resume|finish|carry on with|pick up|back to)\s+(?:the |our |my )?(?:yesterday|last (?:week|night|"
     r"friday|time)|this morning|earlier|friday|monday|tuesday|wednesday|thursday)'s\b|"
     r"(?:continue|resume|finish|carry on|keep going|back to)\b[^.?!\n]{0,40}?\b(?:from|where)\s+"
     rf"(?:{_ANCHOR_PHRASE}|the (?:last|previous) session|we\b|you\b|last time)"),
    ("as-discussed", STRONG, "as ", r"as (?:we |previously |earlier )?(?:discussed|agreed|decided|planned|talked about)\b"),
    ("the-thing-you-made", STRONG, "you ", r"the (?!(?:previous|last|above|first|next) )(?:[\w-]+ ){1,4}?you "
     r"(?:wrote|built|made|created|set up|added|gave me|suggested|put together|came up with)\b"),
    ("pick-back-up", STRONG, "back up", r"pick (?:the |our |it |this |that )?(?:[\w-]+ ){0,3}?back up\b"),
    ("the-fix", WEAK, "fix|workaround|patch|hack|trick", r"the (?:[\w-]+ ){0,3}?(?:fix|workaround|patch|hack|trick)\b"),
    ("there-too", WEAK, "too|as well|still", r"(?:bring|port|apply|copy|carry)\b[^.?!\n]{0,40}?\bto\b[^.?!\n]{0,30}?\b"
     r"(?:too|as well)\b|still (?:apply|needed|necessary)\b"),
    ("previously-start", WEAK, "previously", _starting("previously", _EN_CLAUSE_END) + r"\b(?![_-])"),
    ("you-did", WEAK, "you", rf"you(?<!\wyou)\s+{_ADVERB}(?!just\b){_PAST}|did you\b"),
    ("asked-you", WEAK, "you", r"i(?<!\wi) (?:already )?(?:asked|told|showed|gave|sent) you\b(?! to\b)"),
    ("back-then", WEAK, f"yesterday|last |morning|earlier|other day|while|back then|ago|day|some point|weekend|"
     f"{_SEASONS}|{_MONTHS}", _ANCHOR + r"|earlier\b(?! (?:versions?|releases?|than|one|element|entry|item)\b)"),
    ("recurring", WEAK, "back|again", _after_words("back", "is |are |'s ") + r"\b|back again\b|"
     + _after_words("again", "|".join(f"{w} " for w in ("failing", "broken", "breaking", "flaking", "crashing",
                                                        "happening", "hanging", "dying", "red", "showing up",
                                                        "popping up"))) + r"\b"),
    ("similar", WEAK, "similar|the same",
     r"similar(?<!\wsimilar)|do the same\b|the same (?:way|thing) (?:here|there)\b"),
    ("cannot-find", WEAK, "find|where|back to", r"(?:can't|cannot|couldn't|can not) find (?:it|them)\b|"
     r"where (?:is|are) (?:it|they)\b|where (?:does|do) (?:it|they|that) live\b|(?:get|go|come) back to\b"),
    ("how-did-you", WEAK, "how did you|that ", r"how did you\b|that(?<!\wthat) (?:test|script|function|fix|bug|"
     r"branch|pr|query|regex|commit|migration|helper|trick|workaround|config)\b"),
    ("this-conversation", AGAINST, "just|above|still|your",
     r"just(?<!\wjust)\b|above\b|still (?:failing|broken|the same|getting|seeing|fails)\b|"
     r"your (?:last|previous) (?:change|edit|message|answer|reply)\b"),
])

# --- Chinese (folded to simplified) ------------------------------------------------------------
_ZH_CLAUSE_END = r"\n,.;:!?()\"'"  # CJK punctuation is folded to these
_ZH_WE = "(?:我们|咱们|大家)"
_ZH_VERBS = (
    "修|改|写|做|讨论|聊|试|用|遇到|遇|碰到|碰|见|看|处理|提|说|问|定|查|配|设置|设定|搞|弄|跑|测|装|升级|"
    "重构|实现|解决|调|整理|决定|商量|约定|打|换|建|踩|讲|谈|遇见|研究|加|出现|发生|报|挂|坏|比较|对比|评估|考虑|分析"
)

_ZH_VERB = f"(?:{_ZH_VERBS})"
_ZH_NOT_GUO = "(?!程|滤|期|来|去|度|时|头|了吗)"  # 过程, 过滤, 过期 ... are words of their own
_ZH_WHEN = (
    r"(?:昨天|昨晚|前天|前晚|今早|上周末?|上礼拜|上星期|上个\s*(?:月|星期|礼拜|周末|迭代|冲刺|季度|sprint|pr)|"
    r"前几天|前两天|前阵子|前些天|前些日子|前段时间|那天|早上|上午|(?:周|星期|礼拜)[一二三四五六日天]|"
    r"(?:[一二两三几]|[0-9]+)(?:天|周|个?星期|个?礼拜|个月|年)(?:以)?前|(?:[一二三四五六七八九十]+|[0-9]+)月(?:份)?(?=那|的时候))"
)

# Words after 上次/之前 that make it an attribute of data (上次登录时间, 之前的值), not past work ...
_ZH_ATTRIBUTE = (
    r"(?:登录|登入|请求|运行|执行|同步|修改时间|更新时间|访问|读取|保存|储存|选|看到|打开|启动|返回|被|查询|搜索|"
    r"搜寻|筛选|条件|滚动|游标|位置|的?值|的?时间|的?日期|的?时刻|的?结果(?!是)|的?版本|的?配置|的?格式|的?状态|"
    r"的?步骤|的?阶段|的?token|的?id|的?ip|的?(?:开发者|维护者|负责人|作者|同事|前任)|"
    # 之前索引过的文件: data the program handled, not work done together.
    r"[^,.!?\n]{0,8}?过的(?:文件|档案|数据|资料|记录|行|条目|请求|消息|页面|用户|使用者|项目?|内容))"
)

_ZH_ATTRIBUTE_NEXT = r"\s*(?:commit|offset|token|id|ip)\b"  # 之前 commit 的 hash, 上次 offset
# ... and words before 上次: 缓存上次, 用户上次 (whose last), 这次和上次 (a comparison of two runs).
_ZH_DATA_WORDS = (
    "缓存|快取|记录|记住|保存|恢复|读取|显示|存|带上|获取|取得|对比|比较|这次和|和这次|本次和|用户|使用者|客户|会员|"
    "文件|任务|作业|设备|节点|服务|每个|每位|下次|我|'|\""
)

_ZH_EARLIER_AFTER = "你|我们|咱们|大家|好像|不是|曾经|跟|和|像|照|按|同|比|用|沿用|按照|参考|把|将|拿"
# 过 after a verb, not after 没/未 (我以前没看过 is "I have never seen").
_ONE_CHAR_VERBS = "".join(v for v in _ZH_VERBS.split("|") if len(v) == 1)
_ZH_GUO = (f"过(?:(?<=[{_ONE_CHAR_VERBS}]过)(?<![没未][{_ONE_CHAR_VERBS}]过)|"
           + "|".join(f"(?<={v}过)(?<![没未]{v}过)" for v in _ZH_VERBS.split("|") if len(v) > 1) + ")" + _ZH_NOT_GUO)

ZH_CUES = _cues([
    ("remember", STRONG, "记得|印象|过", r"我记得|还记得|记不记得|记得吗|记得吧|记得不|记得么|你记得(?!的)|不记得了|记得我们|记得你|印象中|印象里|"
     rf"我好像{_ZH_VERB}过|(?:问|跟你说|跟你讲|跟你提|和你说|和你讨论)过"),
    ("what-was-it", STRONG, "来着", r"来着"),
    ("last-time", STRONG, "上次|上回|上一", _not_after("上次|上回|上一次|上一回", _ZH_DATA_WORDS)
     # ... 上一次在 CI 通过是什么时候 asks for a date, like "when did it last pass".
     + rf"(?![^,.!?\n]{{0,6}}?{_ZH_ATTRIBUTE})(?!{_ZH_ATTRIBUTE_NEXT})(?![^,.!?\n]{{0,15}}?什么时候)"
     r"(?![^,.!?\n]{1,6}?(?:之后|以后|以来))"),  # 上次索引之后更新的: a filter, "since the last index"
    ("earlier", STRONG, "之前|以前|先前", _starting("之前|以前|先前", _ZH_CLAUSE_END, _ZH_EARLIER_AFTER) + r""
     rf"(?![端缀面者台置])(?!\s*(?:没|从没|从来没|都没|有人)|[^,.!?\n]{{0,3}}?{_ZH_ATTRIBUTE}|{_ZH_ATTRIBUTE_NEXT})|"
     rf"(?:之前|以前|先前)(?<!我之前)(?<!我以前)(?<!我先前)(?={_ZH_VERB}|那|的(?:做法|方式|讨论|方案|思路|写法|对话|"
     r"会话|聊天|结论|办法|套路|问题|bug|那))|我(?:之前|以前|上次|先前)[^,.]{0,4}?(?:让你|叫你|请你|跟你|和你|问你|给你)"),
    ("i-earlier", WEAK, "我之前|我以前|我先前|我上次", r"我(?:之前|以前|先前|上次)"),
    ("done-already", STRONG, "过", r"(?:是不是|是否|有没有)(?:已经)?[^,.??]{0,15}?(?:写|改|修|加|做|处理|解决|讨论|提|定|配|设置|建|搞|弄)过"),
    ("made-that", WEAK, "的那", r"(?:做|写|弄|搞|建|改|修|配|加|整理|讨论|定)的那(?:个|套|份|段|版)"),
    ("once", STRONG, "曾经", rf"(?:{_ZH_WE}|你|我)曾经|曾经(?![^,.]{{0,8}}?过[^,.]{{0,3}}?的(?:用户|使用者|人|客户|账号))"),
    ("we-did", STRONG, "我们|咱们|大家", rf"{_ZH_WE}[^,.!?,.!?\n]{{0,20}}?{_ZH_VERB}过{_ZH_NOT_GUO}|"
     rf"{_ZH_WE}(?:之前|当时|一起)?(?:定|讨论|聊|搞|整理|商量|决定|约定|选)(?:好|过|出来)?的|"
     rf"{_ZH_WE}那(?:个|套|次|件)|{_ZH_WE}的(?:结论|决定|约定|共识)|{_ZH_WE}[^,.!?\n]{{0,10}}?{_ZH_VERB}(?:好|过|完)的"),
    ("what-did-we-call-it", STRONG, "我们|咱们|大家",
     rf"{_ZH_WE}[^,.!?\n]{{0,8}}?(?:起|取|叫|命名|定|选|配|设|放)(?:的|了)[^,.!?\n]{{0,6}}?(?:啥|什么|哪)"),
    ("seems-we-did", STRONG, "好像", rf"好像[^,.!?\n]{{0,25}}?{_ZH_VERB}过{_ZH_NOT_GUO}"),
    ("we-did-then", WEAK, "我们|咱们|大家", rf"{_ZH_WE}[^,.!?\n]{{0,6}}?{_ZH_VERB}了"),
    ("did-once", WEAK, "过", _ZH_GUO),
    ("that-time", STRONG, "那|当|时", r"那一?次|当时(?!间)|当初|那时候?(?!起)|那会儿?|那阵子|那段(?:时间|日子)|(?:时|的时候|那时)(?:一样|那样|似的)"),
    ("when-work", STRONG, "昨|前|上|那天|月|早|周|星期|礼拜|今早",
     rf"{_ZH_WHEN}[^,.!?\n]{{0,20}}?(?:的?那(?:个|套|次|件)|没做完|做到|的工作|的进度|的讨论|的(?:方式|做法|办法|"
     r"思路|方案|那套)|(?:说|讨论|定|写|改|做|搞|整理|聊|修|试|商量|约定|说好|定好)(?:掉|好|完|过)?的)|"
     rf"{_ZH_WHEN}[^,.!?\n]{{0,6}}?(?:一样|一个情况|那样|似的)|"
     rf"(?:接着|延续|继续|回到|按照|沿用|依照|参照)\s*{_ZH_WHEN}"),
    ("then", WEAK, "昨|前|上|那天|月|早|周|星期|礼拜|今早", _ZH_WHEN),
    ("old-way", STRONG, "老|照|惯例|一如既往|原来", r"老(?:办法|方法|样子|规矩|套路|一套|做法|流程|招)|照旧|照常|照老|按老|惯例|一如既往|原来那套|"
     r"原来的(?:做法|办法|方式|套路|那套)|还是用原来"),
    ("same-trick", STRONG, "招|同样|一样|同一", r"(?:同样的|一样的|同一)(?:招|套路|办法|方法|思路|做法|手法|方式|路子)|那招|这招"),
    ("that-discussion", STRONG, "会话|对话|聊天|讨论|session", r"(?:上一?个|之前的?|以前的?|前一个|那个|那次|上次的?)\s*(?:会话|对话|聊天|讨论|session)"),
    ("that-approach", STRONG, "那套|时的|时候的", r"那套(?:思路|做法|办法|方式|方案|流程|写法|套路)|(?:时|的时候|那时)的(?:那套|思路|做法|办法|方式|方案|路子|模式|写法|方法)"),
    ("history", STRONG, "记录|纪录|历史|对话", r"(?:查|翻|找|搜|看)[^,.!?\n]{0,8}?(?:聊天[记纪]录|历史[记纪]录|历史会话|对话[记纪]录|会话[记纪]录|"
     r"以前的对话|之前的对话|过去的对话|历史里|历史中)"),
    ("unfinished", STRONG, "没", r"(?:接着|继续|延续|把)[^,.!?\n]{0,12}?没(?:做|写|弄|搞|改)完"),
    ("how-far", STRONG, "到哪", r"(?:做|搞|弄|写|进行|推进)到哪(?:了|里|一步|儿)?|到哪一步了"),
    ("how-then", STRONG, "后来|最后", r"后来是?(?:怎么|如何|咋)|最后是?(?:怎么|咋|如何)[^,.??\n]{0,4}?的|最后(?:定|决定|选|商量|讨论)(?:出来)?的|"
     r"最后的?结论|(?:最后|最终)是?(?:放|选|用|定|改|配|设|加|决定|起|取|叫|命名|设定)(?:了|在|的|成)?[^,.??\n]{0,3}?(?:哪|啥|什么|几)"),
    ("agreed", STRONG, "不是|说好|定好|商量好|约定好|约好|讲好",
     rf"(?:{_ZH_WE}|你)不是(?:已经|说好|决定|定了|讨论过|修过|说过)|不是(?:已经)?(?:修|改|处理|解决|搞定|说|定)"
     r"(?:过|好)了?吗|说好(?:了|的)|定好的|商量好的|约定好的|约好的|讲好的|不是(?:说|讲|约|定|商量)好|不是已经[^,.??\n]{0,15}?了吗"),
    ("our-habit", STRONG, "我们|咱们|大家", rf"{_ZH_WE}(?:一般|通常|平时|平常|习惯)[^.!\n]*[??]"),
    ("that-fix", WEAK, "那个", r"那个[^,.!?\n]{0,12}?(?:解决办法|解决方案|办法|修法|workaround)"),
    ("again", WEAK, "又|再", r"又(?:出现|来了|回来|挂|红|报|坏|炸|不行|失败|解不出|解析失败)|又是|再.?一(?:遍|次)"),
    ("mixed-english", STRONG, "last time", r"(?:跟|像|和|照|同)\s*last time"),
    ("where-stopped", STRONG, "地方|停在|停下", r"(?:停下|停在|停|中断|做到|搞到|写到|弄到)(?:来)?的地方|停在哪|停下来?的地方"),
    ("same-problem", WEAK, "同样|一样|同一|相同", r"(?:同样的|一样的|同一个|相同的)(?:错误|报错|问题|bug|异常|坑|死锁|情况|症状)"),
    ("similar", WEAK, "类似|照着|同样地", r"类似的|照着(?:改|做|来|弄)|同样地"),
    ("find-it", WEAK, "找出|翻出|找回|找一下|在哪", r"找出来|翻出来|找回来|找一下|现在(?:放)?在哪"),
    ("you-made", WEAK, "你", r"你(?:之前|上次|帮我|给我|替我|帮|给)?[^,.!?\n]{0,12}?(?:写|做|改|加|建|弄|搞|整理|调)的|你是怎么[^,.??\n]{0,30}?的"),
    ("that-artifact", WEAK, "那个", r"那个(?:测试|脚本|函数|bug|分支|查询|正则|提交|迁移|helper|修复|修正|补丁|改动|workaround|方案)"),
    ("also-there", WEAK, "也|还", r"也(?:搬|用|套|加|移|应用|同步|放)到|现在还(?:要|需要|用|适用|有用)吗"),
    ("that-matter", STRONG, "那件事|那个事|那事", r"那件事|那个事(?!件)|那事儿"),
    ("my-experience", AGAINST, "过", r"我(?:以前|之前|从来)?(?:没|没有|从没)?(?:用过|见过|碰过|看过|试过|接触过|玩过)(?!你)|"
     r"你(?:有)?(?:没有)?(?:用过|部署过|试过|碰过|玩过|接触过)[^.,]*?(?:吗|么|没有)"),
    ("this-conversation", AGAINST, "刚|上面|你的|还是", r"刚才|刚刚|上面(?:说|那|的|提)|你的(?:修改|改动)|还是(?:一样|同样)的"),
])

# --- Japanese ----------------------------------------------------------------------------------
_JA_CLAUSE_END = r"\n,.!?()\"'はもがを"
_JA_WHEN = (
    r"(?:先週末?|先般|先だって|過日|先々週|先々月|半年前|昨日|昨夜|昨晩|おととい|一昨日|先月|今朝|朝|午前中|去年|昨年|年末|年始|週末|曜(?<=[月火水木金土日]曜)日?|(?:[一二三四五六七八九十数何幾]|[0-9]+)(?:日|週間|ヶ月|か月|カ月|年)前)"
)
_JA_WORK = (
    r"(?:の続き|やった|やってた|話した|相談した|決めた|直した|修正した|作った|書いた|整理した|試した|調べた|"
    r"使った|進めた|始めた|着手した|途中|決まった|やりかけ|(?:話し|やっ|作っ|書い|決め|言っ|調べ|直し|使っ|進め|試し)てい?た|入れた|やり残し|手をつけた|触った|いじった|の件|の打ち合わせ|と同じ|の(?:セッション|会話|やり取り|チャット|作業|議論|修正|パッチ|対応))"
)

# What marks a sentence as about shared past work: a past-tense verb of working together, a
# question, a comparison with then, a reuse of what was made, a sentence ending in the past tense.
_JA_RECALL_MARKS = (
    r"やった|話した|決めた|直した|修正した|相談した|試した|使った|作った|書いた|教え|調べた|っけ|"
    r"覚えて(?:る|い[るまな]|ます|ない|ません)|\?|と同じ|同じく|みたいに|のように|同様|の続き|"
    r"のセッション|の会話|のやり取り|の件|の話|の議論|\bpr\b|そのまま|流用|再利用|活か|踏襲|参考に|今回|どう|なぜ|"
    r"なんで|何|だった|理由|[ただ](?:やり方|方法|手順|とき|時(?![刻間])|件|結果)|[ただ](?=[.!?\n]|$)|"
    r"踏まえ|沿って|どおり|通りに|ベースに|反映|でいこう|残り|"
    # ... the person's own words for it (ハマった, 言ってた, 頼んだ, いただいた), the polite past
    # (修正しましたが), and a past relative clause on what a session leaves (出てきた案)
    r"ハマ|はま[っり]|つまず|詰まっ|言って|言った|おっしゃ|入れた|消した|頼ん|お願いし|提案|教わ|手伝|いただ[いき]|"
    r"もらっ|くれた|作業し|[らか]なかった|やり残|分かった|わかった|ました|でした|"
    r"[ただ](?:案|提案|話|結論|エラー|問題|バグ|スクリプト|修正|パッチ|メモ|方針)|と一緒|でお願い|でやって|で進め|で頼"
)
# What a session leaves behind: 前回の<one of these> is past work, unless it names a datum of it
# (前回のブランチ名, 前回のエラー件数: a field to show). Only a session leaves the first kind (前回の方針,
# 前回の要領); a program may keep the second too (前回のコマンドの終了ステータス, 前回の入力内容).
_JA_SESSION_ONLY = (
    r"方針|設計|メモ|構成|案|計画|結論|レビュー|指摘|調査|手順|todo|タスク|課題|作業|実装|リファクタ|"
    r"検証|実験|ベンチ|議論|議事|決定|合意|対策|回避策|pr|やつ|あれ|アレ|デバッグ|進捗|提案|反省|宿題|相談|打ち合わせ|"
    r"ミーティング|説明|依頼|お願い|対応|やり方|方法|要領|感じ|ノリ"
)
_JA_SESSION_WORK = (  # not デプロイ, リリース: a program keeps "the previous deployment" too
    _JA_SESSION_ONLY + r"|続き|マイグレーション|変更|修正|エラー|バグ|問題|パッチ|コミット|ブランチ|スクリプト|内容|コード|テンプレ|フォーマット|"
    r"質問|答え|回答|もの|コマンド|ログ(?!イン)"
)
_JA_DATUM = r"件数|名|数|書|ページ|id|番号|日時|時刻|一覧|時間|回数|サイズ|メッセージ|コード|状態|フラグ|終了|ステータス"

# A feature to build (前回の続きから再生する機能を付けて), and the verbs that say the work was shared.
_JA_FEATURE = (
    r"(?:[るすくうつぶむぐ](?:機能|ボタン|オプション|ジョブ|仕組み|処理|フック)|機能を(?:付け|追加|作|実装|入れ)|"
    r"保存|復元|保持|残して|残す|初期値|デフォルト|表示して|表示する|比較|差分|状態|読み込|読める|開く|ように(?:して|する)|"
    r"localstorage|cookie|\bdb\b|次回|アップロード|され(?:た|る))"
)
_JA_SHARED_VERBS = (
    r"やった|話した|決めた|直した|修正した|相談した|試した|作った|書いた|教え|調べた|っけ|覚えて|ハマ|言って|言った|頼ん|"
    r"お願いし|提案|もらっ|くれた|いただ[いき]|ました|でした|と同じ|と一緒|みたいに|のように|同様|使った|どこ|\?"
)
# A program's history (閲覧履歴を検索する機能), not the sessions'.
_JA_DATA_HISTORY = "閲覧|購入|変更|操作|検索|注文|アクセス|ログイン|入力|通知|編集|更新|取引|視聴|位置|git|git "

JA_CUES = _cues([
    ("last-time", STRONG, "前回", _not_after("前回", "今回と|今回の|次回|ごとに") + r"(?![^\s,.の]{0,8}?(?:時刻|日時|時間|値|日付))"
     r"(?![^.,\n]{0,12}?以降)(?![^.,\n\s]{0,8}?から(?:の|今|現在))(?!\s?と\s?今回)(?!の?\s*(?:push|プッシュ|コミット|commit))(?!の?(?:ログイン|実行|同期|読んだ|保存|選|見た|リクエスト|"
     r"値|日時|時刻|更新|アクセス|起動|検索|位置|比))(?!の?(?:バックアップ|スナップショット|チェックポイント|状態)から)"),
    ("earlier-how", STRONG, "以前|前に", r"(?:以前|前に)(?:は)?(?:どう|どうやって|どのように|何を)[^.,!?\n]{0,12}?[ただ](?:か|っけ|の)"),
    ("earlier", STRONG, "以前", r"以前(?<![\d.]以前)(?<![\d.]\s以前)(?!に?[^.,\n]{0,12}?(?:され|られ)た)(?!に[^.,\n]{0,12}?[ただ](?:ファイル|データ|レコード|行|エントリ|リクエスト|"
     r"メッセージ|ページ|ユーザー|項目))(?=に|の(?:セッション(?!形式|フォーマット|ファイル|データ|id)|方針|設計|結論|決定|議論|実装|やり方|方法|件|話|議論|会話|やり取り|対応|修正)|と同じ|[,,]|話|やった|書い|作っ|決め|使っ|直し|相談|"
     r"お話|ご(?:提案|相談|説明)|お(?:願い|伝え)|いただ|もらっ|教え|(?:共有|提案)し|言っ)"),
    ("the-other-day", STRONG, "この|こない|先日|いつぞや", r"この前(?!提|処理|後|述|段|半|者|置|面|景|例|項|節|日|任|身|方)|このまえ|こないだ|いつぞや|"
     r"この間(?![隔違に])(?!の(?:スペース|空白|余白|距離|行|文字))|先日(?!付)"),
    ("what-was-it", STRONG, "っけ", r"っけ(?<=[ただ]っけ)"),
    ("remember", STRONG, "覚えて|思い出|記憶", r"覚えて(?:る|い(?:る|ます|ない)|ます|ない|ません)(?!ように)|思い出(?:して|せ|した|そう)|"
     r"記憶(?:が|に)?(?:ある|あります)|記憶(?:では|だと|によると)"),
    ("usual", STRONG, "いつも|普段", r"いつも(?:の(?!挙動|動作|状態|値|速度|時間|倍|半分|量|ペース|レベル|サイズ)|通り|どおり|みたいに|と同じ(?!結果|値|挙動|動作|速度))|"
     r"いつも(?:やって|使って|回して)(?:る|いる)(?!ように見)|普段(?:の|通り)"),
    ("that-thing", STRONG, "例の", r"例の(?<![のこそあど]例の)(?<!事例の|実例の|用例の|前例の|一例の|慣例の|通例の|定例の|条例の|特例の|判例の)"
     r"(?<!具体例の)(?!よう|通り|とおり|形式|出力|コード|ケース)(?=\s?\S)"),
    # 前 where a clause starts (or after これ, ちょっと ...) read once, then what follows it.
    ("before", STRONG, "前", _starting("前", _JA_CLAUSE_END, "これ|それ|あれ|ちょっと|少し|だいぶ|しばらく") + r"(?:"
     r"(?:に|にも|も|は)(?=[^.!?\n]{0,25}?[ただ](?:[よねなけっかの.,!?!?\s]|$|気|はず|やつ|スクリプト|とき|設計|方針|案|件|話|"
     r"ドキュメント|資料|メモ|コード|設定|コマンド|やり方|方法|手順|結果|ポイント|箇所|ところ|こと))|"
     r"の?と同じ(?:[くに]|ように|やり方|方法|手順|感じ|要領|設定で|構成で|エラー|問題|手|流れ|で)|(?:みたいに|のように)(?!見え)|"
     # casual, without a particle: 前やったみたいに, 前作ったやつ
     r"(?:やっ|作っ|使っ|言っ|書い|話し|決め|直し|教え)(?:て)?た)|"
     r"前の(?:セッション|会話|やり取り|チャット|スレッド)(?!形式|フォーマット|ファイル|データ|id)|"
     r"前の(?:スプリント|イテレーション|PR|pr|リリース|プロジェクト|案件|とき|時)(?:と同じ|みたいに|のように|の(?:やり方|方法|手順))"),
    ("when-work", STRONG, "先週|先般|先だって|過日|先々|昨|おととい|先月|前|朝|去年|週末|曜|年末|年始|午前中", rf"{_JA_WHEN}[^.,!?\n]{{0,30}}?{_JA_WORK}"),
    ("that-time", STRONG, "あの|当時", r"あの(?:とき|時|頃)|当時"),
    ("that-matter", STRONG, "あの件|あの話", r"あの件|あの話(?!し)"),
    ("then", WEAK, "先週|先般|先だって|過日|先々|昨|おととい|先月|前|朝|去年|週末|曜|年末|年始|午前中", _JA_WHEN),
    ("like-when", STRONG, "とき|時", r"(?:とき|時)(?:と同じ|みたいに|のように|に(?:やった|使った|した)|の(?:やり方|方法|手順|対応|結果|ベンチ|"
     r"profiling|プロファイリング|コミット|ブランチ|pr|sql|クエリ|パッチ|メモ|スクリプト))"),
    ("same-method", STRONG, "同じ|いつもの", r"(?:同じ|いつもの)(?:方法|やり方|考え方|進め方|書き方|直し方|要領|手|手順|対応|パターン|作戦|流れ)"),
    ("decided", STRONG, "決|合意|結論|話し合|相談|議論", r"(?:決めた|決まった|合意した|結論になった|結論が出た|話し合った|相談した|議論した)(?![値数])"),
    ("you-did-for-me", STRONG, "もらった|くれた", r"(?:て|で)(?:もらった|くれた)"),
    # ... unless it was just now, in this conversation (さっき書いてくれた関数).
    ("just-now-for-me", AGAINST, "さっき|先ほど|さきほど", r"(?:さっき|先ほど|さきほど)[^.,!?\n]{0,12}?(?:て|で)(?:もらった|くれた)"),
    ("i-think-we-did", STRONG, "気がする|はず", r"(?:た|だ|たことが?ある)(?:気がする|はず)"),
    ("did-we-not", STRONG, "じゃなかった", r"(?:た|だ)(?:ん)?じゃなかった(?:っけ|か|\?)"),
    ("how-far", STRONG, "どこまで", r"どこまで(?:進ん|やっ|行っ|い)(?:で|て)?(?:た|だ|る)"),
    ("history", STRONG, "履歴|過去|以前の|前回の", r"(?:" + _not_after("履歴", _JA_DATA_HISTORY) + r"|過去の(?:やり取り|会話|セッション|チャット|議論)|以前のセッション|前回のセッション)"
     r"[^.\n]{0,30}?(?:探|調べ|検索|確認|見つけ)|過去の(?:やり取り|会話|セッション|チャット)"),
    ("you-know", STRONG, "よね|でしょ|じゃん|っけ", r"[ただ](?:よね|でしょ|じゃん)|[ただ]ことが?あ(?:る|った)(?:よね|でしょ|じゃん|っけ)"),
    ("in-the-end", STRONG, "結局|最終的|結論", r"結局(?:どう|何|どれ|どっち|なに|いくつ|どこ|誰)|最終的に(?:どう|何|いくつ|どこ|どれ)|結論(?:は|って)?(?:どう|何|出た)"),
    ("back-when", STRONG, "頃|ころ", r"[ただ](?:頃|ころ)(?:に|の|は)"),
    ("what-was-it-again", STRONG, "だった|件に戻|なかった理由",
     r"[ただ]んだった(?:[??]|っけ|か)|(?:どれ|何|どこ|いつ|誰|なん)だった[??]|件に戻(?:ろう|って|る|りたい)|なかった理由|"
     r"(?:どういう|どんな|どの|何の)[^.,!?\n]{0,8}?だった(?:か|[??]|の)"),
    # の件 asked after (Stripe の件、進捗どう?), work left half done, an old thing we made, a look of
    # something seen before.
    # 撮り直したのってどのブランチ? asks about an act done; あれどこいった? about a thing made.
    ("fixed-once", STRONG, "一度|一回", r"一[度回](?:直|修正|解決|対応)した(?:のに|はず|けど)"),
    ("when-we-were", STRONG, "時って|ときって", r"[てで]い?た(?:とき|時)って"),
    ("the-previous-one", STRONG, "前の", r"前の(?:やつ|あれ|アレ)(?!より|と比|の方が|のほうが)"),
    ("the-act", STRONG, "のって", r"[ただ]のって(?:どの|どこ|いつ|誰|何|なん)"),
    ("where-did-it-go", STRONG, "あれ", r"あれ[,]?\s?(?:どこ|どう)(?:いった|行った|なった|やった|置いた)"),
    ("the-matter", STRONG, "の件", r"の件(?:[,]|ですが|って|は)?\s?[^.!?\n]{0,10}?(?:どう|進捗|その後|どこまで|結局|引き続き)"),
    ("unfinished", STRONG, "途中|やりかけ", r"途中(?:だった|までやって|まで進め|まで書い|になって(?:た|い))|やりかけ(?:の|て)"),
    ("long-ago", STRONG, "昔", r"昔(?:書い|作っ|使っ|やっ|直し)た"),
    ("seen-it", STRONG, "見覚え", r"見覚え(?:が)?(?:ある|あり)"),
    ("another-session", STRONG, "別の|さっき|もう一|あっち", r"別の(?:セッション|チャット|会話|スレッド)で(?=[^.!?\n]{0,20}?[ただ])|"
     r"(?:さっき|もう一[個つ]|あっち)の(?:セッション|チャット|会話|スレッド)"),
    ("thought-so", WEAK, "思って", r"(?:と|って)思って(?:た|い)(?:けど|のに|んだけど)"),
    ("carry-on", WEAK, "引き続き", r"引き続き"),
    ("that-one", WEAK, "あの", r"あの(?:テスト|スクリプト|関数|バグ|ブランチ|クエリ|正規表現|コミット|修正|エラー)"),
    ("how-did-you", WEAK, "どうやっ", r"どうやった|どうやって(?:た|いた)"),
    ("tried-already", STRONG, "もう|既に|すでに", r"(?:もう|既に|すでに)[^.\n]{0,12}?[ただ]か(?:確認|調べ|見て|チェック|どうか)"),
    ("if-i-recall", STRONG, "たしか|確か", r"たしか(?!に|め)|確か(?!に|め|な|さ|で)"),
    ("did-we-not-yet", STRONG, "なかった", r"て(?:い)?なかった(?:[??]|っけ|か)"),
    ("where-stopped", STRONG, "ところ|再開|続き", r"(?:止めた|止まった|中断した|終わった|やめた|止めていた|終えた)ところ|ところから(?:続け|再開)|"
     r"(?:止めた|中断した|止まった)(?!ら)[^.,\n]{0,12}?(?:を|の)?(?:再開|続き)"),
    ("set-aside", STRONG, "後回し|保留|棚上げ|中断", r"(?:後回し|保留|棚上げ)に(?:して|し)(?:い)?た|中断して(?:い)?た"),
    ("same-problem", WEAK, "同じ", r"同じ(?:エラー|問題|バグ|症状|デッドロック|原因|例外|不具合|現象|落ち方)"),
    ("similar", WEAK, "似た|同じように|同様", r"似た|同じように|同様に"),
    ("past-relative", WEAK, "とき|時|やつ|クエリ|スクリプト|コマンド|関数|ツール|設定|ワンライナー|案|方針|手順",
     r"[ただ](?:とき|時)の|[ただ](?:やつ|クエリ|スクリプト|コマンド|関数|ツール|設定|ワンライナー|案|方針|手順)"),
    ("find-it", WEAK, "探して|見つけて|掘り", r"探して|見つけて|掘り出して|掘り起こして"),
    ("also-there", WEAK, "にも|まだ", r"にも(?:入れ|適用|反映|追加)|まだ(?:要る|必要|使える|効く)"),
    ("the-fix", WEAK, "の修正|の回避策|の対応|のパッチ", r"の(?:修正|回避策|対応|パッチ)"),
    ("my-experience", AGAINST, "ことが|ことあ", r"[ただ]ことが(?:ある|あります)(?:けど|が)|[ただ]ことある[??]|[ただ]ことありますか"),
    ("again", WEAK, "また|再発|もう一", r"また(?:同じ|落ち|出|壊れ|失敗|発生|解決できない|ハマ|起き)|再発|もう一[回度]"),
    ("this-conversation", AGAINST, "さっき|先ほど|上の|まだ同じ|今の修正", r"(?:さっき|先ほど)(?!気づ|気付|思い|の?(?:セッション|チャット|会話|スレッド))|上の(?:関数|コード)|まだ同じ|今の修正"),
    # 前回 in a sentence that says nothing of past work (no past-tense verb of shared work, no
    # question, no と同じ, みたいに, の続き, の件): a program's remembered state, a feature to build
    # ("restore the previous window position", "commits since the previous tag"). A veto: it
    # cancels 前回 and the word model is not asked; another cue in the prompt still counts.
    # ... or that asks for a feature built on it, with no verb of shared work ("a button that
    # plays on from where the previous run stopped").
    ("previous-state", VETO, "前回", r"前回(?![はも])(?!(?:まで)?の?\s?(?:" + _JA_SESSION_WORK + ")(?!の?(?:" + _JA_DATUM + ")))"
     r"(?![^.!?\n]*?(?:" + _JA_RECALL_MARKS + "))|"
     r"前回(?![はも])(?!(?:まで)?の?\s?(?:" + _JA_SESSION_ONLY + "))(?=[^.!?\n]*?" + _JA_FEATURE + ")"
     r"(?![^.!?\n]*?(?:" + _JA_SHARED_VERBS + "))"),
])
