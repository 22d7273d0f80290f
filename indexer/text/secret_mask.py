"""Find text that looks like a credential, and mask it before it reaches an agent or a screen.

Logs are full of pasted secrets: API keys, tokens, private keys, passwords in URLs. The index
keeps them (so a person can still find "that token I pasted"), but what Threadback hands to an
agent (hooks, ``context``, ``rules export``) or prints (``show``, ``search``, the app) shows
``[masked GitHub token]`` instead, unless a person asks to see it.

The patterns are the formats providers document (fixed prefixes and lengths) plus two shapes
of "name = value" (a secret-named key with a literal value, and ``user:pass@`` in a URL). They
favour few false positives on ordinary code: a value must look like a literal, not a variable,
a call or a placeholder. ``tests/support/secret_samples.py`` is the labelled set that holds them to it.
"""

from __future__ import annotations

import functools
import re

from indexer.util.named_record import NamedTuple

MASK = "[masked {kind}]"
_MAX_SCAN_CHARS = 2_000_000  # a bigger text is scanned in pieces of this size


class SecretSpan(NamedTuple):
    start: int
    end: int
    kind: str  # "GitHub token", "password", ...


# (kind, needles, pattern): each pattern starts with one of its needles. A text is searched for
# the needles (``str.find`` is far faster than a regex scan) and the pattern is tried only there,
# at the start of a word; the whole match is the secret, or its group named "secret".
_TOKEN_PATTERNS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("Anthropic key", ("sk-ant-",), r"sk-ant-(?:api|admin|oat)\d\d-[A-Za-z0-9_-]{20,400}"),
    ("OpenAI key", ("sk-",), r"sk-(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_-]{0,400}\d)"
                             r"(?=[A-Za-z0-9_-]{0,400}[A-Za-z])[A-Za-z0-9_-]{20,400}"),
    ("GitHub token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"), r"gh[pousr]_[A-Za-z0-9]{36,255}\b"),
    ("GitHub token", ("github_pat_",), r"github_pat_[A-Za-z0-9_]{22,255}\b"),
    ("GitLab token", ("glpat-",), r"glpat-[A-Za-z0-9_-]{20,400}\b"),
    ("AWS access key", ("AKIA", "ASIA", "ABIA", "ACCA"), r"A[KSBC][IC]A[A-Z0-9]{16}\b"),
    ("Slack token", ("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-"), r"xox[abposr]-[A-Za-z0-9-]{10,400}"),
    ("Slack token", ("xapp-",), r"xapp-\d-[A-Z0-9]{1,40}-\d{1,20}-[a-z0-9]{1,100}"),
    ("Slack webhook", ("https://hooks.slack.com/",),
     r"https://hooks\.slack\.com/services/(?P<secret>T[A-Z0-9]{1,20}/B[A-Z0-9]{1,20}/[A-Za-z0-9]{1,60})"),
    ("Google API key", ("AIza",), r"AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])"),
    ("Stripe key", ("sk_live_", "sk_test_", "rk_live_", "rk_test_"), r"[sr]k_(?:live|test)_[A-Za-z0-9]{20,400}\b"),
    ("Stripe webhook secret", ("whsec_",), r"whsec_[A-Za-z0-9]{24,400}\b"),
    ("npm token", ("npm_",), r"npm_[A-Za-z0-9]{36}\b"),
    ("PyPI token", ("pypi-AgE",), r"pypi-AgE[A-Za-z0-9_-]{50,400}"),
    ("Hugging Face token", ("hf_",), r"hf_[A-Za-z0-9]{34,400}\b"),
    ("SendGrid key", ("SG.",), r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b"),
    ("JSON web token", ("eyJ",), r"eyJ[A-Za-z0-9_-]{10,400}\.eyJ[A-Za-z0-9_-]{10,400}\.[A-Za-z0-9_-]{10,400}"),
)
# Patterns whose needle is not where they start: run as a scan, only when the needle is there.
_SCAN_PATTERNS: tuple[tuple[str, str, str], ...] = (
    ("AWS secret key", "secret", r"(?i:aws_?secret_?(?:access_?)?key)[\"']?[ \t]*[:=][ \t]*[\"']?"
                                 r"(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"),
    ("Telegram bot token", ":AA", r"\b\d{8,10}:AA[A-Za-z0-9_-]{30,40}(?![A-Za-z0-9_-])"),
    ("bearer token", "bearer", r"(?i:\bbearer[ \t]+)(?P<secret>(?=[A-Za-z0-9._~+/-]{0,400}\d)"
                               r"[A-Za-z0-9._~+/-]{24,400}=*)"),
)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """A pattern compiled on first use: most texts hold none of the needles, so a search or a
    hook that masks a few snippets compiles few of them (all of them cost ~4 ms at start-up)."""
    return re.compile(pattern)


