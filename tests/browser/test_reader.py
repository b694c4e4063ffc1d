"""What a reader gets, on every page template, in real Chromium (Debian's) through Playwright:
layout at phone and desktop widths, keyboard access, the language switcher, sorting, search,
no console errors, and zero axe-core violations; plus the Nu HTML Checker on every page.
"""

from __future__ import annotations

import re

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from sites import ROOT

pytestmark = pytest.mark.browser

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
VNU = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"

#: One page of every template, in both languages: (French path, English path).
TEMPLATES = {
    "home": ("/fr/", "/en/"),
    "use case": ("/fr/entrainement-llm/", "/en/llm-training/"),
    "guide": ("/fr/guides/choisir-gpu-deep-learning-llm/", "/en/guides/choosing-gpus-deep-learning-llm/"),
    "catalogue": ("/fr/gpu/", "/en/gpus/"),
    "gpu": ("/fr/gpu/h100-sxm/", "/en/gpus/h100-sxm/"),
    "comparison": ("/fr/comparer/h100-sxm-vs-a100-sxm/", "/en/compare/h100-sxm-vs-a100-sxm/"),
    "comparisons": ("/fr/comparer/", "/en/compare/"),
    "models": ("/fr/modeles/", "/en/models/"),
    "model": ("/fr/modeles/llama-3-1-70b/", "/en/models/llama-3-1-70b/"),
    "search": ("/fr/recherche/", "/en/search/"),
    "guides": ("/fr/guides/", "/en/guides/"),
    "not found": ("/fr/404/", "/en/404/"),
}
EVERY_PAGE = [path for pair in TEMPLATES.values() for path in pair] + ["/"]
WIDTHS = [375, 1280]


def open_page(page: Page, url: str, width: int) -> list[str]:
    """Load ``url`` at ``width``; return the console errors it produced."""
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(url)
    page.wait_for_load_state("networkidle")
    return errors


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", EVERY_PAGE)
def test_layout_and_console(page: Page, site_url: str, path: str, width: int):
    errors = open_page(page, site_url + path, width)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{path} scrolls sideways by {overflow}px at {width}px"
    regions = page.locator("[role=region]")
    for index in range(regions.count()):
        region = regions.nth(index)
        # A tab stop exactly where there is something to scroll (tables.js adds and removes it).
        scrolls = region.evaluate("el => el.scrollWidth > el.clientWidth")
        assert (region.get_attribute("tabindex") == "0") == scrolls
        assert region.get_attribute("aria-label") or region.get_attribute("aria-labelledby")
    assert errors == []


def test_wide_tables_scroll_inside_their_region_and_are_reached_by_keyboard(page: Page, site_url: str):
    open_page(page, site_url + TEMPLATES["catalogue"][1], 375)
    region = page.locator("#table-data-centre").locator("xpath=..")
    assert region.evaluate("el => el.scrollWidth > el.clientWidth")
    for _ in range(60):
        page.keyboard.press("Tab")
        if region.evaluate("el => el === document.activeElement"):
            break
    expect(region).to_be_focused()
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("el => el.scrollLeft > 0", arg=region.element_handle())


@pytest.mark.parametrize("template", [name for name in TEMPLATES])
def test_the_language_switcher_lands_on_the_translated_page(page: Page, site_url: str, template: str):
    french, english = TEMPLATES[template]
    open_page(page, site_url + french, 1280)
    page.locator(".language-switcher a[hreflang=en]").click()
    expect(page).to_have_url(site_url + english)
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.locator(".language-switcher a[hreflang=fr]").click()
    expect(page).to_have_url(site_url + french)


def column_values(page: Page, column: str) -> list[str]:
    return page.locator(f"#gpu-table tbody td:nth-child({column})").evaluate_all(
        "cells => cells.map(c => c.getAttribute('data-value'))")


@pytest.mark.parametrize(("path", "header"), [("/fr/reglage-fin/", "Tenseurs BF16"),
                                              ("/en/fine-tuning/", "BF16 tensor")])
