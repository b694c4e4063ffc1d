"""Offers you can act on and words readers search by, over the whole built site in both languages:
a GPU without a live offer is a bid for it, never a dead end; the search indexes prose, not table
headers run together; the other names of a use case (Blender, Stable Diffusion…) are on its page.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from gpuguide.errors import Problems
from gpuguide.structure.dataset import load_dataset
from sites import ROOT


@pytest.fixture(scope="module")
def dataset():
    return load_dataset(ROOT / "data", Problems(ROOT))


@pytest.fixture(scope="module")
def pages(built_site: Path) -> dict[str, BeautifulSoup]:
    return {path.relative_to(built_site).as_posix(): BeautifulSoup(path.read_text(encoding="utf-8"), "lxml")
            for path in sorted(built_site.rglob("index.html"))}


def language_of(soup: BeautifulSoup) -> str:
    return soup.html["lang"]


def test_every_gpu_without_an_offer_is_a_bid_for_that_gpu(pages, dataset):
    """In every table's price column (the use-case, catalogue and GPU tables, and every plans table),
    a GPU with no live offer links to the marketplace's bid page for that very GPU; a GPU with an
    offer never does."""
    checked = 0
    for path, soup in pages.items():
        lang = language_of(soup)
        if lang not in dataset.config.languages:
            continue
        for row in soup.select("table.gpu-table tbody tr[data-gpu]"):
            gpu_id = row["data-gpu"]
            table = row.find_parent("table")
            columns = [th.get("data-column") for th in table.select("thead th")][1:]
            if "price" not in columns:
                continue
            cell = row.find_all("td")[columns.index("price")]
            link = cell.find("a", class_="bid-link")
            if dataset.price(gpu_id) is None:
                assert link is not None and link["href"] == dataset.bid_url(lang, gpu_id), f"{path}: {gpu_id}"
                checked += 1
            else:
                assert link is None, f"{path}: {gpu_id} has an offer"
        for row in soup.select("tr:has(th[data-gpu][data-reason])"):
            gpu_id, reason = row.th["data-gpu"], row.th["data-reason"]
            bids = [a for a in row.find_all("a") if a.get("href") == dataset.bid_url(lang, gpu_id)]
            if dataset.price(gpu_id) is None and reason != "memory":
                assert bids, f"{path}: plans row {gpu_id}"
                checked += 1
            if dataset.price(gpu_id) is not None:
                assert not bids, f"{path}: plans row {gpu_id} has an offer"
    assert checked > 500  # the rule is exercised on many pages, in both languages


def test_tables_are_left_out_of_the_search_index(pages):
    """Excerpts come from prose: no table of figures is indexed (its headers would run together,
    "GPUGPUsInterconnectPrice/h"); a table of sentences written in Markdown is prose, and stays in."""
    for path, soup in pages.items():
        for region in soup.select(".table-scroll:not(.prose)"):
            assert region.has_attr("data-pagefind-ignore") or region.find_parent(attrs={"data-pagefind-ignore": True}), \
                f"{path}: {region.get('aria-labelledby')}"


@pytest.mark.parametrize(("path", "words"), [
    ("en/3d-rendering-vfx/index.html", ["Blender", "Octane", "Redshift"]),
    ("fr/rendu-3d-effets-visuels/index.html", ["Blender", "Octane", "Redshift"]),
    ("en/image-video-generation/index.html", ["Stable Diffusion"]),
    ("fr/generation-images-videos/index.html", ["Stable Diffusion"]),
])
def test_a_use_cases_other_names_are_on_its_page_where_the_search_indexes(pages, path, words):
    keywords = pages[path].select_one("main[data-pagefind-body] p.keywords")
    assert keywords is not None and not keywords.find_parent(attrs={"data-pagefind-ignore": True})
    for word in words:
        assert word in keywords.get_text()


@pytest.mark.parametrize(("path", "wrong"), [
    ("fr/gpu/rtx-4090/index.html", "que fait tourner GeForce"),
    ("fr/rendu-3d-effets-visuels/index.html", "Lancer de rayons matériel"),
    ("fr/calcul-scientifique/index.html", "pochoirs"),
])
def test_the_french_wording_the_readers_flagged_is_gone(pages, path, wrong):
    assert wrong not in pages[path].get_text()


def test_no_french_table_has_two_columns_of_the_same_name(pages):
    for path, soup in pages.items():
        for table in soup.find_all("table"):
            headers = [th.get_text(" ", strip=True) for th in table.select("thead th")]
            assert len(headers) == len(set(headers)), f"{path}: {headers}"


def test_a_gpu_without_rt_cores_says_so_in_the_scene_column(pages, dataset):
    """The scene-size column names why a GPU has no tier ("No RT cores"), not "Not supported"."""
    expected = {"fr": "Pas de cœurs RT", "en": "No RT cores"}
    found = 0
    for path, soup in pages.items():
        for table in soup.select("table.gpu-table:has(th[data-column=scene_tier])"):
            columns = [th.get("data-column") for th in table.select("thead th")][1:]
            for row in table.select("tbody tr[data-gpu]"):
                if dataset.gpus[row["data-gpu"]].ray_tracing is False:
                    cell = row.find_all("td")[columns.index("scene_tier")]
                    assert cell.get_text(strip=True) == expected[language_of(soup)], path
                    found += 1
    assert found
