"""Sharing cards (``render.cards``, their text set by ``render.card_text``): drawn glyph by glyph
from glyphs rasterised once, they must look exactly as Pillow draws the same text, and stay within
the card."""

from __future__ import annotations

import io
import struct
import zlib

import pytest
from PIL import Image, ImageChops, ImageDraw
from sites import processor_seconds

from gpuguide.render import card_text, cards, palette_png
from gpuguide.render.cards import HEIGHT, WIDTH, Card, draw

# Pairs a font kerns (AV, To, Wa, "r."), accents, digits and the signs the figures use.
KERNED = "AVANT tout, To Wa «r.» Dès 1,79 $US/h · 80 Go ≈ 10 Md"


@pytest.mark.parametrize(("bold", "size"), [(True, 68), (True, 52), (False, 36)])
def test_a_line_drawn_from_cached_glyphs_is_the_line_pillow_draws(bold: bool, size: int):
    face = card_text.face(bold, size)
    ours = Image.new("L", (1400, 120), 0)
    face.draw(ImageDraw.Draw(ours), (10, 10), KERNED, 255)
    pillows = Image.new("L", (1400, 120), 0)
    ImageDraw.Draw(pillows).text((10, 10), KERNED, font=card_text.font(bold, size), fill=255)
    difference = ImageChops.difference(ours, pillows)
    # Pillow places each glyph at a fraction of a pixel, we at the nearest pixel: edges may differ
    # by a little antialiasing, never by a glyph's body.
    assert difference.getbbox() is None or max(difference.getextrema()) < 200
    changed = sum(1 for value in difference.get_flattened_data() if value > 64)
    inked = sum(1 for value in pillows.get_flattened_data() if value > 64)
    assert changed <= inked * 0.05


@pytest.mark.parametrize("text", [KERNED, "Choisir un GPU pour l'entraînement", "H100 SXM vs A100 PCIe"])
def test_a_line_measures_what_pillow_measures(text: str):
    face = card_text.face(True, 68)
    assert face.length(text) == pytest.approx(card_text.font(True, 68).getlength(text), abs=0.5)


def test_a_card_is_a_small_palette_png_of_the_open_graph_size():
    data = draw(Card("EverXCloud", "Choisir un GPU pour l'entraînement de grands modèles", ("Dès 1,79 $US/h",)))
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.size == (WIDTH, HEIGHT) and image.mode == "P"
    assert len(data) < 40_000
    colours = {colour for _, colour in image.convert("RGB").getcolors(256) or []}
    assert cards.BACKGROUND in colours and cards.INK in colours  # white text on the site's blue


def _pixel_rows(png: bytes) -> bytes:
    """The rows a PNG holds, inflated by zlib, which checks the stream's Adler-32 (as the PNG's
    chunks' CRC-32 are checked by ``card_cache.intact``)."""
    idat = b"".join(chunk for kind, chunk in _chunks(png) if kind == b"IDAT")
    return zlib.decompress(idat)


def _chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    found, offset = [], 8
    while offset < len(png):
        length, kind = struct.unpack(">I4s", png[offset:offset + 8])
        found.append((kind, png[offset + 8:offset + 8 + length]))
        offset += 12 + length
    return found


@pytest.mark.parametrize("card", [
    Card("EverXCloud", "B200 ou A10 : comparaison", ("B200 : 180 Go, dès 7,99 $US", "A10 : 24 Go, Aucune offre")),
    Card("EverXCloud", " ".join(["Éjection gypsy"] * 12), ("Qj", "ÀÉÎ", "g y p", "fourth line dropped")),
    Card("Site", "x", ()),
    Card("EverXCloud", "", ("",)),
])
def test_a_card_compressed_by_bands_holds_the_rows_it_drew(card: Card):
    """Only the rows drawn on are compressed for each card, the others once per site: the PNG must
    still hold exactly the drawn image, and only the background where nothing was drawn."""
    image, inked = cards.drawn(card)
    whole = palette_png.encode(image.tobytes("raw", "L;4"), WIDTH, HEIGHT, cards._palette())
    banded = draw(card)
    assert _pixel_rows(banded) == _pixel_rows(whole)
    assert Image.open(io.BytesIO(banded)).tobytes() == image.tobytes()
    background = cards._background(card.site_name).crop((cards.PAD, 0, cards.PAD + WIDTH, HEIGHT)).tobytes()
    drawn_rows = {row for start, end in inked for row in range(start, end)}
    for row in range(HEIGHT):
        if row not in drawn_rows:
            assert image.tobytes()[row * WIDTH:(row + 1) * WIDTH] == background[row * WIDTH:(row + 1) * WIDTH], row


