"""Notice when a prompt points at past work ("我記得上次...", "do it like we did in the auth
refactor", いつものやり方で) and say what to search for.

``detect_recall(prompt)`` weighs the cues of ``indexer.agents.recall_cues`` in the prose of the prompt (code
and URLs ignored): a strong cue is enough, weak ones must add up, talk about the current conversation
counts against. When the cues fall short, a word model trained on the labelled prompts
(``recall_model.tsv``, from ``scripts/train_recall_model.py``) may still fire if it is sure.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable
from functools import cache

from indexer.agents.recall_cues import EN_CUES, JA_CUES, VETO, ZH_CUES, Cue
from indexer.text.cjk import is_cjk
from indexer.util.named_record import NamedTuple

# The traditional characters of the Chinese patterns and stop words, each followed by its simplified
# form (generated from a Traditional/Simplified table: a new pattern character may need its pair).
_TRADITIONAL = (
    "與与業业東东兩两個个為为麼么麽么習习瞭了從从們们會会妳你祢你儲储兒儿內内寫写衝冲決决況况幾几齣出則则剛刚辦办務务動动曆历歷历參参發发髮发颱台臺台"
    "檯台號号後后嗎吗啓启啟启員员週周迴回壞坏處处備备復复複复頭头牠它實实傢家對对尋寻將将帶带幫帮應应開开異异當当噹当錄录態态慣惯戶户纔才執执護护報报"
    "掛挂換换據据數数斷断舊旧時时顯显條条來来構构標标樣样檔档沒没冇没測测遊游滾滚濾滤點点狀状現现癥症著着禮礼篩筛類类紅红約约級级紀纪終终經经結结給给"
    "繼继續续維维綴缀緩缓腳脚節节獲获穫获慮虑補补裝装見见規规觸触討讨讓让記记講讲論论設设訪访評评識识試试話话詢询誤误說说請请讀读調调談谈負负責责敗败"
    "賬账資资較较遷迁過过運运還还這这進进適适選选裏里裡里鎖锁錯错問问間间陣阵階阶麵面頁页項项題题驟骤"
)


_ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}
_SIMPLIFIED = {_TRADITIONAL[i]: _TRADITIONAL[i + 1] for i in range(0, len(_TRADITIONAL) - 1, 2)}
_TRADITIONAL_CHAR = "[" + "".join(_SIMPLIFIED) + "]"  # both classes compiled on first non-ASCII text
# CJK and full-width punctuation in ASCII: patterns then need only ASCII classes, fast to compile.
_NARROW = {**{"\u3000": " ", "、": ",", "。": ".", "〈": "<", "〉": ">", "《": "<", "》": ">", "「": "'", "」": "'",
              "『": "'", "』": "'", "【": "[", "】": "]", "‘": "'", "’": "'", "“": "'", "”": "'", "…": "."},
           **{chr(code): chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)}}
_WIDE_CHAR = "[\u3000-\u3003\u3008-\u3011\u2018-\u201d\u2026\uff01-\uff5e]"


def fold(text: str) -> str:
    """``text`` as the cues read it: lower case, punctuation in ASCII; one character for one
    (``str.lower`` turns "İ" into two), so offsets hold."""
    narrow = text if text.isascii() else re.sub(_WIDE_CHAR, lambda m: _NARROW.get(m.group(0), m.group(0)), text)
    lowered = narrow.lower()
    return lowered if len(lowered) == len(narrow) else narrow.translate(_ASCII_LOWER)


def to_simplified(text: str) -> str:
    """``text`` folded for the Chinese cues: ``fold`` and the traditional characters they use made
    simplified, one character for one."""
    folded = fold(text)
    return folded if folded.isascii() else re.sub(_TRADITIONAL_CHAR, lambda m: _SIMPLIFIED[m.group(0)], folded)


# A long prompt is mostly a paste: it is read at its start and at its end, where the question is,
# so the detector stays well under a millisecond whatever the size.
HEAD_CHARS, TAIL_CHARS = 800, 400
MAX_TERMS = 4
TERM_HEAD_CHARS, TERM_TAIL_CHARS = 500, 250  # search words come from nearer the question
THRESHOLD = 1.0  # the evidence a prompt needs: one strong cue, or two weak ones
MODEL_FILE = "recall_model.tsv"
MODEL_HEAD_CHARS, MODEL_TAIL_CHARS = 400, 200  # the model reads the question, not the paste

_KANA = re.compile(r"[\u3040-\u309f\u30a0-\u30fa\u30fc-\u30ff]")
_FENCED = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_URL = re.compile(r"\b(?:https?|file)://\S+")


class RecallMatch(NamedTuple):
    """A prompt that refers to past work: the strongest phrase found and what to search for."""

    phrase: str
    language: str  # "zh" | "ja" | "en": the language of that phrase
    start: int
    end: int
    terms: tuple[str, ...]
    score: float = THRESHOLD  # the cue evidence found: THRESHOLD or more unless the model decided
    model_probability: float | None = None  # set when the model decided, the cues falling short

    @property
    def query(self) -> str:
        """The terms as a Threadback query (all must match)."""
        return " ".join(self.terms)

    @property
    def any_query(self) -> str:
        """The terms joined with OR: the fallback when the strict query finds nothing."""
        return " OR ".join(self.terms)


class CueHit(NamedTuple):
    """One cue found in a prompt, with its span in the prompt."""

    language: str
    name: str
    weight: float
    start: int
    end: int


class PromptWindow(NamedTuple):
    """The part of a prompt that is read: all of a short one; the first HEAD_CHARS and the last
    TAIL_CHARS of a long one, joined by a newline. Positions at or past ``tail_at`` are ``shift``
    characters further on in the prompt."""

    text: str
    tail_at: int
    shift: int

    @classmethod
    def of(cls, prompt: str, head: int = HEAD_CHARS, tail: int = TAIL_CHARS) -> "PromptWindow":
        if len(prompt) <= head + tail + 1:
            return cls(prompt, len(prompt), 0)
        return cls(prompt[:head] + "\n" + prompt[-tail:], head + 1, len(prompt) - tail - head - 1)

    def to_prompt(self, position: int) -> int:
        return position + self.shift if position >= self.tail_at else position

    def to_window(self, position: int) -> int:
        skipped = position < self.tail_at + self.shift
        return min(position, self.tail_at - 1) if skipped else position - self.shift


def _blank(match: re.Match[str]) -> str:
    """Keep offsets: replace a span by spaces (newlines kept, so clause starts still work)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def _blank_code(text: str) -> str:
    """``text`` with code blocks, inline code and URLs blanked: the words there are not prose."""
    if "```" in text or "~~~" in text:
        text = _FENCED.sub(_blank, text)
    if "`" in text:
        text = _INLINE_CODE.sub(_blank, text)
    if "://" in text:
        text = _URL.sub(_blank, text)
    return text


