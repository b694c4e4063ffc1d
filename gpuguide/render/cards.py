"""A page's sharing card (``og:image``): its title and key figure, drawn at build time with Pillow.

``Card`` is what the card shows; ``Card.file_name`` names the drawing by a digest of that text, of
the design and of the font, so the build cache keeps one drawing per distinct card and an
unchanged page never draws its card again (``build.card_cache``).
"""

from __future__ import annotations

import hashlib
import textwrap
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

from PIL import __version__ as PILLOW_VERSION

from gpuguide.render import palette_png
from gpuguide.render.card_text import Face, drawable, face, font, font_id, wrap

if TYPE_CHECKING:  # imported where a card is drawn: most builds draw none
    from PIL import Image

#: Bump when the drawing changes: every card is drawn again.
DESIGN = 5
#: A page's card is published beside it: ``fr/entrainement-llm/og.png``.
CARD_FILE = "og.png"
WIDTH, HEIGHT = 1200, 630  # the size Open Graph and Twitter's large cards expect
MARGIN = 72
#: Cards are drawn two pixels wider, those two left at index 0: packed four bits a pixel, each row
#: then starts with a zero byte, which is the PNG's filter byte (``palette_png.scanline_band``).
PAD = 2
BACKGROUND = (11, 92, 173)  # the site's accent blue
INK = (255, 255, 255)


@dataclass(frozen=True)
class Card:
    """What a page's sharing card shows."""

    site_name: str
    title: str
    lines: tuple[str, ...]  # the key figures, one a line (or the page's description)

    @property
    def alt(self) -> str:
        """The card as text (``og:image:alt``)."""
        return " ".join([self.title.rstrip(".") + ".", *self.lines])

    # Asked for each page's card at every build: kept in the instance (and in the build cache,
    # whose key holds ``drawing_identity()``: another design or font rebuilds every page).
    @cached_property
    def file_name(self) -> str:
        """``<digest>.png``: the same card, design and font always give the same name."""
        digest = hashlib.blake2b(repr((drawing_identity(), self)).encode("utf-8"), digest_size=12)
        return digest.hexdigest() + ".png"


def drawing_identity() -> str:
    """What a drawing depends on besides the card: the design, Pillow's and zlib-ng's versions and the font."""
    return repr((DESIGN, PILLOW_VERSION, palette_png.DEFLATE_VERSION, font_id()))



#: Grey levels drawn: 16 (a 4-bit PNG) keep antialiased text smooth at a third of the bytes to compress.
LEVELS = 16
#: Cards are drawn in those levels directly (0 the site's blue, 15 white): the site's name, the
#: title and the figures.
SITE_NAME, WHITE, FIGURES = 12, 15, 14


@lru_cache(maxsize=4)
def _background(site_name: str) -> Image.Image:
    """What every card of a site shares: its name and the rule under it (drawn once, copied per card)."""
    from PIL import Image, ImageDraw

    # Every card draws on strips cropped from this image: Pillow returns a freed image's memory to
    # the system unless told to keep a few blocks, and on a virtual machine each new 4 KiB costs a
    # page fault (141 a card when a card copied the whole image: 4.97 s against 4.34 s for a corpus
    # build's 2,157 cards, 2026-12-03). Its block allocator's pool, off by default (``PILLOW_BLOCKS_MAX``).
    Image.core.set_blocks_max(max(Image.core.get_blocks_max(), 4))
    image = Image.new("L", (PAD + WIDTH, HEIGHT), 0)
    pen = ImageDraw.Draw(image)
    pen.text((PAD + MARGIN, MARGIN), drawable(site_name), font=font(True, 38), fill=SITE_NAME)
    pen.rectangle((PAD + MARGIN, MARGIN + 62, PAD + MARGIN + 96, MARGIN + 68), fill=WHITE)
    return image


@lru_cache(maxsize=1)
def _palette() -> list[int]:
    """Grey level i of LEVELS → the blend of the site's blue and white."""
    palette: list[int] = []
    for level in range(LEVELS):
        palette += [round(BACKGROUND[channel] + (INK[channel] - BACKGROUND[channel]) * level / (LEVELS - 1))
                    for channel in range(3)]
    return palette


