"""Sharing cards in the build cache (``gpuguide.build.card_cache``): where a page's card is published,
each distinct card drawn once and reused, and drawings no page shows any more pruned."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from PIL import Image

from gpuguide.build import card_cache
from gpuguide.build.card_cache import card_output, ensure_drawn, prune
from gpuguide.render.cards import Card

CARD = Card("Tiny", "GPU pour entraîner un LLM", ("≈ 30 Md paramètres sur 8 GPU",))
OTHER = Card("Tiny", "GPU for LLM training", ("≈ 30B parameters on 8 GPUs",))


@pytest.fixture
def drawings(monkeypatch: pytest.MonkeyPatch) -> list[Card]:
    """Every card drawn during the test, in order (the real drawing still runs)."""
    drawn: list[Card] = []
    real_draw = card_cache.draw

    def counting_draw(card: Card) -> bytes:
        drawn.append(card)
        return real_draw(card)

    monkeypatch.setattr(card_cache, "draw", counting_draw)
    return drawn


@pytest.mark.parametrize(("page", "card"), [
    ("fr/entrainement-llm/index.html", "fr/entrainement-llm/og.png"),  # beside the page
    ("fr/gpu/h100-sxm/index.html", "fr/gpu/h100-sxm/og.png"),
    ("fr/index.html", "fr/og.png"),
    ("index.html", "og.png"),  # the root page's card, at the site's root
])
def test_card_output_is_beside_its_page(page: str, card: str):
    assert card_output(page) == card


def test_ensure_drawn_draws_a_png_into_a_new_cache_folder(tmp_path: Path, drawings: list[Card]):
    cache = tmp_path / ".build-cache" / "cards"  # not there yet: made on the first drawing
    path = ensure_drawn(CARD, cache)
    assert path == os.path.join(cache, CARD.file_name)
    assert drawings == [CARD]
    with Image.open(io.BytesIO(Path(path).read_bytes())) as image:
        assert image.format == "PNG"
        assert image.size == (1200, 630)  # Open Graph's large card
    assert os.listdir(cache) == [CARD.file_name]  # no temporary file left behind


def test_ensure_drawn_draws_a_card_once_and_reuses_it(tmp_path: Path, drawings: list[Card]):
    cache = tmp_path / "cards"
    first = ensure_drawn(CARD, cache)
    stat = os.stat(first)
    # The same card again, even as another object with the same text: the cached file is reused.
    same = Card(CARD.site_name, CARD.title, tuple(CARD.lines))
    assert ensure_drawn(CARD, cache) == first
    assert ensure_drawn(same, cache) == first
    assert drawings == [CARD]
    after = os.stat(first)
    assert (after.st_ino, after.st_mtime_ns) == (stat.st_ino, stat.st_mtime_ns)  # not written again


def test_ensure_drawn_draws_each_distinct_card(tmp_path: Path, drawings: list[Card]):
    cache = tmp_path / "cards"
    one, two = ensure_drawn(CARD, cache), ensure_drawn(OTHER, cache)
    assert one != two
    assert drawings == [CARD, OTHER]
    assert sorted(os.listdir(cache)) == sorted([CARD.file_name, OTHER.file_name])
    assert Path(one).read_bytes() != Path(two).read_bytes()


def test_prune_removes_only_the_drawings_not_kept(tmp_path: Path):
    cache = tmp_path / "cards"
    kept, gone = ensure_drawn(CARD, cache), ensure_drawn(OTHER, cache)
    (cache / "notes.txt").write_text("not a drawing", encoding="utf-8")  # not ours to remove
    prune(cache, {os.path.basename(kept)})
    assert os.path.isfile(kept)
    assert not os.path.exists(gone)
    assert sorted(os.listdir(cache)) == sorted([CARD.file_name, "notes.txt"])


def test_prune_of_a_missing_cache_does_nothing(tmp_path: Path):
    prune(tmp_path / "no-cache-yet", set())  # a first build that drew nothing: no error
    assert not (tmp_path / "no-cache-yet").exists()


def test_a_pruned_card_is_drawn_again_when_a_page_shows_it_again(tmp_path: Path, drawings: list[Card]):
    cache = tmp_path / "cards"
    ensure_drawn(CARD, cache)
    prune(cache, set())
    assert os.listdir(cache) == []
    assert os.path.isfile(ensure_drawn(CARD, cache))
    assert drawings == [CARD, CARD]


def test_a_drawing_damaged_anywhere_in_the_cache_is_never_used_and_is_drawn_again(tmp_path: Path,
                                                                                   drawings: list[Card]):
    # A drawing is published as it is: a flipped byte or a cut would reach the page's og.png.
    cache = tmp_path / "cards"
    path = Path(ensure_drawn(CARD, cache))
    good = path.read_bytes()
    assert card_cache.intact(str(path))
    damaged = [good[:cut] for cut in (0, 8, 33, len(good) // 2, len(good) - 1)]
    for position in range(0, len(good), max(1, len(good) // 97)):  # about a hundred positions, header to end
        flipped = bytearray(good)
        flipped[position] ^= 0x10
        damaged.append(bytes(flipped))
    for data in damaged:
        path.write_bytes(data)
        assert not card_cache.intact(str(path))
        assert card_cache.cached_drawing(CARD.file_name, cache) is None
        assert ensure_drawn(CARD, cache) == str(path) and path.read_bytes() == good  # drawn again
    assert len(drawings) == 1 + len(damaged)


def test_a_pipe_where_a_drawing_should_be_is_not_intact_and_never_blocks(tmp_path: Path):
    os.mkfifo(tmp_path / CARD.file_name)
    assert not card_cache.intact(str(tmp_path / CARD.file_name))


def test_prune_removes_what_a_drawing_killed_before_its_rename_left(tmp_path: Path):
    cache = tmp_path / "cards"
    kept = ensure_drawn(CARD, cache)
    leftover = cache / f".{OTHER.file_name}.tmp-4242"  # ``ensure_drawn``'s temporary name
    leftover.write_bytes(b"\x89PNG half")
    prune(cache, {os.path.basename(kept)})
    assert sorted(os.listdir(cache)) == [CARD.file_name]