def _searchable_prose(prompt: str) -> tuple[str, PromptWindow]:
    """The prose of the read part of ``prompt`` (offsets as in ``PromptWindow.text``)."""
    window = PromptWindow.of(prompt)
    if not window.shift:
        return _blank_code(prompt), window
    tail_start = len(prompt) - TAIL_CHARS
    # The tail may start inside a code block opened in the part that is skipped.
    opener = next((fence for fence in ("```", "~~~") if prompt.count(fence, 0, tail_start) % 2), "")
    tail = _blank_code(opener + prompt[tail_start:])[len(opener):]
    return _blank_code(prompt[:HEAD_CHARS]) + "\n" + tail, window


def _cue_tables(prose: str) -> list[tuple[str, str, tuple[Cue, ...]]]:
    """(language, text to match, cues): English always; Japanese when there is kana, else Chinese
    when there are Han characters (以前のバージョン is Japanese, not a Chinese 以前)."""
    folded = fold(prose)
    tables = [("en", folded, EN_CUES)]
    if _KANA.search(prose):
        tables.append(("ja", folded, JA_CUES))
    elif max(prose, default="") >= "\u3400":  # Han characters (or later scripts, which no cue matches)
        tables.append(("zh", to_simplified(prose), ZH_CUES))
    return tables


def find_cues(prompt: str) -> list[CueHit]:
    """Every cue in the prose of ``prompt``, in order of position (offsets in ``prompt``)."""
    prose, window = _searchable_prose(prompt)
    hits = []
    for language, text, cues in _cue_tables(prose):
        for cue in cues:
            for m in cue.finditer(text):
                if m.start() < window.tail_at <= m.end() - 1 and window.shift:
                    continue  # a span across the skipped middle is no phrase
                hits.append(CueHit(language, cue.name, cue.weight,
                                   window.to_prompt(m.start()), window.to_prompt(m.end())))
    return sorted(hits, key=lambda h: (h.start, -h.end))


