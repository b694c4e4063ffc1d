"""The sharing cards' PNG encoder (``render.palette_png``): what Pillow decodes is the image that
was encoded, index for index and colour for colour, whatever its width."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from gpuguide.build.card_cache import intact
from gpuguide.render import palette_png
from gpuguide.render.cards import HEIGHT, WIDTH, Card, _palette, draw


@pytest.mark.parametrize(("width", "height"), [(1, 1), (7, 3), (64, 40), (WIDTH, 5)])
def test_pillow_decodes_the_indexes_and_palette_that_were_encoded(width: int, height: int):
    rng = random.Random(f"{width}x{height}")
    image = Image.new("L", (width, height))
    image.putdata([rng.randrange(16) for _ in range(width * height)])
    palette = [rng.randrange(256) for _ in range(48)]
    png = palette_png.encode(image.tobytes("raw", "L;4"), width, height, palette)
    decoded = Image.open(io.BytesIO(png))
    decoded.load()  # Pillow checks each chunk's CRC
    assert (decoded.mode, decoded.size) == ("P", (width, height))
    assert decoded.tobytes() == image.tobytes()  # one index a byte, row by row
    assert decoded.getpalette()[:48] == palette


def test_a_card_is_whole_and_shows_its_text_in_the_palettes_colours(tmp_path):
    png = draw(Card("Tiny", "GPU for LLM training", ("≈ 30B parameters on 8 GPUs",)))
    path = tmp_path / "card.png"
    path.write_bytes(png)
    assert intact(str(path))  # every chunk's CRC, as the build cache checks a drawing
    decoded = Image.open(io.BytesIO(png)).convert("RGB")
    assert decoded.size == (WIDTH, HEIGHT)
    colours = {colour for _, colour in decoded.getcolors(WIDTH * HEIGHT)}
    palette = _palette()
    assert colours <= {tuple(palette[i:i + 3]) for i in range(0, 48, 3)}
    assert tuple(palette[45:48]) in colours and tuple(palette[:3]) in colours  # white text on the blue


def test_rows_that_do_not_match_the_size_are_refused():
    with pytest.raises(ValueError):
        palette_png.encode(bytes(3), 4, 2, [0] * 48)


def test_a_band_compresses_to_the_same_bytes_whatever_was_compressed_before_it():
    """One compressor serves every band (flushed in full after each): a band's bytes must not depend
    on the bands before it, or two builds that draw cards in another order would differ."""
    from zlib_ng import zlib_ng

    rng = random.Random("bands")
    stride = (WIDTH + 1) // 2
    rows = [bytes(rng.choice([0, 0, 0, 0x0F, 0xF0, 0x8C, rng.randrange(256)]) for _ in range(stride * rng.randrange(1, 90)))
            for _ in range(40)]
    for packed in rng.sample(rows, len(rows)):
        palette_png.band(bytes(rng.randrange(256) for _ in range(stride * 3)), WIDTH)  # anything before it
        fresh = zlib_ng.compressobj(1, zlib_ng.DEFLATED, -15)
        filtered = b"".join(b"\0" + packed[offset:offset + stride] for offset in range(0, len(packed), stride))
        assert palette_png.band(packed, WIDTH).deflated == fresh.compress(filtered) + fresh.flush(zlib_ng.Z_SYNC_FLUSH)
