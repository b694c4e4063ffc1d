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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import __version__ as PILLOW_VERSION

from gpuguide.render import palette_png

if TYPE_CHECKING:  # imported where a card is drawn: most builds draw none
    from PIL import Image, ImageDraw, ImageFont

#: Bump when the drawing changes: every card is drawn again.
DESIGN = 5
#: A page's card is published beside it: ``fr/entrainement-llm/og.png``.
CARD_FILE = "og.png"
WIDTH, HEIGHT = 1200, 630  # the size Open Graph and Twitter's large cards expect
MARGIN = 72
BACKGROUND = (11, 92, 173)  # the site's accent blue
INK = (255, 255, 255)

#: Fonts tried in order (DejaVu comes with Debian's Chromium and most Linux systems); Pillow's own
#: font otherwise.
FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"), Path("/usr/share/fonts/TTF"))
BOLD, REGULAR = "DejaVuSans-Bold.ttf", "DejaVuSans.ttf"


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
    return repr((DESIGN, PILLOW_VERSION, palette_png.DEFLATE_VERSION, _font_id()))


@lru_cache(maxsize=1)
def _font_paths() -> tuple[Path, Path] | None:
    for folder in FONT_DIRS:
        if (folder / BOLD).is_file() and (folder / REGULAR).is_file():
            return folder / BOLD, folder / REGULAR
    return None


@lru_cache(maxsize=1)
def _font_id() -> str:
    paths = _font_paths()
    return "pillow-default" if paths is None else ":".join(f"{path}:{path.stat().st_size}" for path in paths)


