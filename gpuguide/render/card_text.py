"""The text of the sharing cards: the font, its glyphs rasterised once, lines measured and wrapped.

A card is drawn glyph by glyph from masks each font size rasterises once (with the font's kerning
between each pair), as text renderers do, rather than FreeType rasterising every glyph of every
card again (``render.cards`` draws them).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # imported where a card is drawn: most builds draw none
    from PIL import ImageDraw, ImageFont

#: Fonts tried in order (DejaVu comes with Debian's Chromium and most Linux systems); Pillow's own
#: font otherwise.
FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/dejavu"), Path("/usr/share/fonts/TTF"))
BOLD, REGULAR = "DejaVuSans-Bold.ttf", "DejaVuSans.ttf"


@lru_cache(maxsize=1)
def font_paths() -> tuple[Path, Path] | None:
    for folder in FONT_DIRS:
        if (folder / BOLD).is_file() and (folder / REGULAR).is_file():
            return folder / BOLD, folder / REGULAR
    return None


@lru_cache(maxsize=1)
def font_id() -> str:
    paths = font_paths()
    return "pillow-default" if paths is None else ":".join(f"{path}:{path.stat().st_size}" for path in paths)


@lru_cache(maxsize=16)
def font(bold: bool, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    from PIL import ImageFont

    paths = font_paths()
    if paths is None:
        return ImageFont.load_default(size)
    return ImageFont.truetype(str(paths[0] if bold else paths[1]), size)


class Face:
    """One font at one size whose glyphs are rasterised once: a card is drawn glyph by glyph from
    them (with the font's kerning between each pair), as text renderers do, rather than FreeType
    rasterising every glyph of every card again."""

    def __init__(self, font: ImageFont.FreeTypeFont | ImageFont.ImageFont):
        self.font = font
        self._glyphs: dict[str, Glyph] = {}
        self._kerning: dict[str, float] = {}
        self._words: dict[str, float] = {}
        self._word_rows: dict[str, tuple[int, int]] = {}

    def _glyph(self, char: str) -> Glyph:
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

    def draw(self, pen: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, fill: int) -> None:
        """``text`` with its top left at ``xy`` (as ``ImageDraw.text`` places it)."""
        # A card draws some 130 glyphs: the loop reads its tables directly (a quarter of the time).
        glyphs, kerning = self._glyphs, self._kerning
        draw_bitmap = pen.draw.draw_bitmap  # ``ImageDraw.bitmap`` without its per-call checks
        x, y = float(xy[0]), xy[1]
        previous = ""
        for char in text:
            glyph = glyphs.get(char) or self._glyph(char)
            if previous:
                pair = previous + char
                kern = kerning.get(pair)
                x += self._kern(pair) if kern is None else kern
            core, left, top, advance, _ = glyph
            if core is not None:
                draw_bitmap((round(x) + left, y + top), core, fill)
            x += advance
            previous = char

    def rows(self, text: str, y: int) -> tuple[int, int]:
        """The rows ``draw`` may ink for ``text`` with its top at ``y``, from the first to past the
        last (the glyphs' boxes): the extremes of its words', each found once (the cards of a site
        draw the same words; a space inks nothing)."""
        first, last = 0, 0
        known = self._word_rows
        for word in text.split(" "):
            rows = known.get(word) or self._rows_of(word)
            first, last = min(first, rows[0]), max(last, rows[1])
        return y + first, y + last

    def _rows_of(self, word: str) -> tuple[int, int]:
        first, last = 0, 0
        for char in word:
            core, _, top, _, bottom = self._glyphs.get(char) or self._glyph(char)
            if core is not None:
                first, last = min(first, top), max(last, bottom)
        if len(self._word_rows) > 65536:
            self._word_rows.clear()
        self._word_rows[word] = (first, last)
        return first, last


#: A glyph rasterised once: its mask (Pillow's core image, None for a space), its box's left and
#: top from the pen, its advance, its box's bottom.
Glyph = tuple[Any, int, int, float, int]


@lru_cache(maxsize=16)
def face(bold: bool, size: int) -> Face:
    return Face(font(bold, size))


def wrap(text: str, face: Face, width: int, most: int) -> list[str]:
    """Lines of ``text`` no wider than ``width`` (breaking at ordinary spaces only: no-break spaces
    keep a figure with its unit), at most ``most`` of them, the last shortened with an ellipsis."""
    # A line's width is the sum of its words' and spaces' (kerning across a space is nil in the
    # fonts used).
    words = text.split(" ")
    space = face.length(" ")
    lines: list[str] = []
    current, current_width = "", 0.0
    for index, word in enumerate(words):
        word_width = face.word_length(drawable(word))
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
        last = last[:face.fitting_prefix(drawable(last), " …", width)]
        lines[-1] = last.rstrip() + " …"
    return lines


def drawable(text: str) -> str:
    # No-break spaces (French typography, CLDR's digit groups) drawn as spaces: some fonts lack them.
    return text.replace("\u202f", " ").replace("\u00a0", " ")