def draw(card: Card) -> bytes:
    """The card as a PNG: the site's name, the title (up to three lines, smaller when long) and the
    key figures, white on the site's blue. Drawn in 16 levels on a shared background, from glyphs
    rasterised once, then coloured by a 16-entry palette and saved as a 4-bit PNG that compresses
    only the rows of its title and figures (``palette_png``): a site of 10,000 pages draws 10,000
    cards on a cold build, so each must cost little (``bench/README.md`` gives what one costs)."""
    from PIL import ImageDraw

    # Each run of rows drawn on is drawn on its own strip of the background (a quarter of the
    # card), not on a copy of the whole card: a card touches that much less memory.
    lines = _lines(card)
    spans = [face.rows(text, y) for face, y, text, _ in lines]
    background = _background(card.site_name)
    bands, row = [], 0
    for start, end in _runs(spans):
        if start > row:
            bands.append(_background_band(card.site_name, row, start))
        strip = background.crop((0, start, PAD + WIDTH, end))
        pen = ImageDraw.Draw(strip)
        for (face, y, text, level), (first, last) in zip(lines, spans):
            if first < end and last > start:  # the line is in this run
                face.draw(pen, (PAD + MARGIN, y - start), text, level)
        # The levels are the palette's indexes: the PNG holds them as they are, 4 bits each.
        bands.append(palette_png.scanline_band(strip.tobytes("raw", "L;4"), WIDTH))
        row = end
    if row < HEIGHT:
        bands.append(_background_band(card.site_name, row, HEIGHT))
    return palette_png.encode_bands(bands, WIDTH, HEIGHT, _palette())


#: A line of a card: its face, its top, its text as drawn, its level.
_Line = tuple[Face, int, str, int]


def _lines(card: Card) -> list[_Line]:
    """Where a card's lines go: the title (up to three lines, smaller when long) under the site's
    name, the key figures (up to three lines) at the bottom."""
    width = WIDTH - 2 * MARGIN
    for size in (68, 60, 52):
        title_face = face(True, size)
        title = wrap(card.title, title_face, width, 3)
        if len(title) <= 2 or size == 52:
            break
    lines: list[_Line] = []
    y = MARGIN + 110
    for line in title:
        lines.append((title_face, y, drawable(line), WHITE))
        y += int(size * 1.25)
    figure_face = face(False, 36)
    figures = [line for text in card.lines for line in wrap(text, figure_face, width, 2)][:3]
    y = HEIGHT - MARGIN - len(figures) * 48 + 4
    for line in figures:
        lines.append((figure_face, y, drawable(line), FIGURES))
        y += 48
    return lines


def drawn(card: Card) -> tuple[Image.Image, list[tuple[int, int]]]:
    """The card in 16 levels, drawn whole, and the runs of rows drawn on (first row, past the
    last), in order: what ``draw`` encodes run by run (the tests compare the two)."""
    from PIL import ImageDraw

    image = _background(card.site_name).copy()
    pen = ImageDraw.Draw(image)
    inked = []
    for face, y, text, level in _lines(card):
        face.draw(pen, (PAD + MARGIN, y), text, level)
        inked.append(face.rows(text, y))
    return image.crop((PAD, 0, PAD + WIDTH, HEIGHT)), _runs(inked)


def _runs(inked: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The rows ``inked`` as runs in order, overlapping ones joined, within the card."""
    runs: list[tuple[int, int]] = []
    for start, end in sorted((max(start, 0), min(end, HEIGHT)) for start, end in inked):
        if start >= end:
            continue
        if runs and start <= runs[-1][1]:
            runs[-1] = (runs[-1][0], max(end, runs[-1][1]))
        else:
            runs.append((start, end))
    return runs


@lru_cache(maxsize=64)
def _background_band(site_name: str, start: int, end: int) -> palette_png.Band:
    """Rows ``start`` to ``end`` of the site's background, compressed once for all its cards."""
    stride = (PAD + WIDTH + 1) // 2
    return palette_png.scanline_band(_background(site_name).tobytes("raw", "L;4")[start * stride:end * stride], WIDTH)


@lru_cache(maxsize=1024)
def shorten(text: str, limit: int = 200) -> str:
    """A description short enough for a card (kept: with ``sharing_cards: site`` every page shows
    the same one, and ``textwrap`` was 1 % of such a page)."""
    return textwrap.shorten(text, limit, placeholder=" …")