# A placeholder is not a secret: ${VAR}, $VAR, <your-token>, ***, xxxx, {{ var }}, %s.
_PLACEHOLDER = (
    r"(?i)^(?:\$\{?\w+\}?|<[^>]*>|\*+|x+|X+|\.+|\{\{.*\}\}|%\(?\w*\)?s|your[_-]?\w*|example\w*|None|null|"
    r"true|false|changeit)$")

# The secret word, at the start of a name or after ``_``/``-`` (DB_PASSWORD), with at most a few
# more parts after it; every repetition is bounded, so no text makes the scan quadratic.
_SECRET_KEY = (r"(?<![A-Za-z0-9])(?:password|passwd|passphrase|secret|token|api[_-]?key|apikey"
               r"|access[_-]?key|private[_-]?key|client[_-]?secret|auth[_-]?token)(?:[_-][A-Za-z0-9]{1,30}){0,4}")
# name = "literal" / name: literal / "name": "literal" / --password literal is left alone
# (a flag's value is as likely a variable as a literal).
_ASSIGNMENT = (
    rf"(?i)(?P<key>{_SECRET_KEY})\b[\"']?[ \t]*[:=][ \t]*"
    r"(?:(?P<quote>[\"'])(?P<quoted>[^\"'\s]{6,200}+)(?P=quote)"  # possessive: no backtracking
    r"|(?P<bare>[^\s\"'`,;&<>(){}\[\]]{8,200}+)(?![(\[.\w]))"
)
_URL_PASSWORD = r"://[^\s/:@\"'<>]{1,100}:(?P<secret>[^\s/@\"'<>]{1,200})@"

# Every secret word of ``_SECRET_KEY`` starts with one of these.
_ASSIGNMENT_NEEDLES = ("pass", "secret", "token", "api", "access", "private", "client", "auth")
_URL_SCHEME = r"[a-zA-Z][a-zA-Z0-9+.-]{1,20}\Z"

_KEY_BEGIN = r"-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----"
_KEY_BODY = r"[A-Za-z0-9+/=\s:,.()-]{0,12000}"  # base64 lines and PEM headers
_KEY_END = r"-----END (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY(?: BLOCK)?-----"
_KEY_MAX_CHARS = 12000


def _private_keys(text: str) -> list[tuple[int, int]]:
    """PEM private-key blocks: BEGIN to END, or to where the base64 stops (a cut-off block)."""
    found, position = [], 0
    key_begin, key_end, key_body = _compiled(_KEY_BEGIN), _compiled(_KEY_END), _compiled(_KEY_BODY)
    while (begin := key_begin.search(text, position)) is not None:
        end = key_end.search(text, begin.end(), begin.end() + _KEY_MAX_CHARS)
        if end is not None:
            stop = end.end()
        else:
            body = key_body.match(text, begin.end())
            stop = body.end() if body else begin.end()
            stop = len(text[:stop].rstrip()) if stop > begin.end() else stop
        found.append((begin.start(), stop))
        position = stop
    return found


def _looks_like_a_literal(value: str, *, quoted: bool) -> bool:
    """A value a person typed, not a variable, a type name or a placeholder."""
    if _compiled(_PLACEHOLDER).match(value):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    if quoted:
        mixed = has_alpha and (has_digit or not value.isalnum() or
                               (value.lower() != value and value.upper() != value))
        return mixed and not re.fullmatch(r"[a-z]+(?:[_-][a-z]+)*|[A-Z]+(?:_[A-Z]+)*", value)
    if value.replace(".", "").replace("_", "").isalpha():
        return False  # an identifier or attribute: os.environ, settings.token
    return has_alpha and has_digit


def _starts(haystack: str, needle: str, *, after_underscore: bool = False):
    """Where ``needle`` starts a word of ``haystack`` (or a part of a name after ``_``)."""
    at = haystack.find(needle)
    while at != -1:
        before = haystack[at - 1] if at else " "
        if not (before.isalnum() or (before == "_" and not after_underscore)):
            yield at
        at = haystack.find(needle, at + 1)