def test_sorting_is_numeric_with_not_published_last(page: Page, site_url: str, path: str, header: str):
    open_page(page, site_url + path, 1280)
    button = page.get_by_role("button", name=header)
    th = page.locator("#gpu-table thead th", has=button)
    button.click()
    expect(th).to_have_attribute("aria-sort", "ascending")
    values = column_values(page, "4")  # GPU is column 1, BF16 column 4
    published = [float(v) for v in values if v is not None]
    # From data/gpus.yaml: dense BF16 TFLOPS; NVIDIA publishes none for the RTX 6000 Ada and PRO 6000 Blackwell.
    assert published == sorted(published) == [71, 165.2, 209.5, 312, 312, 362.05, 989, 989, 1307.4, 1307.4]
    assert values[-2:] == [None, None]
    names = page.locator("#gpu-table tbody th .gpu-name").all_inner_texts()
    assert names[0] == "GeForce RTX 3090" and set(names[-2:]) == {"RTX 6000 Ada Generation", "RTX PRO 6000 Blackwell Workstation Edition"}
    button.click()
    expect(th).to_have_attribute("aria-sort", "descending")
    values = column_values(page, "4")
    assert [float(v) for v in values if v is not None] == sorted(published, reverse=True)
    assert values[-2:] == [None, None]


@pytest.mark.parametrize(("path", "header"), [("/fr/inference-llm/", "Prix/h"), ("/en/llm-inference/", "Price/h")])
def test_gpus_without_an_offer_sort_last_by_price_either_way(page: Page, site_url: str, path: str, header: str):
    # data/prices.yaml has no offer for the L4, A10, RTX 4090, RTX 5090 and L40S: their price cell
    # says so (class no-offer), and sorting by price puts them after every priced GPU, both ways.
    open_page(page, site_url + path, 1280)
    button = page.locator("#gpu-table").get_by_role("button", name=header)
    for _ in ("ascending", "descending"):
        button.click()
        states = page.locator("#gpu-table tbody td:nth-child(9)").evaluate_all(
            "cells => cells.map(c => c.classList.contains('no-offer'))")
        prices = [float(v) for v in column_values(page, "9") if v is not None]
        assert states == [False] * 6 + [True] * 5
        assert prices == sorted(prices, reverse=_ == "descending")


def test_sorting_by_formatted_numbers_uses_the_value_not_the_text(page: Page, site_url: str):
    # "2 250 TFLOPS" would sort before "312 TFLOPS" as text; as numbers it comes after.
    open_page(page, site_url + "/fr/entrainement-llm/", 1280)
    page.get_by_role("button", name="Tenseurs BF16").click()
    values = [float(v) for v in column_values(page, "5") if v is not None]
    assert values == sorted(values) and values[-1] == 2250


@pytest.mark.parametrize(("path", "memory", "publisher"), [("/fr/modeles/", "Mémoire, conversation", "Éditeur"),
                                                           ("/en/models/", "Memory, chat workload", "Publisher")])
def test_the_models_index_sorts_each_size_group_by_any_column(page: Page, site_url: str, path: str, memory: str,
                                                              publisher: str):
    # Each size group's table sorts on its own: by the memory a chat needs (data-value, in GB), by
    # the publisher (text), and back to the largest first.
    open_page(page, site_url + path, 1280)
    table = page.locator("section.size-group[data-size='10b-to-40b'] table")
    rows_before = table.locator("tbody tr").count()
    button = table.get_by_role("button", name=memory)
    button.click()
    expect(table.locator("thead th", has=page.get_by_role("button", name=memory))).to_have_attribute(
        "aria-sort", "ascending")
    values = table.locator("tbody td:nth-child(6)").evaluate_all(
        "cells => cells.map(c => parseFloat(c.getAttribute('data-value')))")
    assert len(values) == rows_before > 1 and values == sorted(values)
    button.click()
    values = table.locator("tbody td:nth-child(6)").evaluate_all(
        "cells => cells.map(c => parseFloat(c.getAttribute('data-value')))")
    assert values == sorted(values, reverse=True)
    table.get_by_role("button", name=publisher).click()
    names = table.locator("tbody td:nth-child(2)").all_inner_texts()
    assert names == sorted(names, key=str.casefold)
    # The other groups keep their order: smallest first.
    other = page.locator("section.size-group[data-size='up-to-10b'] tbody td:nth-child(3)").evaluate_all(
        "cells => cells.map(c => parseFloat(c.getAttribute('data-value')))")
    assert other == sorted(other)


