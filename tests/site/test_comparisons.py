"""Comparison pages over the whole built site, in both languages: every pair reachable in either
order, indexed by the relevance rule alone, opened by bottom lines that agree with the tables of
their own page; use-case pages link a handful of pairs; GPU pages open the form on the closest one.

Pages are parsed with lxml. The rule and the closeness are worked out here from data/gpus.yaml
(the larger memory at most 3 times the smaller; closest: nearest memory, then nearest bandwidth),
and every bottom line is checked against the cells its page prints (``data-column`` rows), never
against the library that wrote it.
"""

from __future__ import annotations

import copy
import itertools
import json
import posixpath
import re
from fractions import Fraction
from pathlib import Path

import pytest
from lxml import etree
from lxml import html as lxml_html

from gpuguide.errors import Problems
from gpuguide.render.site_view import PICKER_OPTIONS
from gpuguide.structure.dataset import Dataset, load_dataset
from gpuguide.structure.gpu_specs import Gpu

from sites import ROOT

pytestmark = pytest.mark.slow

FOLDERS = {"fr": "fr/comparer", "en": "en/compare"}
MAX_USE_CASE_PAIRS = 6
USE_CASE_PAGES = {"fr": ["entrainement-llm", "reglage-fin", "inference-llm", "generation-images-videos",
                         "rendu-3d-effets-visuels", "calcul-scientifique"],
                  "en": ["llm-training", "fine-tuning", "llm-inference", "image-video-generation", "3d-rendering-vfx",
                         "scientific-computing"]}
RENDERING = {"fr": "rendu-3d-effets-visuels", "en": "3d-rendering-vfx"}


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    loaded = load_dataset(ROOT / "data", Problems(ROOT))
    assert loaded is not None
    return loaded


@pytest.fixture(scope="module")
def pages(built_site: Path) -> dict[str, object]:
    """The comparison, use-case and GPU pages, parsed, by their path in site/."""
    found = {}
    for pattern in ("fr/comparer/*/index.html", "en/compare/*/index.html", "fr/comparer/index.html",
                    "en/compare/index.html", "fr/gpu/*/index.html", "en/gpus/*/index.html",
                    *(f"{lang}/{slug}/index.html" for lang, slugs in USE_CASE_PAGES.items() for slug in slugs)):
        for path in sorted(built_site.glob(pattern)):
            found[path.relative_to(built_site).as_posix()] = lxml_html.fromstring(path.read_bytes())
    return found


@pytest.fixture(scope="module")
def sitemap(built_site: Path, dataset: Dataset) -> set[str]:
    """The pages sitemap.xml lists, as paths in site/."""
    base = dataset.config.base_url.rstrip("/")
    tree = etree.parse(str(built_site / "sitemap.xml"))
    locations = tree.xpath("//s:url/s:loc/text()", namespaces={"s": "http://www.sitemaps.org/schemas/sitemap/0.9"})
    return {loc.removeprefix(base).lstrip("/") + "index.html" for loc in locations}


def weighed(a: Gpu, b: Gpu) -> bool:
    """The relevance rule, restated: the larger memory at most three times the smaller."""
    low, high = sorted((Fraction(str(a.memory_gb)), Fraction(str(b.memory_gb))))
    return high <= 3 * low


def resolve(page: str, href: str) -> str:
    target = posixpath.normpath(posixpath.join(posixpath.dirname(page), href))
    return posixpath.join(target, "index.html") if href.endswith("/") else target


def noindex(root) -> bool:
    return bool(root.xpath('//meta[@name="robots"][contains(@content, "noindex")]'))


def text(element) -> str:
    """As a reader reads it: spaces collapsed, the "(better)" mark of comparison tables left out."""
    element = copy.deepcopy(element)
    for mark in element.xpath('.//*[@class="better-mark"]'):
        mark.drop_tree()
    return " ".join(element.text_content().replace("\u00a0", " ").replace("\u202f", " ").split())


def real_pairs(dataset: Dataset, lang: str) -> list[tuple[Gpu, Gpu, str]]:
    """Every pair in catalogue order, with its page's path."""
    return [(dataset.gpus[a], dataset.gpus[b], f"{FOLDERS[lang]}/{a}-vs-{b}/index.html")
            for a, b in itertools.combinations(dataset.gpus, 2)]


# --- both orders, and the index -------------------------------------------------------------------

