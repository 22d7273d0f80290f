"""SHA-256 digests, with ``hashlib`` loaded on first use: it loads OpenSSL (~2.5 ms), which a
session-start hook with no memory or rule files to read never needs."""

from __future__ import annotations

from typing import BinaryIO


def sha256_hex(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def file_sha256_hex(handle: BinaryIO) -> str:
    import hashlib

    return hashlib.file_digest(handle, "sha256").hexdigest()
