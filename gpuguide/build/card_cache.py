"""Sharing cards in the build cache: each distinct card is drawn once (``render.cards``), kept in
``.build-cache/cards/<digest>.png``, and published beside its page as ``og.png``. An unchanged
page's card is neither drawn nor written again; a page whose title or key figure changed gets a
new drawing (a new digest), drawn where the page is rendered (on every core).

A drawing is published as it is in the cache: one is used only if it is a whole PNG whose every
chunk matches its CRC-32 (``intact``); a damaged one is drawn again."""

from __future__ import annotations

import os
import re
import struct
import zlib
from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from gpuguide import atomic
from gpuguide.cached import read_file
from gpuguide.render.cards import CARD_FILE, Card, draw

if TYPE_CHECKING:
    from gpuguide.build.page_cache import PageEntry

FOLDER = "cards"  # under the build cache


def card_output(page_output: str) -> str:
    """Where a page's card is published: ``fr/entrainement-llm/index.html`` → ``fr/entrainement-llm/og.png``."""
    folder = page_output.rpartition("/")[0]  # ``posixpath.dirname`` of a normalised path, at a third of its cost
    return f"{folder}/{CARD_FILE}" if folder else CARD_FILE


def ensure_drawn(card: Card, cache: Path) -> str:
    """The path of the cached drawing of ``card``, drawn now if the cache does not have it intact
    (written under a temporary name and renamed: workers drawing the same card at once never see
    half a file). A string: every page's card is looked up at every build."""
    path = os.path.join(cache, card.file_name)
    if not intact(path):
        if cache not in _MADE:  # once per process: a cold build draws thousands of cards into it
            cache.mkdir(parents=True, exist_ok=True)
            _MADE.add(cache)
        png = draw(card)
        try:
            atomic.write_bytes(path, png, mode=0o644)  # a new file: no permissions to keep
        except FileNotFoundError:  # the folder was removed since (a cache cleared by hand)
            cache.mkdir(parents=True, exist_ok=True)
            atomic.write_bytes(path, png, mode=0o644)
    return path


#: The cache folders this process made or found (``ensure_drawn``).
_MADE: set[Path] = set()


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
_TEMPORARY = re.compile(r"\..+\.png\.tmp-[0-9]+")


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


class BuildCards:
    """The sharing cards one build publishes, by the path each is published at: those of the pages
    rendered now (drawn by the workers: ``new``) and those of unchanged pages (``kept``), which are
    in site/ as the last build left them, or drawn again. Cards are published like the assets but
    are not part of the global key: a card follows its page."""

    def __init__(self, cache: Path, drawn: Iterable[tuple[str, Card | None]], to_draw: Iterable[tuple[str, Card | None]],
                 reused: Mapping[str, PageEntry]):
        """``drawn``: the cards of the pages rendered now, which their worker drew into the cache
        (``ensure_drawn``) moments ago: not read and checked again. ``to_draw``: the others (the root's)."""
        self.cache = cache
        self.new = {card_output(output): os.path.join(cache, card.file_name) for output, card in drawn if card is not None}
        self.new.update({card_output(output): ensure_drawn(card, cache) for output, card in to_draw if card is not None})
        self.kept = {card_output(output): entry for output, entry in reused.items() if entry.card_file is not None}
        self.redrawn: dict[str, str] = {}

    def redraw_lost(self, intact: Collection[str]) -> None:
        """Draw again the kept cards not ``intact`` in site/: one written over through its hard link
        spoilt the cache's drawing too."""
        self.redrawn = {relative: draw_again(_card(entry), self.cache)
                        for relative, entry in self.kept.items() if relative not in intact}

    def changed(self) -> dict[str, Path]:
        """The drawings an update in place writes: new cards and cards drawn again."""
        return {relative: Path(path) for relative, path in {**self.new, **self.redrawn}.items()}

    def every_drawing(self, intact: Iterable[str]) -> dict[str, str]:
        """Every card's drawing, for a whole new site: the intact ones linked again from the cache."""
        kept = {relative: cached_drawing(self.kept[relative].card_file, self.cache)
                or ensure_drawn(_card(self.kept[relative]), self.cache) for relative in intact}
        return {**kept, **self.redrawn, **self.new}

    def published(self) -> list[str]:
        return [*self.kept, *self.new]

    def prune(self) -> None:
        """Forget the drawings no page shows any more."""
        prune(self.cache, {entry.card_file for entry in self.kept.values() if entry.card_file}
              | {os.path.basename(path) for path in self.new.values()})


def _card(entry: PageEntry) -> Card:
    card = entry.links.card
    assert card is not None  # an entry with a card's file name has that card
    return card
