"""A 4-bit palette PNG written from its rows (PNG: ISO/IEC 15948), compressed by zlib at its
fastest level.

A sharing card is drawn in 16 levels that are its palette's indexes: the PNG holds them as they
are, two to a byte, each row with filter type 0 (none: a flat card gains nothing from the others),
with no work spent on choosing filters. ISA-L compresses a card seven times faster, but its output
varies from run to run in bits the inflater ignores (seen as one byte in 15,000 differing between
two builds, same pixels): the site must be byte-identical from one build to the next.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

SIGNATURE = b"\x89PNG\r\n\x1a\n"


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
    rows = b"".join([b"\0" + packed[offset:offset + stride] for offset in range(0, len(packed), stride)])
    header = struct.pack(">IIBBBBB", width, height, 4, 3, 0, 0, 0)  # 4 bits, palette, no interlace
    return b"".join([SIGNATURE, _chunk(b"IHDR", header), _chunk(b"PLTE", bytes(palette)),
                     _chunk(b"IDAT", zlib.compress(rows, 1)), _chunk(b"IEND", b"")])


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(data, zlib.crc32(kind)))