def evidence(hits: list[CueHit]) -> float:
    """The weight of the distinct cues found: a cue counts once however often it occurs."""
    return sum({(hit.language, hit.name): hit.weight for hit in hits}.values())


# --- the word model ----------------------------------------------------------------------------

_MODEL_WORD = re.compile(r"[a-z][a-z']*")
_MODEL_CJK = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]+"  # wide classes: compiled on first use


def model_features(prompt: str, hits: list[CueHit]) -> dict[str, tuple[int, int]]:
    """The features the word model reads, each with where it first occurs in ``prompt``: the
    cues found, English words and word pairs, and runs of 1-3 CJK characters (folded)."""
    window = PromptWindow.of(prompt, MODEL_HEAD_CHARS, MODEL_TAIL_CHARS)
    text = to_simplified(_blank_code(window.text))
    found: dict[str, tuple[int, int]] = {}
    for hit in hits:
        found.setdefault(f"cue:{hit.language}:{hit.name}", (hit.start, hit.end))

    def add(feature: str, start: int, end: int) -> None:
        if feature not in found:
            found[feature] = (window.to_prompt(start), window.to_prompt(end))

    words = list(_MODEL_WORD.finditer(text))
    for i, word in enumerate(words):
        add("w" + word.group(0), *word.span())
        if i + 1 < len(words) and words[i + 1].start() - word.end() <= 2:
            add(f"b{word.group(0)} {words[i + 1].group(0)}", word.start(), words[i + 1].end())
    # Kanji runs read as Japanese are other features than the same characters in Chinese: 以前の
    # and 以前 do not weigh the same in both, and one language's prompts must not move the other's.
    script = "j" if _KANA.search(text) else "c"
    # A bias per language: their prompts do not point at past work equally often.
    found["lang:" + (script if max(text, default="") >= "\u3400" or script == "j" else "e")] = (0, 0)
    for run in re.finditer(_MODEL_CJK, text) if max(text, default="") >= "\u3040" else ():  # CJK at all?
        for n in (1, 2, 3):
            for i in range(run.start(), run.end() - n + 1):
                add(script + text[i:i + n], i, i + n)
    return found


class WordModel(NamedTuple):
    """A logistic regression over ``model_features``, trained on the labelled prompts: it catches
    phrasings that no cue names ("let's get back to the rules export"), and fires only when sure."""

    bias: float
    threshold: float
    weights: dict[str, float]

    def probability(self, features: Iterable[str]) -> float:
        z = self.bias + sum(self.weights.get(f, 0.0) for f in features)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    @classmethod
    def parse(cls, text: str) -> "WordModel":
        """From "name<TAB>value" lines: ``bias``, ``threshold``, then one line per feature."""
        values = dict(line.split("\t", 1) for line in text.splitlines() if line and not line.startswith("#"))
        bias, threshold = float(values.pop("bias")), float(values.pop("threshold"))
        return cls(bias, threshold, {name: float(weight) for name, weight in values.items()})


@cache
def load_model() -> WordModel | None:
    """The shipped word model, or None when its file is missing (the cues alone then decide)."""
    try:  # read by this module's loader, found with os.path: the prompt hook loads no pathlib (~4 ms)
        loader = __loader__  # type: ignore[name-defined]  # every module has one; mypy does not declare it
        return WordModel.parse(loader.get_data(os.path.join(os.path.dirname(__file__), MODEL_FILE)).decode())
    except (OSError, KeyError, ValueError):
        return None


def detect_recall(prompt: str, model: WordModel | None = None) -> RecallMatch | None:
    """The prompt's evidence of pointing at past work, with search terms, or None. ``model``
    defaults to the shipped word model."""
    if not isinstance(prompt, str) or not prompt.strip():
        return None
    hits = find_cues(prompt)
    found = [h for h in hits if h.weight > 0]
    score, probability = evidence(hits), None
    if score >= THRESHOLD:
        strongest = max(found, key=lambda h: (h.weight, -h.start))
        language, start, end = strongest.language, strongest.start, strongest.end
    elif any(h.weight <= VETO for h in hits):
        return None  # the text says its cue word means something else; the word model would not know
    else:
        decided = _model_phrase(prompt, hits, model or load_model())
        if decided is None:
            return None
        probability, language, start, end = decided
    terms = tuple(extract_terms(prompt, [(h.start, h.end) for h in found]))
    return RecallMatch(prompt[start:end].strip(), language, start, end, terms, score, probability)


