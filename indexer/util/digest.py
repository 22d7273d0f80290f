"""SHA-256 digests, with ``hashlib`` loaded on first use: it loads OpenSSL (~3 ms), which a
session-start hook with no memory or rule files to read never needs.

A small text (a memory file's stamp, a rule's text) is hashed by the interpreter's own SHA-256
(``_sha256``, loaded in ~0.3 ms), unless ``hashlib`` is loaded already; OpenSSL's is about five
times faster, so from ``_OPENSSL_FROM`` bytes on loading it pays. The digest is the same."""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from io import BufferedIOBase

_OPENSSL_FROM = 512 * 1024  # about where hashing with the built-in one costs what loading OpenSSL does


def sha256_hex(data: bytes) -> str:
    if len(data) < _OPENSSL_FROM and "hashlib" not in sys.modules:
        builtin = _builtin_sha256()
        if builtin is not None:
            return builtin(data).hexdigest()
    import hashlib

    return hashlib.sha256(data).hexdigest()


def file_sha256_hex(handle: BufferedIOBase) -> str:
    import hashlib

    return hashlib.file_digest(handle, "sha256").hexdigest()


def _builtin_sha256():  # noqa: ANN202 - a private constructor type
    """CPython's own SHA-256 constructor (``_sha256``; ``_sha2`` from 3.12), or None."""
    for module in ("_sha256", "_sha2"):
        try:
            return __import__(module).sha256
        except (ImportError, AttributeError):
            continue
    return None