def test_the_other_order_of_every_pair_is_a_redirect_to_its_page(pages, sitemap, dataset):
    base = dataset.config.base_url.rstrip("/")
    for lang in FOLDERS:
        for a, b, path in real_pairs(dataset, lang):
            assert path in pages and not pages[path].xpath('//meta[@http-equiv="refresh"]'), path
            other = f"{FOLDERS[lang]}/{b.id}-vs-{a.id}/index.html"
            root = pages[other]
            (refresh,) = root.xpath('//meta[@http-equiv="refresh"]/@content')
            assert resolve(other, refresh.split("url=", 1)[1]) == path
            (canonical,) = root.xpath('//link[@rel="canonical"]/@href')
            assert canonical == f"{base}/{path.removesuffix('index.html')}"
            links = root.xpath("//body//a/@href")
            assert [resolve(other, href) for href in links] == [path]  # a visible link, for readers without refresh
            assert noindex(root) and other not in sitemap
            assert root.get("lang") == lang and root.xpath("//title/text()") == pages[path].xpath("//title/text()")


def test_only_the_pairs_buyers_weigh_are_indexed_and_in_the_sitemap(pages, sitemap, dataset):
    counts = {}
    for lang in FOLDERS:
        indexed = 0
        for a, b, path in real_pairs(dataset, lang):
            root = pages[path]
            if weighed(a, b):
                indexed += 1
                assert not noindex(root) and path in sitemap, path
                assert root.xpath('//link[@rel="alternate"][@hreflang]'), path
            else:
                assert noindex(root) and path not in sitemap, path
                assert not root.xpath('//link[@rel="alternate"][@hreflang]'), path
        counts[lang] = indexed
        # The index links exactly the indexed pairs.
        index = f"{FOLDERS[lang]}/index.html"
        linked = {resolve(index, href) for href in pages[index].xpath("//main//ul//a/@href")}
        assert linked == {path for a, b, path in real_pairs(dataset, lang) if weighed(a, b)}
        assert pages[index].xpath("//form[contains(@class, 'compare-picker')]")  # and the form opens any pair
    n = len(dataset.gpus)
    assert counts["fr"] == counts["en"] and 0 < counts["en"] < n * (n - 1) // 2
    # The real catalogue: the 24 GB cards against the 288 GB GPUs are out, H100 SXM against H200 in.
    assert not weighed(dataset.gpus["a10"], dataset.gpus["b300"]) and weighed(dataset.gpus["h100-sxm"], dataset.gpus["h200"])


# --- the bottom lines ----------------------------------------------------------------------------

def printed(root) -> dict[str, tuple[str, str]]:
    """Column id → the two GPUs' cells as the page's comparison tables print them."""
    cells = {}
    for row in root.xpath('//table[contains(@class, "comparison-table")]/tbody/tr[@data-column]'):
        values = row.xpath("./td")[:2]
        cells[row.get("data-column")] = (text(values[0]), text(values[1]))
    return cells


SUFFIXES = {"B": 10**9, "Md": 10**9, "T": 10**12, "Bn": 10**12, "M": 10**6}


def number(figure: str, lang: str) -> Fraction:
    """The number a cell or a figure prints: ``≈ 30B`` → 30 × 10⁹, ``from $2.88`` → 2.88, ``1 307 TFLOPS`` → 1,307."""
    match = re.search(r"(\d[\d,. ]*)\s*(Md|Bn|B|T|M)?\b", figure)
    assert match, figure
    digits = match[1].strip().rstrip(".,").replace(" ", "")
    digits = digits.replace(",", "") if lang == "en" else digits.replace(".", "").replace(",", ".")
    return Fraction(digits) * SUFFIXES.get(match[2] or "", 1)


def order(cells: tuple[str, str], lang: str, lower_is_better: bool = False) -> int | None:
    """0 or 1: the better of two printed cells; None: equal as printed (or within a thousandth)."""
    if cells[0] == cells[1]:
        return None
    a, b = number(cells[0], lang), number(cells[1], lang)
    if b and abs(a / b - 1) < Fraction(1, 2000):
        return None
    return 0 if (a > b) != lower_is_better else 1


def has_number(cell: str) -> bool:
    return bool(re.search(r"\d", cell))


