"""Sharing cards: drawn glyph by glyph from glyphs rasterised once, they must look exactly as
Pillow draws the same text, and stay within the card."""

from __future__ import annotations

import io
import pickle

import pytest
from PIL import Image, ImageChops, ImageDraw

from gpuguide.render import cards
from gpuguide.render.cards import HEIGHT, WIDTH, Card, draw

# Pairs a font kerns (AV, To, Wa, "r."), accents, digits and the signs the figures use.
KERNED = "AVANT tout, To Wa «r.» Dès 1,79 $US/h · 80 Go ≈ 10 Md"


@pytest.mark.parametrize(("bold", "size"), [(True, 68), (True, 52), (False, 36)])
def test_a_line_drawn_from_cached_glyphs_is_the_line_pillow_draws(bold: bool, size: int):
    face = cards._face(bold, size)
    ours = Image.new("L", (1400, 120), 0)
    face.draw(ImageDraw.Draw(ours), (10, 10), KERNED, 255)
    pillows = Image.new("L", (1400, 120), 0)
    ImageDraw.Draw(pillows).text((10, 10), KERNED, font=cards._font(bold, size), fill=255)
    difference = ImageChops.difference(ours, pillows)
    # Pillow places each glyph at a fraction of a pixel, we at the nearest pixel: edges may differ
    # by a little antialiasing, never by a glyph's body.
    assert difference.getbbox() is None or max(difference.getextrema()) < 200
    changed = sum(1 for value in difference.get_flattened_data() if value > 64)
    inked = sum(1 for value in pillows.get_flattened_data() if value > 64)
    assert changed <= inked * 0.05


@pytest.mark.parametrize("text", [KERNED, "Choisir un GPU pour l'entraînement", "H100 SXM vs A100 PCIe"])
def test_a_line_measures_what_pillow_measures(text: str):
    face = cards._face(True, 68)
    assert face.length(text) == pytest.approx(cards._font(True, 68).getlength(text), abs=0.5)


def test_a_card_is_a_small_palette_png_of_the_open_graph_size():
    data = draw(Card("EverXCloud", "Choisir un GPU pour l'entraînement de grands modèles", ("Dès 1,79 $US/h",)))
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.size == (WIDTH, HEIGHT) and image.mode == "P"
    assert len(data) < 40_000
    colours = {colour for _, colour in image.convert("RGB").getcolors(256) or []}
    assert cards.BACKGROUND in colours and cards.INK in colours  # white text on the site's blue


def test_a_long_title_is_cut_with_an_ellipsis_and_keeps_within_the_margins():
    title = " ".join(["entraînement"] * 40)
    lines = cards._wrap(title, cards._face(True, 52), WIDTH - 2 * cards.MARGIN, 3)
    assert len(lines) == 3 and lines[-1].endswith(" …")
    assert all(cards._face(True, 52).length(line) <= WIDTH - 2 * cards.MARGIN for line in lines)
    image = Image.open(io.BytesIO(draw(Card("EverXCloud", title, ())))).convert("L")
    inked = image.point(lambda value: 255 if value > image.getpixel((0, 0)) else 0).getbbox()
    assert inked is not None and inked[0] >= cards.MARGIN - 2 and inked[2] <= WIDTH - cards.MARGIN + 2


def test_a_cards_name_follows_what_it_shows_and_how_it_is_drawn(monkeypatch: pytest.MonkeyPatch):
    card = Card("EverXCloud", "Title", ("Figure",))
    assert card.file_name == Card("EverXCloud", "Title", ("Figure",)).file_name
    assert card.file_name != Card("EverXCloud", "Title", ("Other figure",)).file_name
    assert pickle.loads(pickle.dumps(card)).file_name == card.file_name  # kept in the build cache
    monkeypatch.setattr(cards, "DESIGN", cards.DESIGN + 1)
    assert Card("EverXCloud", "Title", ("Figure",)).file_name != card.file_name