@lru_cache(maxsize=16)
def _font(bold: bool, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    from PIL import ImageFont

    paths = _font_paths()
    if paths is None:
        return ImageFont.load_default(size)
    return ImageFont.truetype(str(paths[0] if bold else paths[1]), size)


class _Face:
    """One font at one size whose glyphs are rasterised once: a card is drawn glyph by glyph from
    them (with the font's kerning between each pair), as text renderers do, rather than FreeType
    rasterising every glyph of every card again."""

    def __init__(self, font: ImageFont.FreeTypeFont | ImageFont.ImageFont):
        self.font = font
        self._glyphs: dict[str, _Glyph] = {}
        self._kerning: dict[str, float] = {}
        self._words: dict[str, float] = {}

    def _glyph(self, char: str) -> _Glyph:
        found = self._glyphs.get(char)
        if found is None:
            left, top, right, bottom = (int(v) for v in self.font.getbbox(char))
            core = None
            if right > left and bottom > top:
                from PIL import Image, ImageDraw

                mask = Image.new("L", (right - left, bottom - top), 0)
                ImageDraw.Draw(mask).text((-left, -top), char, font=self.font, fill=255)
                mask.load()
                core = mask.im
            found = self._glyphs[char] = (core, left, top, float(self.font.getlength(char)), bottom)
        return found

    def _kern(self, pair: str) -> float:
        found = self._kerning.get(pair)
        if found is None:
            found = self._kerning[pair] = (float(self.font.getlength(pair))
                                           - self._glyph(pair[0])[3] - self._glyph(pair[1])[3])
        return found

    def length(self, text: str) -> float:
        """How far ``text`` advances the pen (what ``FreeTypeFont.getlength`` gives)."""
        total, previous = 0.0, ""
        for char in text:
            total += self._glyph(char)[3] + (self._kern(previous + char) if previous else 0.0)
            previous = char
        return total

    def word_length(self, word: str) -> float:
        """``length(word)``, measured once per word: the cards of a site wrap the same words."""
        found = self._words.get(word)
        if found is None:
            if len(self._words) > 65536:
                self._words.clear()
            found = self._words[word] = self.length(word)
        return found

    def fitting_prefix(self, text: str, tail: str, width: float) -> int:
        """How many characters of ``text`` fit in ``width`` with ``tail`` (not empty) after them (0:
        none fit): the longest such prefix, each measured as ``length`` measures it (the same sums in
        the same order), in one pass over ``text``."""
        # After its first character the tail advances the same whatever text precedes it.
        first_advance = self._glyph(tail[0])[3]
        later_steps = [self._glyph(tail[i])[3] + self._kern(tail[i - 1:i + 1]) for i in range(1, len(tail))]
        fitting, total, previous = 0, 0.0, ""
        for count, char in enumerate(text, 1):
            total += self._glyph(char)[3] + (self._kern(previous + char) if previous else 0.0)
            previous = char
            with_tail = total + (first_advance + self._kern(char + tail[0]))
            for step in later_steps:
                with_tail += step
            if with_tail <= width:
                fitting = count
        return fitting

    def draw(self, pen: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, fill: int) -> tuple[int, int]:
        """``text`` with its top left at ``xy`` (as ``ImageDraw.text`` places it); the rows it may
        have inked, from the first to past the last (the glyphs' boxes)."""
        # A card draws some 130 glyphs: the loop reads its tables directly (a third of the time).
        glyphs, kerning = self._glyphs, self._kerning
        draw_bitmap = pen.draw.draw_bitmap  # ``ImageDraw.bitmap`` without its per-call checks
        x, y = float(xy[0]), xy[1]
        previous = ""
        first, last = 0, 0  # from the line's top
        for char in text:
            glyph = glyphs.get(char) or self._glyph(char)
            if previous:
                pair = previous + char
                kern = kerning.get(pair)
                x += self._kern(pair) if kern is None else kern
            core, left, top, advance, bottom = glyph
            if core is not None:
                draw_bitmap((round(x) + left, y + top), core, fill)
                if top < first:
                    first = top
                if bottom > last:
                    last = bottom
            x += advance
            previous = char
        return y + first, y + last


    def rows(self, text: str, y: int) -> tuple[int, int]:
        """The rows ``draw`` may ink for ``text`` with its top at ``y`` (what it returns), not drawing it."""
        first, last = 0, 0
        for char in text:
            core, _, top, _, bottom = self._glyphs.get(char) or self._glyph(char)
            if core is not None:
                first, last = min(first, top), max(last, bottom)
        return y + first, y + last


#: A glyph rasterised once: its mask (Pillow's core image, None for a space), its box's left and
#: top from the pen, its advance, its box's bottom.
_Glyph = tuple[Any, int, int, float, int]


@lru_cache(maxsize=16)
def _face(bold: bool, size: int) -> _Face:
    return _Face(_font(bold, size))


def _wrap(text: str, face: _Face, width: int, most: int) -> list[str]:
    """Lines of ``text`` no wider than ``width`` (breaking at ordinary spaces only: no-break spaces
    keep a figure with its unit), at most ``most`` of them, the last shortened with an ellipsis."""
    # A line's width is the sum of its words' and spaces' (kerning across a space is nil in the
    # fonts used).
    words = text.split(" ")
    space = face.length(" ")
    lines: list[str] = []
    current, current_width = "", 0.0
    for index, word in enumerate(words):
        word_width = face.word_length(_drawable(word))
        if current and current_width + space + word_width > width:
            lines.append(current)
            current, current_width = word, word_width
            if len(lines) == most:  # the rest is cut, never measured: is any of it a word?
                current = next((rest for rest in words[index:] if rest), "")
                break
        elif current:
            current, current_width = f"{current} {word}", current_width + space + word_width
        else:
            current, current_width = word, word_width
    if current:
        lines.append(current)
    if len(lines) > most:
        lines = lines[:most]
        # Cut where the line still fits with its ellipsis, found in one pass: measuring the line again
        # after each character taken off was quadratic in a long word.
        last = lines[-1]
        last = last[:face.fitting_prefix(_drawable(last), " …", width)]
        lines[-1] = last.rstrip() + " …"
    return lines


def _drawable(text: str) -> str:
    # No-break spaces (French typography, CLDR's digit groups) drawn as spaces: some fonts lack them.
    return text.replace("\u202f", " ").replace("\u00a0", " ")


#: Grey levels drawn: 16 (a 4-bit PNG) keep antialiased text smooth at a third of the bytes to compress.
LEVELS = 16
#: Cards are drawn in those levels directly (0 the site's blue, 15 white): the site's name, the
#: title and the figures.
SITE_NAME, WHITE, FIGURES = 12, 15, 14


@lru_cache(maxsize=4)
def _background(site_name: str) -> Image.Image:
    """What every card of a site shares: its name and the rule under it (drawn once, copied per card)."""
    from PIL import Image, ImageDraw

    # Every card is a copy of this image (740 KiB): Pillow returns a freed image's memory to the
    # system unless told to keep a few blocks, and on a virtual machine that costs a page fault per
    # 4 KiB at each card (141 of them: 4.97 s against 4.34 s for the 2,157 cards of a corpus build,
    # one process, 2026-12-03). Its block allocator's pool, off by default (``PILLOW_BLOCKS_MAX``).
    Image.core.set_blocks_max(max(Image.core.get_blocks_max(), 4))
    image = Image.new("L", (WIDTH, HEIGHT), 0)
    pen = ImageDraw.Draw(image)
    pen.text((MARGIN, MARGIN), _drawable(site_name), font=_font(True, 38), fill=SITE_NAME)
    pen.rectangle((MARGIN, MARGIN + 62, MARGIN + 96, MARGIN + 68), fill=WHITE)
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
        strip = background.crop((0, start, WIDTH, end))
        pen = ImageDraw.Draw(strip)
        for (face, y, text, level), (first, last) in zip(lines, spans):
            if first < end and last > start:  # the line is in this run
                face.draw(pen, (MARGIN, y - start), text, level)
        # The levels are the palette's indexes: the PNG holds them as they are, 4 bits each.
        bands.append(palette_png.band(strip.tobytes("raw", "L;4"), WIDTH))
        row = end
    if row < HEIGHT:
        bands.append(_background_band(card.site_name, row, HEIGHT))
    return palette_png.encode_bands(bands, WIDTH, HEIGHT, _palette())


#: A line of a card: its face, its top, its text as drawn, its level.
_Line = tuple[_Face, int, str, int]


def _lines(card: Card) -> list[_Line]:
    """Where a card's lines go: the title (up to three lines, smaller when long) under the site's
    name, the key figures (up to three lines) at the bottom."""
    width = WIDTH - 2 * MARGIN
    for size in (68, 60, 52):
        title_face = _face(True, size)
        title = _wrap(card.title, title_face, width, 3)
        if len(title) <= 2 or size == 52:
            break
    lines: list[_Line] = []
    y = MARGIN + 110
    for line in title:
        lines.append((title_face, y, _drawable(line), WHITE))
        y += int(size * 1.25)
    figure_face = _face(False, 36)
    figures = [line for text in card.lines for line in _wrap(text, figure_face, width, 2)][:3]
    y = HEIGHT - MARGIN - len(figures) * 48 + 4
    for line in figures:
        lines.append((figure_face, y, _drawable(line), FIGURES))
        y += 48
    return lines


def drawn(card: Card) -> tuple[Image.Image, list[tuple[int, int]]]:
    """The card in 16 levels, drawn whole, and the runs of rows drawn on (first row, past the
    last), in order: what ``draw`` encodes run by run (the tests compare the two)."""
    from PIL import ImageDraw

    image = _background(card.site_name).copy()
    pen = ImageDraw.Draw(image)
    return image, _runs([face.draw(pen, (MARGIN, y), text, level) for face, y, text, level in _lines(card)])


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
    stride = (WIDTH + 1) // 2
    return palette_png.band(_background(site_name).tobytes("raw", "L;4")[start * stride:end * stride], WIDTH)


def shorten(text: str, limit: int = 200) -> str:
    """A description short enough for a card."""
    return textwrap.shorten(text, limit, placeholder=" …")