def test_every_bottom_line_names_the_gpu_its_pages_tables_make_the_choice(pages, dataset):
    checked = set()
    for lang in FOLDERS:
        yes = "Yes" if lang == "en" else "Oui"
        for a, b, path in real_pairs(dataset, lang):
            root, ids = pages[path], (a.id, b.id)
            cells = printed(root)
            offered = [has_number(cell) for cell in cells["price"]]
            for line in root.xpath("//*[@data-use-case-summary]"):
                verdict, pick = line.get("data-verdict"), line.get("data-pick") or None
                chosen = ids.index(pick) if pick else None
                where = f"{path} [{line.get('data-use-case')}] {verdict}: {text(line)}"
                if verdict == "only":  # the other GPU lacks the requirement: no table for the use case
                    column = line.get("data-requirement")
                    if column in cells:  # ray-tracing hardware: a specification
                        meets = [cell == yes for cell in cells[column]]
                    else:  # useful FP64: at least a tenth of the FP32 throughput, both printed above
                        assert column == "fp64_useful", where
                        meets = [has_number(fp64) and 10 * number(fp64, lang) >= number(fp32, lang)
                                 for fp64, fp32 in zip(cells["fp64"], cells["fp32"])]
                    assert meets[chosen] and not meets[1 - chosen], where
                    continue
                cap = cells[line.get("data-capacity")] if line.get("data-capacity") else None
                speed = cells[line.get("data-speed")] if line.get("data-speed") else None
                cost = cells[line.get("data-cost")] if line.get("data-cost") else None
                lead = lambda pair, low=False: order(pair, lang, low) if pair is not None else None  # noqa: E731
                if verdict.startswith("paper"):
                    assert offered != [True, False] and offered != [False, True], where
                elif verdict.startswith(("offered", "unoffered")):
                    assert offered[chosen] and not offered[1 - chosen], where
                else:
                    assert all(offered), where
                expected = {
                    "dominant": lambda: lead(cap) == chosen and lead(cost, True) in (chosen, None),
                    "split": lambda: lead(cap) == chosen and lead(cost, True) == 1 - chosen,
                    "cheaper": lambda: lead(cap) is None and lead(cost, True) == chosen and lead(speed) is None,
                    "faster-cheaper": lambda: lead(cap) is None and lead(cost, True) == chosen == lead(speed),
                    "per-dollar": lambda: lead(cap) is None and lead(cost, True) == chosen and lead(speed) == 1 - chosen,
                    "faster": lambda: lead(cap) is None and lead(cost, True) is None and lead(speed) == chosen,
                    "tie": lambda: chosen is None and lead(cap) is None and lead(cost, True) is None and lead(speed) is None,
                    "paper-more": lambda: lead(cap) == chosen,
                    "paper-faster": lambda: lead(cap) is None and lead(speed) == chosen,
                    "paper-tie": lambda: chosen is None and lead(cap) is None and lead(speed) is None,
                    "offered-more": lambda: lead(cap) == chosen,
                    "offered-faster": lambda: lead(cap) is None and lead(speed) == chosen,
                    "offered-tie": lambda: lead(cap) is None and lead(speed) is None,
                    "unoffered-more": lambda: lead(cap) == 1 - chosen,
                    "unoffered-faster": lambda: lead(cap) is None and lead(speed) == 1 - chosen,
                }
                assert verdict in expected, where
                assert expected[verdict](), where
                checked.add(verdict)
    assert len(checked) >= 10, checked


def test_the_figures_of_a_bottom_line_are_its_pages_figures_each_once(pages, dataset):
    stated = 0
    for lang in FOLDERS:
        for a, b, path in real_pairs(dataset, lang):
            root = pages[path]
            cells = printed(root)
            lines = root.xpath("//*[@data-use-case-summary]")
            sentences = [text(line.xpath("./dd")[0]) for line in lines]
            assert len(sentences) == len(set(sentences)), f"{path}: two use cases read the same"
            for line in lines:
                figures = line.xpath('.//span[@class="figure"]')
                assert len({text(f) for f in figures}) == len(figures), f"{path}: a figure twice in {text(line)}"
                for figure in figures:
                    criterion, shown = figure.get("data-criterion"), text(figure)
                    column = line.get(f"data-{criterion}")
                    pair = cells[column]
                    where = f"{path}: {shown} ({criterion}, {column}) in {text(line)}"
                    if "%" in shown or not re.search(r"[A-Za-z$]", shown):  # a difference: 31 %, 3.2 (times)
                        high, low = sorted((number(pair[0], lang), number(pair[1], lang)), reverse=True)
                        digits = re.search(r"[\d.,]+", shown)[0]
                        decimals = len(re.split(r"[.,]", digits)[1]) if re.search(r"[.,]", digits) else 0
                        stated_value = number(shown, lang)
                        actual = ((1 - low / high) * 100 if criterion == "cost" else (high / low - 1) * 100) \
                            if "%" in shown else high / low
                        assert abs(actual - stated_value) <= Fraction(1, 2 * 10**decimals), where
                    else:
                        assert shown in pair, where  # a capacity or a speed as the table prints it
                    stated += 1
    assert stated > 1000


