"""The secret detector against its labelled set: every secret masked, no look-alike touched."""

from __future__ import annotations

import time

import pytest

from indexer.text.secret_mask import find_secrets, mask_secrets

from secret_samples import LOOK_ALIKES, SECRETS


@pytest.mark.parametrize("text, secret", SECRETS, ids=[s[:24] for _, s in SECRETS])
def test_every_labelled_secret_is_found_exactly(text: str, secret: str) -> None:
    spans = [text[s.start:s.end] for s in find_secrets(text)]
    assert secret in spans
    masked = mask_secrets(text)
    assert secret not in masked and "[masked " in masked


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_left_alone(text: str) -> None:
    assert find_secrets(text) == [] and mask_secrets(text) == text


def test_the_mask_keeps_the_name_and_says_what_it_hid() -> None:
    assert mask_secrets("DB_PASSWORD=p4ssw0rd2024 rest") == "DB_PASSWORD=[masked password] rest"
    assert mask_secrets("postgres://app:s3cr3t-P4ss@db/x") == "postgres://app:[masked password]@db/x"
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    assert mask_secrets(f"use {token}.") == "use [masked GitHub token]."


@pytest.mark.parametrize("hostile", [
    "a-" * 20000 + " key", "token-" * 20000, "sk-" * 30000, "-----BEGIN PRIVATE KEY-----" * 3000,
    "Bearer 1" * 30000, "password=" * 30000, "a://b:" * 30000, "x" * 1_000_000 + " api_key",
], ids=lambda text: f"{text[:12]!r}x{len(text)}")
def test_no_text_makes_the_scan_slow(hostile: str) -> None:
    """Every repetition in the patterns is bounded: these took seconds to minutes before."""
    started = time.process_time()
    mask_secrets(hostile)
    assert time.process_time() - started < 1.0


def test_a_hit_is_masked_as_its_snippet_and_message_are_apart() -> None:
    """``masked_hit`` finds a message's secrets once for its snippet and its text: the result
    is what masking each on its own gives, secrets cut at the snippet's edges included."""
    from indexer.output.masking import masked_hit, masked_message, masked_snippet
    from indexer.models import Hit, Message, Session
    from indexer.search.query import Term
    from indexer.search.snippets import make_snippet

    session = Session(1, "claude-code", "s1", None, "/log", None, None, None, None, "title", None, None, 1)
    masked = 0
    for n, (text, secret) in enumerate(SECRETS):
        for word in (secret[:6], text.split()[0], secret[-5:]):
            padded = "lead " * (n % 40) + text + " tail" * (n % 30) + " password=hunter2x9Zq"
            message = Message(n, 1, 0, "user", "text", None, None, padded, detail=f"token = '{secret}'")
            snippet, spans = make_snippet(padded, [Term(word)], columns=40)
            hit = Hit(message, session, snippet, tuple(spans), context_before=(message,))
            alone = masked_snippet(snippet, tuple(spans), padded)
            expected = hit._replace(message=masked_message(message), snippet=alone[0], spans=alone[1],
                                    context_before=(masked_message(message),))
            assert masked_hit(hit) == expected
            masked += secret not in expected.snippet and secret[:8] in snippet
    assert masked > 10  # snippets that held a secret, masked