def _model_phrase(prompt: str, hits: list[CueHit], model: WordModel | None) -> tuple[float, str, int, int] | None:
    """When the cues fall short: the word model's probability and the phrase it rests on
    (language, start, end), or None when there is no model or it is not sure."""
    if not model:
        return None
    features = model_features(prompt, hits)
    probability = model.probability(features)
    if probability < model.threshold:
        return None
    # The phrase is the feature that speaks most for past work.
    words = [f for f in features if not f.startswith("lang:")] or list(features)
    start, end = features[max(words, key=lambda f: model.weights.get(f, 0.0))]
    return probability, _prompt_language(prompt), start, end


def _prompt_language(prompt: str) -> str:
    """The language of a phrase no cue named: the prompt's, kana meaning Japanese and other Han characters Chinese."""
    return "ja" if _KANA.search(prompt) else "zh" if max(prompt) >= "\u3400" else "en"


# --- search terms ------------------------------------------------------------------------------

_EN_STOP = frozenset("""
a about above after again against all also am an and any are aren't as ask at be because been before being below
between both but by can can't cannot could couldn't did didn't didnt do does doesn't doing don't dont done down during
each else even ever every few fix fixed fixing for from further get got had hadn't has hasn't have haven't havent
having he her here hers herself him himself his how i i'd i'll i'm i've if in into is isn't it it's its itself just
know last let let's like look looked make made me might mine more most much must my myself need no nor not now of off
ok okay on once one only or other our ours ourselves out over own please previously problem issue error bug recall
remember remembered same say see seen she should shouldn't so some such sure than that that's the their theirs them
themselves then there these they thing things this those through time times to too try tried under until up us use
used very want was wasn't way we we'd we'll we're we've were weren't what what's when where which while who whom why
will with won't work worked would wouldn't yes yet you you'd you'll you're you've your yours yourself earlier ago back
day days week weeks month months session sessions conversation conversations chat chats thread didn doesn don isn wasn
won aren haven hasn hadn couldn wouldn shouldn weren ll ve re hit add added wrote write written run ran handle handled
set find found tell show check go went said talk talked discuss discussed solve solved help think thought yesterday
today tomorrow morning already still correctly right hey iirc usual usually always trick tricks approach deal story
method steps ways stuff pick left redo reuse apply applied follow followed come came decide decided agree agreed
settle settled plan planned remind dig pull bring lets finish continue resume chase chased monday tuesday wednesday
thursday friday saturday sunday command commands numbers name named hmm pretty fairly feel exact exactly end ended
pass passed getting
""".split())

# Chinese filler and trigger words (simplified; matched on the folded text): runs are cut at them.
_ZH_STOP_WORDS = """
我记得 还记得 记不记得 记得 印象中 印象里 上一次 上一回 上次 上回 之前 以前 先前 曾经 当时 当初 那时候 那时 那会儿 那阵子
翻一下 翻翻 查一下 找一下 搜一下 查查 找找 一下 看看 帮我 请 怎么 怎样 什么 为什么 如何 是不是 有没有 来着 叫啥 啥
那个 这个 那次 那一次 时候 问题 东西 事情 讨论 记录 纪录 历史 会话 对话 聊天 我们 你们 咱们 大家 已经 好像 最后 后来
老办法 老方法 老样子 老规矩 老套路 老一套 老做法 老招 照旧 照常 照老 惯例 一如既往 原来那套 原来的 还是用
延续 继续 接着 回到 沿用 照着 按照 参考 一样 同样 那招 这招 同一招 套路 办法 方法 做法 思路 方式 结论 再用一次
昨天 前天 上周 上礼拜 上星期 上个月 上个星期 前几天 前两天 前阵子 前些天 前段时间 那天 早上 上午 工作 进度
说好 定好 不是 已经 到哪 哪里 哪一步 一下子 处理 解决 用过 见过 遇过 修过 改过 做过 写过 问过 说过 提过
""".split()
_ZH_STOP_CHARS = "的了吗呢吧啊呀么是在我你他她它们这那个把被和跟与就也都还有过又再很太给让"
# Japanese kanji words that carry no topic; hiragana is never a term.
_JA_STOP_WORDS = frozenset("""
前回 以前 先週 昨日 先月 先日 今朝 一昨日 数日前 当時 今回 次回 過去 履歴 方法 手順 要領 対応 件 続 例
相談 合意 結論 理由 感 気 同 何 時 前 朝 今 覚 使 決 直 話 確認 修正 作 書 整理 調 探 検索 見 出 部分 全部 一通 回
""".split())
_CJK_PUNCT = "，。、；：！？「」『』（）【】《》…・"
_ZH_STOP = ("|".join(sorted(map(re.escape, _ZH_STOP_WORDS), key=len, reverse=True))  # compiled when needed
            + f"|[{_ZH_STOP_CHARS}{_CJK_PUNCT}]")