def test_rendering_rows_and_bottom_lines_only_for_gpus_with_ray_tracing_hardware(pages, dataset):
    shown = 0
    for lang in FOLDERS:
        for a, b, path in real_pairs(dataset, lang):
            root = pages[path]
            rendering_tables = [section for section in root.xpath("//section[.//table]")
                                if any(href.rstrip("/").endswith(RENDERING[lang]) for href in section.xpath("./h2/a/@href"))]
            lines = root.xpath('//*[@data-use-case-summary][@data-use-case="rendering"]')
            both, either = a.ray_tracing and b.ray_tracing, a.ray_tracing or b.ray_tracing
            assert bool(rendering_tables) == bool(both), path
            assert bool(lines) == bool(either), path
            for line in lines:
                assert dataset.gpus[line.get("data-pick")].ray_tracing if line.get("data-pick") else both, path
            shown += len(rendering_tables)
    assert shown > 0


# --- where pairs are linked from -----------------------------------------------------------------

def test_use_case_pages_link_a_handful_of_indexed_pairs_of_their_own_gpus(pages, dataset):
    for lang, slugs in USE_CASE_PAGES.items():
        for slug in slugs:
            path = f"{lang}/{slug}/index.html"
            root = pages[path]
            table_gpus = set(root.xpath('//table[@id="gpu-table"]/tbody/tr/@data-gpu'))
            links = [resolve(path, href) for href in root.xpath('//ul[contains(@class, "comparison-links")]//a/@href')]
            assert 1 <= len(links) <= MAX_USE_CASE_PAIRS, path
            assert len(links) == len(set(links)), path
            for target in links:
                assert not noindex(pages[target]), f"{path} links {target}, which is not indexed"
                first, second = target.split("/")[-2].split("-vs-")
                assert {first, second} <= table_gpus, f"{path}: {target}"
                if slug == RENDERING[lang]:
                    assert dataset.gpus[first].ray_tracing and dataset.gpus[second].ray_tracing, target
            assert root.xpath("//form[contains(@class, 'compare-picker')]"), path


def test_a_gpu_pages_form_opens_on_that_gpu_and_its_closest_alternative(pages, dataset):
    catalogue = list(dataset.gpus)
    for lang, folder in (("fr", "fr/gpu"), ("en", "en/gpus")):
        for gpu_id, gpu in dataset.gpus.items():
            root = pages[f"{folder}/{gpu_id}/index.html"]
            chosen = root.xpath('//form[contains(@class, "compare-picker")]//select/@data-chosen')
            assert chosen[0] == gpu_id and chosen[1] != gpu_id, (lang, gpu_id, chosen)
            others = [other for other in dataset.gpus.values() if other.id != gpu_id and weighed(gpu, other)]

            def distance(other: Gpu) -> tuple[Fraction, Fraction, int]:
                memory = sorted((Fraction(str(gpu.memory_gb)), Fraction(str(other.memory_gb))))
                bandwidth = sorted((Fraction(str(gpu.bandwidth_gbs or 1)), Fraction(str(other.bandwidth_gbs or 1))))
                return memory[1] / memory[0], bandwidth[1] / bandwidth[0], catalogue.index(other.id)

            if others:
                assert chosen[1] == min(others, key=distance).id, (lang, gpu_id, chosen)
    # The RTX 4090's page opens on the RTX 3090 (24 GB each, 1,008 against 936 GB/s), not on B300 vs B200.
    root = pages["en/gpus/rtx-4090/index.html"]
    assert root.xpath('//form[contains(@class, "compare-picker")]//select/@data-chosen') == [
        "rtx-4090", "rtx-3090"]


def test_every_compare_form_reads_its_gpus_from_the_sites_one_file(built_site: Path, pages, dataset):
    """The form's lists are not in the pages: each form points at one file, which lists every GPU of
    the data in its order, by name (the script fills both lists from it)."""
    assert json.loads((built_site / PICKER_OPTIONS).read_text(encoding="utf-8")) == {
        "gpus": [[gpu_id, gpu.model] for gpu_id, gpu in dataset.gpus.items()]}
    forms = 0
    for path, root in pages.items():
        for form in root.xpath('//form[contains(@class, "compare-picker")]'):
            forms += 1
            assert resolve(path, form.get("data-options")) == PICKER_OPTIONS, path
            assert not form.xpath(".//option"), path
            assert all(chosen in dataset.gpus for chosen in form.xpath(".//select/@data-chosen")), path
    assert forms >= len(dataset.gpus) * 2  # every GPU page in both languages, at least
