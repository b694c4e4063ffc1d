"""Sharing cards in the build cache: each distinct card is drawn once (``render.cards``), kept in
``.build-cache/cards/<digest>.png``, and published beside its page as ``og.png``. An unchanged
page's card is neither drawn nor written again; a page whose title or key figure changed gets a
new drawing (a new digest), drawn where the page is rendered (on every core).

A drawing is published as it is in the cache: one is used only if it is a whole PNG whose every
chunk matches its CRC-32 (``intact``); a damaged one is drawn again."""

from __future__ import annotations

import os
import posixpath
import re
import struct
import zlib
from pathlib import Path

from gpuguide.cached import read_file
from gpuguide.render.cards import CARD_FILE, Card, draw

FOLDER = "cards"  # under the build cache


def card_output(page_output: str) -> str:
    """Where a page's card is published: ``fr/entrainement-llm/index.html`` → ``fr/entrainement-llm/og.png``."""
    folder = posixpath.dirname(page_output)
    return posixpath.join(folder, CARD_FILE) if folder else CARD_FILE


def ensure_drawn(card: Card, cache: Path) -> str:
    """The path of the cached drawing of ``card``, drawn now if the cache does not have it intact
    (written under a temporary name and renamed: workers drawing the same card at once never see
    half a file). A string: every page's card is looked up at every build."""
    path = os.path.join(cache, card.file_name)
    if not intact(path):
        cache.mkdir(parents=True, exist_ok=True)
        temporary = os.path.join(cache, f".{card.file_name}.{os.getpid()}.tmp")
        with open(temporary, "wb") as out:
            out.write(draw(card))
        os.replace(temporary, path)
    return path


def cached_drawing(file_name: str | None, cache: Path) -> str | None:
    """The path of the drawing ``file_name`` in the cache, if the cache has it, intact."""
    if file_name is None:
        return None
    path = os.path.join(cache, file_name)
    return path if intact(path) else None


_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHUNK = struct.Struct(">I4s")  # a chunk's length and type; then its data and the CRC-32 of type and data


def intact(path: str) -> bool:
    """Whether ``path`` is a whole PNG: its signature, then chunks whose CRC-32 all match, the
    last one ``IEND``, at the end of the file (a flipped byte or a cut shows)."""
    data = read_file(path)
    if data is None or not data.startswith(_SIGNATURE):
        return False
    offset = len(_SIGNATURE)
    while offset + _CHUNK.size + 4 <= len(data):
        length, kind = _CHUNK.unpack_from(data, offset)
        end = offset + _CHUNK.size + length
        if end + 4 > len(data):
            return False
        if zlib.crc32(memoryview(data)[offset + 4:end]) != int.from_bytes(data[end:end + 4], "big"):
            return False
        offset = end + 4
        if kind == b"IEND":
            return offset == len(data)
    return False


def draw_again(card: Card, cache: Path) -> str:
    """``ensure_drawn``, replacing the cached drawing (a new file: one written over through a hard
    link from site/ is not trusted)."""
    try:
        os.unlink(os.path.join(cache, card.file_name))
    except FileNotFoundError:
        pass
    return ensure_drawn(card, cache)


#: What a drawing killed before its rename leaves (``ensure_drawn``).
_TEMPORARY = re.compile(r"\..+\.png\.[0-9]+\.tmp")


def prune(cache: Path, keep: set[str]) -> None:
    """Remove the drawings no page of the site shows any more (a title changed, a new design), and
    what a drawing killed midway left."""
    try:
        names = os.listdir(cache)
    except OSError:
        return
    for name in names:
        if (name.endswith(".png") and name not in keep) or _TEMPORARY.fullmatch(name):
            try:
                os.unlink(os.path.join(cache, name))
            except OSError:
                pass