def _span(m: re.Match[str], offset: int, kind: str) -> SecretSpan:
    group = "secret" if "secret" in m.re.groupindex else 0
    return SecretSpan(offset + m.start(group), offset + m.end(group), kind)


def _spans(text: str, offset: int) -> list[SecretSpan]:
    """The secret spans of one piece of a text (``offset`` into the whole), kind by kind: the
    order they are tried in settles an exact tie in ``find_secrets``."""
    lowered = text.lower()
    return [*_private_key_spans(text, offset), *_token_spans(text, offset), *_scanned_spans(text, lowered, offset),
            *_assignment_spans(text, lowered, offset), *_url_password_spans(text, offset)]


def _private_key_spans(text: str, offset: int) -> list[SecretSpan]:
    """PEM private keys, their patterns compiled only for a text that names one."""
    if "PRIVATE KEY" not in text:
        return []
    return [SecretSpan(offset + a, offset + b, "private key") for a, b in _private_keys(text)]


def _token_spans(text: str, offset: int) -> list[SecretSpan]:
    """The providers' formats, each tried only where one of its needles starts a word."""
    found: list[SecretSpan] = []
    for kind, needles, pattern in _TOKEN_PATTERNS:
        for needle in needles:
            for at in _starts(text, needle):
                if (m := _compiled(pattern).match(text, at)) is not None:
                    found.append(_span(m, offset, kind))
    return found


def _scanned_spans(text: str, lowered: str, offset: int) -> list[SecretSpan]:
    """The patterns that do not start at their needle, scanned only where the needle is."""
    found: list[SecretSpan] = []
    for kind, needle, pattern in _SCAN_PATTERNS:
        if needle in (lowered if needle.islower() else text):
            found.extend(_span(m, offset, kind) for m in _compiled(pattern).finditer(text))
    return found


def _assignment_spans(text: str, lowered: str, offset: int) -> list[SecretSpan]:
    """Literal values given to a secret-named key; its word may follow ``_`` (DB_PASSWORD)."""
    found: list[SecretSpan] = []
    for needle in _ASSIGNMENT_NEEDLES:
        for at in _starts(lowered, needle, after_underscore=True):
            m = _compiled(_ASSIGNMENT).match(text, at)
            if m is not None and (span := _assigned_secret(m, offset)) is not None:
                found.append(span)
    return found


def _assigned_secret(m: re.Match[str], offset: int) -> SecretSpan | None:
    """The value of a matched assignment, unless it looks like a variable or a placeholder."""
    group = "quoted" if m.group("quoted") is not None else "bare"
    if not _looks_like_a_literal(m.group(group), quoted=group == "quoted"):
        return None
    kind = "password" if "pass" in m.group("key").lower() else "secret"
    return SecretSpan(offset + m.start(group), offset + m.end(group), kind)


def _url_password_spans(text: str, offset: int) -> list[SecretSpan]:
    """``user:pass@`` after a URL scheme, unless the password is a placeholder."""
    found: list[SecretSpan] = []
    at = text.find("://")
    while at != -1:
        m = _compiled(_URL_PASSWORD).match(text, at)
        if m is not None and _compiled(_URL_SCHEME).search(text, max(0, at - 21), at) is not None:
            if not _compiled(_PLACEHOLDER).match(m.group("secret")):
                found.append(_span(m, offset, "password"))
        at = text.find("://", at + 3)
    return found


def find_secrets(text: str) -> list[SecretSpan]:
    """Every credential-looking span of ``text``, in order, overlaps merged (first kind wins)."""
    if not text:
        return []
    spans: list[SecretSpan] = []
    for offset in range(0, len(text), _MAX_SCAN_CHARS):
        spans.extend(_spans(text[offset:offset + _MAX_SCAN_CHARS], offset))
    spans.sort(key=lambda s: (s.start, -s.end))
    merged: list[SecretSpan] = []
    for span in spans:
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            if span.end > last.end:
                merged[-1] = SecretSpan(last.start, span.end, last.kind)
            continue
        merged.append(span)
    return merged


def mask_secrets(text: str) -> str:
    """``text`` with every credential-looking span replaced by ``[masked <kind>]``."""
    return masked_at(text, find_secrets(text))


def masked_at(text: str, spans: list[SecretSpan]) -> str:
    """``text`` with ``spans`` (``find_secrets(text)``, found once for several uses) masked."""
    if not spans:
        return text
    out, position = [], 0
    for span in spans:
        out.append(text[position:span.start])
        out.append(MASK.format(kind=span.kind))
        position = span.end
    out.append(text[position:])
    return "".join(out)
