"""A page's sharing card (``og:image``): its title and key figure, drawn at build time with Pillow.

``Card`` is what the card shows; ``Card.file_name`` names the drawing by a digest of that text, of
the design and of the font, so the build cache keeps one drawing per distinct card and an
unchanged page never draws its card again (``build.cards``).
"""

from __future__ import annotations

import hashlib
import io
import textwrap
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from PIL import __version__ as PILLOW_VERSION

#: Bump when the drawing changes: every card is drawn again.
DESIGN = 1
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

    @property
    def file_name(self) -> str:
        """``<digest>.png``: the same card, design and font always give the same name."""
        digest = hashlib.blake2b(repr((DESIGN, PILLOW_VERSION, _font_id(), self)).encode("utf-8"), digest_size=12)
        return digest.hexdigest() + ".png"


@lru_cache(maxsize=1)
def _font_paths() -> tuple[Path, Path] | None:
    for folder in FONT_DIRS:
        if (folder / BOLD).is_file() and (folder / REGULAR).is_file():
            return folder / BOLD, folder / REGULAR
    return None


def _font_id() -> str:
    paths = _font_paths()
    return "pillow-default" if paths is None else ":".join(f"{path}:{path.stat().st_size}" for path in paths)


@lru_cache(maxsize=16)
def _font(bold: bool, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    paths = _font_paths()
    if paths is None:
        return ImageFont.load_default(size)
    return ImageFont.truetype(str(paths[0] if bold else paths[1]), size)


def _wrap(text: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, width: int, most: int) -> list[str]:
    """Lines of ``text`` no wider than ``width`` (breaking at ordinary spaces only: no-break spaces
    keep a figure with its unit), at most ``most`` of them, the last shortened with an ellipsis."""
    words = text.split(" ")
    lines: list[str] = []
    current = ""
    for word in words:
        candidate = f"{current} {word}" if current else word
        if current and font.getlength(_drawable(candidate)) > width:
            lines.append(current)
            current = word
        else:
            current = candidate
    if current:
        lines.append(current)
    if len(lines) > most:
        lines = lines[:most]
        last = lines[-1]
        while last and font.getlength(_drawable(last + " …")) > width:
            last = last[:-1]
        lines[-1] = last.rstrip() + " …"
    return lines


def _drawable(text: str) -> str:
    # No-break spaces (French typography, CLDR's digit groups) drawn as spaces: some fonts lack them.
    return text.replace("\u202f", " ").replace("\u00a0", " ")


def draw(card: Card) -> bytes:
    """The card as a PNG: the site's name, the title (up to three lines, smaller when long) and the
    key figures, white on the site's blue. Drawn in grey levels, then coloured by a palette: a
    quarter of the time and size of a full-colour drawing."""
    image = Image.new("L", (WIDTH, HEIGHT), 0)
    pen = ImageDraw.Draw(image)
    width = WIDTH - 2 * MARGIN
    pen.text((MARGIN, MARGIN), _drawable(card.site_name), font=_font(True, 38), fill=200)
    pen.rectangle((MARGIN, MARGIN + 62, MARGIN + 96, MARGIN + 68), fill=255)
    for size in (68, 60, 52):
        title_font = _font(True, size)
        title = _wrap(card.title, title_font, width, 3)
        if len(title) <= 2 or size == 52:
            break
    y = MARGIN + 110
    for line in title:
        pen.text((MARGIN, y), _drawable(line), font=title_font, fill=255)
        y += int(size * 1.25)
    figure_font = _font(False, 36)
    figures = [line for text in card.lines for line in _wrap(text, figure_font, width, 2)][:3]
    y = HEIGHT - MARGIN - len(figures) * 48 + 4
    for line in figures:
        pen.text((MARGIN, y), _drawable(line), font=figure_font, fill=235)
        y += 48
    palette: list[int] = []
    for level in range(256):
        palette += [round(BACKGROUND[channel] + (INK[channel] - BACKGROUND[channel]) * level / 255) for channel in range(3)]
    image.putpalette(palette)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=False, compress_level=6)
    return out.getvalue()


def shorten(text: str, limit: int = 200) -> str:
    """A description short enough for a card."""
    return textwrap.shorten(text, limit, placeholder=" …")