@pytest.mark.parametrize(("path", "expected"), [("/fr/recherche/", "/fr/gpu/h100-sxm/"),
                                                ("/en/search/", "/en/gpus/h100-sxm/")])
def test_search_finds_a_gpu_page_in_the_current_language(page: Page, site_url: str, path: str, expected: str):
    errors = open_page(page, site_url + path, 375)
    page.fill("#search-query", "H100 SXM")
    results = page.locator(".search-results li a")
    expect(results.first).to_be_visible(timeout=10_000)
    hrefs = results.evaluate_all("links => links.map(a => new URL(a.href).pathname)")
    assert expected in hrefs
    language = path.split("/")[1]
    assert all(href.startswith(f"/{language}/") for href in hrefs)
    assert errors == []


@pytest.mark.parametrize(("path", "query", "expected"), [
    ("/fr/recherche/", "Blender", "/fr/rendu-3d-effets-visuels/"), ("/en/search/", "Blender", "/en/3d-rendering-vfx/"),
    ("/fr/recherche/", "Stable Diffusion", "/fr/generation-images-videos/"),
    ("/en/search/", "Stable Diffusion", "/en/image-video-generation/")])
def test_search_finds_a_use_case_by_the_software_readers_name(page: Page, site_url: str, path: str, query: str,
                                                              expected: str):
    """The pages' keywords (front matter) are found; excerpts are prose, never table cells run together."""
    open_page(page, site_url + path, 375)
    page.fill("#search-query", query)
    results = page.locator(".search-results li")
    expect(results.first).to_be_visible(timeout=10_000)
    hrefs = results.locator("a").evaluate_all("links => links.map(a => new URL(a.href).pathname)")
    assert expected in hrefs
    for excerpt in results.locator("p").all_inner_texts():
        assert not re.search(r"[a-zé](GPU|Prix|Price|Mémoire|Memory)[A-Z/]", excerpt), excerpt


def test_switching_language_on_the_search_page_keeps_the_query(page: Page, site_url: str):
    open_page(page, site_url + "/fr/recherche/", 1280)
    page.fill("#search-query", "H100 SXM")
    expect(page.locator(".search-results li").first).to_be_visible(timeout=10_000)
    page.locator(".language-switcher a[hreflang=en]").click()
    page.wait_for_url("**/en/search/**")
    expect(page.locator("#search-query")).to_have_value("H100 SXM")
    expect(page.locator(".search-results li").first).to_be_visible(timeout=10_000)


@pytest.fixture(scope="module")
def axe_page(browser: Browser):
    # Only the axe tests bypass the page's CSP: they inject axe-core as an inline script.
    context = browser.new_context(bypass_csp=True)
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", EVERY_PAGE)
def test_axe_reports_no_violations(axe_page: Page, site_url: str, path: str, width: int):
    axe_page.set_viewport_size({"width": width, "height": 900})
    axe_page.goto(site_url + path)
    axe_page.add_script_tag(path=str(AXE))
    result = axe_page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    violations = [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in result["violations"]]
    assert violations == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_colour_contrast_in_both_schemes(axe_page: Page, site_url: str, scheme: str):
    axe_page.emulate_media(color_scheme=scheme)
    axe_page.goto(site_url + TEMPLATES["use case"][0])
    axe_page.add_script_tag(path=str(AXE))
    result = axe_page.evaluate("() => axe.run(document, {runOnly: ['color-contrast']})")
    assert [v["id"] for v in result["violations"]] == []


def test_nu_html_checker_finds_no_error_on_any_page(built_site: Path):
    java = shutil.which("java")
    assert java, "the Nu HTML Checker needs Java (apt-get install default-jre-headless)"
    result = subprocess.run([java, "-jar", str(VNU), "--errors-only", "--skip-non-html", "--format", "json",
                             str(built_site)], capture_output=True, text=True, timeout=600)
    messages = json.loads(result.stderr or result.stdout)["messages"]
    errors = [f"{m.get('url', '').split('/site/')[-1]}: {m['message']}" for m in messages]
    assert errors == []
    assert len(list(built_site.rglob("*.html"))) > 400
