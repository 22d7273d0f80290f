"""``indexer.util.digest``: the same SHA-256 whichever implementation computes it, and a small text
hashed without loading OpenSSL (``hashlib``)."""

from __future__ import annotations

import hashlib
import io
import subprocess
import sys

import pytest

from cli_process import REPO, cli_env
from indexer.util.digest import _OPENSSL_FROM, file_sha256_hex, sha256_hex


@pytest.mark.parametrize("size", [0, 1, 63, 64, 65, 1000, _OPENSSL_FROM - 1, _OPENSSL_FROM, _OPENSSL_FROM + 7])
def test_the_digest_is_sha256(size):
    data = bytes((i * 7 + 3) % 256 for i in range(size))
    assert sha256_hex(data) == hashlib.sha256(data).hexdigest()
    assert file_sha256_hex(io.BytesIO(data)) == hashlib.sha256(data).hexdigest()


def test_a_small_text_is_hashed_without_openssl():
    code = ("import sys; from indexer.util.digest import sha256_hex\n"
            "small = sha256_hex(b'editor: helix\\n')\n"
            "print('hashlib' in sys.modules)\n"
            f"sha256_hex(bytes({_OPENSSL_FROM}))\n"
            "print('hashlib' in sys.modules, small)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=cli_env(), cwd=REPO,
                          timeout=60)
    first, second = proc.stdout.split("\n")[:2]
    assert first == "False", proc.stderr
    assert second == f"True {hashlib.sha256(b'editor: helix' + bytes([10])).hexdigest()}"  # a big one loads it
