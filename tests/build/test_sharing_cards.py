"""The ``sharing_cards`` setting of ``data/site.yaml``: each page's own card (the default), or the
site's one card on every page, with nothing drawn or published per page."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from PIL import Image
from sites import build, tiny_project

from gpuguide.errors import BuildFailed


def _og_images(site: Path) -> dict[str, str]:
    found = {}
    for page in site.rglob("index.html"):
        tag = BeautifulSoup(page.read_text(encoding="utf-8"), "lxml").find("meta", property="og:image")
        if tag is not None:
            found[page.relative_to(site).as_posix()] = tag["content"]
    return found


def test_each_page_has_its_own_card_by_default(tmp_path: Path):
    root = tiny_project(tmp_path / "tiny")
    build(root)
    site = root / "site"
    images = _og_images(site)
    assert len(images) > 10
    for page, image in images.items():
        folder = page.removesuffix("index.html")
        assert image == f"https://tiny.example.com/{folder}og.png"
        assert (site / folder / "og.png").is_file()
    # And no card that no page names: a pair's other order (a redirect) has none.
    published = {path.relative_to(site).as_posix() for path in site.rglob("og.png")}
    assert published == {page.removesuffix("index.html") + "og.png" for page in images}
    assert "en/compare/pcie-vs-big/index.html" not in images and (site / "en/compare/pcie-vs-big/index.html").is_file()


def test_the_site_card_setting_puts_the_root_card_on_every_page_and_draws_no_other(tmp_path: Path):
    root = tiny_project(tmp_path / "tiny")
    settings = root / "data" / "site.yaml"
    settings.write_text(settings.read_text(encoding="utf-8") + "sharing_cards: site\n", encoding="utf-8")
    build(root)
    site = root / "site"
    images = _og_images(site)
    assert len(images) > 10 and set(images.values()) == {"https://tiny.example.com/og.png"}
    assert [path.relative_to(site).as_posix() for path in site.rglob("og.png")] == ["og.png"]
    with Image.open(site / "og.png") as card:
        assert card.size == (1200, 630)
    assert not list((root / ".build-cache" / "cards").glob("*.png"))[1:]  # the root card's drawing only


def test_an_unknown_sharing_cards_value_is_an_error_at_its_line(tmp_path: Path):
    root = tiny_project(tmp_path / "tiny")
    settings = root / "data" / "site.yaml"
    text = settings.read_text(encoding="utf-8") + "sharing_cards: each page\n"
    settings.write_text(text, encoding="utf-8")
    with pytest.raises(BuildFailed) as failed:
        build(root)
    [problem] = failed.value.problems
    assert (problem.path, problem.line) == ("data/site.yaml", text.count("\n"))
    assert "sharing_cards" in str(problem) and "per page" in str(problem)
