"""A 4-bit palette PNG written from its rows (PNG: ISO/IEC 15948), compressed by zlib-ng at its
fastest level, a band of rows at a time.

A sharing card is drawn in 16 levels that are its palette's indexes: the PNG holds them as they
are, two to a byte, each row with filter type 0 (none: a flat card gains nothing from the others),
with no work spent on choosing filters. The DEFLATE is zlib-ng's (``zlib_ng``, the bindings of that
maintained fork of zlib): its fastest level compresses a card's rows in 0.22 ms against zlib's
0.62 ms, for 17 % more bytes (18.5 KB against 15.8; 600 of the corpus's cards, 2026-12-03), and its
output is the same from one run to the next, as the site's must be. ISA-L is faster still, but its
output varied between two builds (same pixels).

Most of a card's rows are those of every card of the site (the blue, the site's name): compressing
them was most of a card's cost. So the rows are compressed in bands (``Band``), each raw DEFLATE
ended by a sync flush (a byte-aligned empty stored block, not the last block), which DEFLATE lets
follow one another in one stream; the bands every card shares are compressed once, and a card
compresses only the rows it draws on. The stream's Adler-32 is combined from the bands' own.
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from zlib_ng import zlib_ng

SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: What the compressed bytes depend on: another zlib-ng compresses the same rows differently.
DEFLATE_VERSION = f"zlib-ng {zlib_ng.ZLIBNG_VERSION}"
_ZLIB_HEADER = b"\x78\x01"  # DEFLATE, 32 KiB window, fastest level (CMF·256 + FLG divisible by 31)
_LAST_BLOCK = b"\x03\x00"  # an empty final block (fixed Huffman codes, end of block)
_ADLER_BASE = 65521


@dataclass(frozen=True)
class Band:
    """Rows of an image, each with its filter byte, compressed on their own (see above)."""

    deflated: bytes
    adler: int  # Adler-32 of the rows
    size: int  # their length in bytes


def band(packed: bytes, width: int) -> Band:
    """The band of the rows ``packed`` (4-bit indexes two to a byte, whole rows of ``width`` pixels)."""
    stride = (width + 1) // 2
    if len(packed) % stride:
        raise ValueError(f"{len(packed)} bytes are not rows of {stride}")
    return scanline_band(b"".join([b"\0" + packed[offset:offset + stride] for offset in range(0, len(packed), stride)]),
                         width)


def scanline_band(rows: bytes, width: int) -> Band:
    """The band of ``rows`` as the PNG holds them: each row its filter byte 0, then its 4-bit indexes
    packed two to a byte. An image two pixels wider than the PNG, its first two pixels at index 0,
    packs into exactly that (``render.cards`` draws so: no copy of each row to put its byte before it).

    >>> scanline_band(bytes([0, 0x01, 0xEF]), 4) == band(bytes([0x01, 0xEF]), 4)
    True
    """
    if len(rows) % ((width + 1) // 2 + 1):
        raise ValueError(f"{len(rows)} bytes are not rows of {width} pixels and their filter byte")
    compressor = _compressor()
    # A full flush ends the band as a sync flush does and forgets its rows: the next band never
    # refers back to them, so each band is compressed as by a compressor of its own (the same bytes,
    # checked on 3,206 bands in random order), without allocating one (300 KiB) for every band.
    return Band(compressor.compress(rows) + compressor.flush(zlib_ng.Z_FULL_FLUSH), zlib_ng.adler32(rows), len(rows))


_local = threading.local()


def _compressor() -> Any:
    """This thread's raw DEFLATE compressor at the fastest level."""
    found = getattr(_local, "compressor", None)
    if found is None:
        found = _local.compressor = zlib_ng.compressobj(1, zlib_ng.DEFLATED, -15)
    return found


def encode(packed: bytes, width: int, height: int, palette: Sequence[int]) -> bytes:
    """The PNG of an image of ``width`` × ``height`` 4-bit palette indexes, packed two to a byte,
    rows top to bottom (Pillow's ``tobytes("raw", "L;4")``); ``palette``: red, green, blue of each
    index.

    >>> import zlib
    >>> png = encode(bytes([0x01, 0xEF]), 4, 1, [0, 0, 0] * 16)
    >>> png[:8] == SIGNATURE, zlib.decompress(png[8 + 25 + 60:][8:-16])
    (True, b'\\x00\\x01\\xef')
    """
    stride = (width + 1) // 2
    if len(packed) != stride * height:
        raise ValueError(f"{len(packed)} bytes for {height} rows of {stride}")
    return encode_bands([band(packed, width)], width, height, palette)


def encode_bands(bands: Iterable[Band], width: int, height: int, palette: Sequence[int]) -> bytes:
    """The PNG whose rows are ``bands``, top to bottom (``height`` rows in all).

    >>> import zlib
    >>> rows = bytes([0x01, 0xEF, 0x23, 0x45, 0x00, 0x00])
    >>> png = encode_bands([band(rows[:2], 4), band(rows[2:], 4)], 4, 3, [0, 0, 0] * 16)
    >>> data = zlib.decompress(png[8 + 25 + 60:][8:-16])  # zlib checks the combined Adler-32
    >>> data == zlib.decompress(encode(rows, 4, 3, [0, 0, 0] * 16)[8 + 25 + 60:][8:-16])
    True
    """
    bands = list(bands)
    adler, size = 1, 0
    for part in bands:
        adler = _adler32_combine(adler, part.adler, part.size)
        size += part.size
    if size != ((width + 1) // 2 + 1) * height:
        raise ValueError(f"{size} bytes of rows for {height} rows of {width} pixels")
    stream = b"".join([_ZLIB_HEADER, *(part.deflated for part in bands), _LAST_BLOCK, struct.pack(">I", adler)])
    header = struct.pack(">IIBBBBB", width, height, 4, 3, 0, 0, 0)  # 4 bits, palette, no interlace
    return b"".join([SIGNATURE, _chunk(b"IHDR", header), _chunk(b"PLTE", bytes(palette)),
                     _chunk(b"IDAT", stream), _chunk(b"IEND", b"")])


def _adler32_combine(first: int, second: int, second_size: int) -> int:
    """The Adler-32 of two byte strings one after the other, from each one's (zlib's
    ``adler32_combine``, which Python's ``zlib`` does not expose).

    >>> _adler32_combine(zlib.adler32(b"abc"), zlib.adler32(b"defg"), 4) == zlib.adler32(b"abcdefg")
    True
    """
    remainder = second_size % _ADLER_BASE
    low = first & 0xFFFF
    high = (remainder * low) % _ADLER_BASE
    low = (low + (second & 0xFFFF) + _ADLER_BASE - 1) % _ADLER_BASE
    high = (high + (first >> 16) + (second >> 16) + _ADLER_BASE - remainder) % _ADLER_BASE
    return low | (high << 16)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))