def test_a_long_title_is_cut_with_an_ellipsis_and_keeps_within_the_margins():
    title = " ".join(["entraînement"] * 40)
    lines = card_text.wrap(title, card_text.face(True, 52), WIDTH - 2 * cards.MARGIN, 3)
    assert len(lines) == 3 and lines[-1].endswith(" …")
    assert all(card_text.face(True, 52).length(line) <= WIDTH - 2 * cards.MARGIN for line in lines)
    image = Image.open(io.BytesIO(draw(Card("EverXCloud", title, ())))).convert("L")
    inked = image.point(lambda value: 255 if value > image.getpixel((0, 0)) else 0).getbbox()
    assert inked is not None and inked[0] >= cards.MARGIN - 2 and inked[2] <= WIDTH - cards.MARGIN + 2


def test_a_cards_name_follows_what_it_shows_and_how_it_is_drawn(monkeypatch: pytest.MonkeyPatch):
    card = Card("EverXCloud", "Title", ("Figure",))
    assert card.file_name == Card("EverXCloud", "Title", ("Figure",)).file_name
    assert card.file_name != Card("EverXCloud", "Title", ("Other figure",)).file_name
    monkeypatch.setattr(cards, "DESIGN", cards.DESIGN + 1)
    assert Card("EverXCloud", "Title", ("Figure",)).file_name != card.file_name


# --- The title cut with an ellipsis: one pass, the same cut as measuring after each character ---

def _cut_one_character_at_a_time(line: str, face: card_text.Face, width: int) -> str:
    """The cut as it was first written (quadratic in a long word): the reference."""
    while line and face.length(card_text.drawable(line + " …")) > width:
        line = line[:-1]
    return line


@pytest.mark.parametrize("line", [KERNED, "Choisir un GPU pour l'entraînement de grands modèles de langage",
                                  "AVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAVAV To To To Wa Wa", "80\u202fGo\u00a0: " * 12,
                                  "x" * 300, "", "…", "W" * 40 + " " * 40])
@pytest.mark.parametrize("size", [68, 52, 36])
def test_the_cut_is_where_measuring_after_each_character_cuts(line: str, size: int):
    face = card_text.face(size != 36, size)
    for width in (0, 40, 333, 700, WIDTH - 2 * cards.MARGIN, 5000):
        fitting = face.fitting_prefix(card_text.drawable(line), " …", width)
        assert line[:fitting] == _cut_one_character_at_a_time(line, face, width), (width, fitting)


def test_a_title_with_a_very_long_word_costs_about_what_measuring_it_once_costs():
    # Two lines of words, then a word as long as the rest of the title on the third line, which is
    # cut: it was measured again after each character taken off.
    def long_word(length: int) -> str:
        start, end = "How to choose GPUs for deep learning and large language ", " models"
        return start + "x" * (length - len(start) - len(end)) + end

    face, width = card_text.face(True, 52), WIDTH - 2 * cards.MARGIN
    length = 10_000
    assert len(card_text.wrap(long_word(length), face, width, 3)[-1]) < 40  # the long word is the one cut
    measured_seconds, long_seconds, grown_seconds = processor_seconds(
        lambda: face.length(long_word(length)), lambda: card_text.wrap(long_word(length), face, width, 3),
        lambda: card_text.wrap(long_word(4 * length), face, width, 3))
    assert long_seconds <= 5 * measured_seconds, (long_seconds, measured_seconds)
    # Four times the word, about four times the time (sixteen if each cut measured the word again).
    assert grown_seconds <= 8 * long_seconds, (grown_seconds, long_seconds)