_JA_SCRIPT_RUN = r"[\u4e00-\u9fff\u3400-\u4dbf々]+|[\u30a0-\u30ff]+"
_CODEISH = re.compile(r"[A-Za-z0-9_][\w.\-/:#@]*[\w]|[A-Za-z0-9_]")
_HAS_CODE_SHAPE = re.compile(r"[_./:#@\d-]|[a-z][A-Z]")
_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_CJK_RUN_OR_OTHER = f"(?P<cjk>[{_CJK_CHARS}]+)|(?P<other>[^{_CJK_CHARS}]+)"


def _script_runs(text: str) -> list[tuple[int, str, bool]]:
    """``text`` cut into CJK runs and the rest: (start, run, is CJK). Text with no character
    from U+3040 up is one run, found without compiling the wide classes (~3 ms a prompt hook)."""
    if max(text, default="") < "\u3040":
        return [(0, text, False)] if text else []
    return [(m.start(), m.group(), m.group("cjk") is not None) for m in re.finditer(_CJK_RUN_OR_OTHER, text)]


def _zh_words(run: str) -> list[tuple[int, str]]:
    """Pieces of a Chinese run between filler and trigger words, 2+ characters, as written."""
    folded = to_simplified(run)
    words, start = [], 0
    for stop in re.finditer(_ZH_STOP, folded):
        words.append((start, run[start:stop.start()]))
        start = stop.end()
    words.append((start, run[start:]))
    return [(offset, w) for offset, w in words if len(w) >= 2]


def _ja_words(run: str) -> list[tuple[int, str]]:
    """Kanji and katakana words of a Japanese run (キャッシュ, 実装): particles and verb endings
    are hiragana, so they never become terms."""
    return [(m.start(), m.group(0)) for m in re.finditer(_JA_SCRIPT_RUN, run)
            if len(m.group(0).strip("ー")) >= 2 and m.group(0) not in _JA_STOP_WORDS]


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
    """Search words from a prompt: the trigger phrases and stop words dropped, CJK words and
    code-ish tokens kept (``sqlite3``, ``foo_bar``, ``src/app.py``); at most ``limit``, with
    code-ish and longer words preferred, in the order they appear."""
    window = PromptWindow.of(prompt, TERM_HEAD_CHARS, TERM_TAIL_CHARS)
    chars = list(window.text)
    # Code-shaped tokens are never trigger words: a phrase that spans one (the cleanup you did on
    # tui/screens last week) keeps it.
    keep = {i for m in _CODEISH.finditer(window.text) if _HAS_CODE_SHAPE.search(m.group(0)) for i in range(*m.span())}
    for start, end in drop_spans or ():
        for i in range(window.to_window(start), window.to_window(end)):
            if i not in keep:
                chars[i] = " "
    text = "".join(chars)
    cjk_words = _ja_words if _KANA.search(text) else _zh_words
    candidates: list[tuple[int, str, bool]] = []  # (position, term, code-ish)
    for start, run, cjk in _script_runs(text):
        if cjk:
            candidates += [(start + offset, word, False) for offset, word in cjk_words(run)]
            continue
        for tok in _CODEISH.finditer(run):
            cleaned = _clean_token(tok.group(0))
            if cleaned:
                code = bool(_HAS_CODE_SHAPE.search(cleaned))
                candidates.append((start + tok.start(), cleaned, code))
    # One candidate per word, where it first occurs, in the order of the prompt.
    unique = sorted({term.lower(): (position, term, code) for position, term, code in reversed(candidates)}.values())
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
