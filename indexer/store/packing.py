"""Compact storage for text nobody searches: tool results and tool-call arguments.

They are most of a log's bytes but are only shown in transcripts, so they are stored
compressed (as a BLOB in the same column) when that saves space. Indexed text is never
packed: the FTS table reads it straight from ``messages.text``.

Two formats, told apart by their first bytes, and both readable forever:
- zlib (level 1, first byte 0x78): every index before schema 10, and an index too new to
  have trained its dictionary yet;
- zstd with the index's own dictionary (frames start 28 B5 2F FD and name the dictionary's
  id): 2.7x against zlib's 2.0x on tool output, and faster to pack
  (``indexer.store.pack_dictionary`` keeps the dictionaries in the index).

``zstandard`` is imported on the first zstd pack or unpack only. Only tool output (never a
search hit: it is not searchable) is packed with it, and tool-call details stay zlib
(``pack_detail``), so a search loads it only to show tool output around a hit (``-C``), and a
hook never (``tests/project/test_startup_imports.py``).
"""

from __future__ import annotations

import sqlite3

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PACK_MIN_CHARS = 256
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
LOG_REF_MAGIC = b"TBR\x01"  # not packed: a reference into the log (``indexer.store.log_ref``)
ZSTD_LEVEL = 3  # with a dictionary: 2.7x at a third of zlib-1's time on the generated tree

# This process's packer: None packs with zlib (no dictionary in the index yet).
_compressor: Any = None
_packing_dictionary_id = 0
_decompressors: dict[int, Any] = {}  # zstd dictionary id -> its decompressor


def use_dictionary(dictionary_id: int, data: bytes | None) -> None:
    """Pack with this zstd dictionary from now on (``data`` None: with zlib, as before)."""
    global _compressor, _packing_dictionary_id
    if data is None:
        _compressor, _packing_dictionary_id = None, 0
        return
    import zstandard

    zdict = zstandard.ZstdCompressionDict(data)
    # A checksum (4 bytes a value) so a damaged value reads as a placeholder, never as wrong text.
    _compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL, dict_data=zdict, write_checksum=True)
    _packing_dictionary_id = dictionary_id
    _decompressors[dictionary_id] = zstandard.ZstdDecompressor(dict_data=zdict)


def pack(text: str | None) -> str | bytes | None:
    if text is None or len(text) < PACK_MIN_CHARS:
        return text
    data = text.encode("utf-8", "surrogatepass")
    if _compressor is not None:
        return _compressor.compress(data)
    import zlib  # here and below: a search unpacks only what it shows (~0.2 ms to load)

    return zlib.compress(data, 1)


def pack_detail(detail: str | None) -> str | bytes | None:
    """Tool-call arguments: always zlib. A search hit is a searchable message and carries its
    detail, so decoding one must not load zstandard on the search path; details are 8 MB of a
    1 GB tree's index, where zstd would save about 2."""
    if detail is None or len(detail) < PACK_MIN_CHARS:
        return detail
    import zlib

    return zlib.compress(detail.encode("utf-8", "surrogatepass"), 1)


def unpack(value: str | bytes | None, conn: sqlite3.Connection | None = None) -> str | None:
    """Text as stored, unpacked; ``conn`` (the index the value came from) holds the dictionary
    a zstd value names. A value that cannot be unpacked becomes a one-line placeholder, and so
    does a reference into a log (``indexer.store.rows.stored_text`` reads those)."""
    if not isinstance(value, bytes):
        return value
    if value[:4] == LOG_REF_MAGIC:
        return unreadable("it is kept in its log, which is not known here")  # see models.stored_text
    if value[:4] == ZSTD_MAGIC:
        return _unpack_zstd(value, conn)
    import zlib

    try:
        return zlib.decompress(value).decode("utf-8", "replace")
    except (zlib.error, MemoryError):
        return unreadable("its stored bytes are damaged")


UNREADABLE = "[stored text could not be read: "  # how a placeholder starts


def unreadable(why: str) -> str:
    return f"{UNREADABLE}{why}]"


def _unpack_zstd(value: bytes, conn: sqlite3.Connection | None) -> str:
    import zstandard

    try:
        dictionary_id = zstandard.get_frame_parameters(value).dict_id
        decompressor = _decompressors.get(dictionary_id)
        if decompressor is None:
            decompressor = _decompressor_for(dictionary_id, conn)
            if decompressor is None:
                return unreadable(f"compression dictionary {dictionary_id} is missing from this index")
        return decompressor.decompress(value).decode("utf-8", "replace")
    except (zstandard.ZstdError, MemoryError, ValueError):
        return unreadable("its stored bytes are damaged")


def _decompressor_for(dictionary_id: int, conn: sqlite3.Connection | None) -> Any:
    import zstandard

    from indexer.store.pack_dictionary import load_dictionary

    if dictionary_id == 0:
        decompressor = zstandard.ZstdDecompressor()
    else:
        data = load_dictionary(conn, dictionary_id) if conn is not None else None
        if data is None:
            return None
        decompressor = zstandard.ZstdDecompressor(dict_data=zstandard.ZstdCompressionDict(data))
    _decompressors[dictionary_id] = decompressor
    return decompressor
