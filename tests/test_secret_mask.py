"""The secret detector against its labelled set: every secret masked, no look-alike touched."""

from __future__ import annotations

import time

import pytest

from indexer.secret_mask import find_secrets, mask_secrets

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
