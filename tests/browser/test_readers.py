"""Readers on every screen, in real Chromium: every table of every page type at 320, 375, 414, 768
and 1,280 px, both colour schemes under axe, print, search, the header and its menu.

The tables test measures each table (``table_metrics.js``) and writes what it found, per page type
and width, to ``tests/artifacts/tables.md`` (and ``.json``), with a screenshot of each page type
at each width in ``tests/artifacts/screenshots/`` (the folder is not versioned).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from sites import ROOT, load_in_browser

pytestmark = pytest.mark.browser

ARTIFACTS = ROOT / "tests" / "artifacts"
METRICS = (Path(__file__).parent / "table_metrics.js").read_text(encoding="utf-8")
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
WIDTHS = [320, 375, 414, 768, 1280]
STICKY_SHARE = 0.41  # "about 40 %" of the scroll region

#: Every page type, in both languages; the pages with the most tables or the longest names.
PAGE_TYPES: dict[str, tuple[str, ...]] = {
    "home": ("/fr/", "/en/"),
    "use case": ("/fr/entrainement-llm/", "/en/llm-training/", "/fr/reglage-fin/", "/en/fine-tuning/",
                 "/fr/inference-llm/", "/en/llm-inference/", "/fr/generation-images-videos/",
                 "/en/image-video-generation/", "/fr/rendu-3d-effets-visuels/", "/en/3d-rendering-vfx/",
                 "/fr/calcul-scientifique/", "/en/scientific-computing/"),
    "catalogue": ("/fr/gpu/", "/en/gpus/"),
    "gpu": ("/fr/gpu/rtx-pro-6000-blackwell/", "/en/gpus/h100-sxm/"),
    "comparison": ("/fr/comparer/rtx-pro-6000-blackwell-vs-rtx-6000-ada/", "/en/compare/h100-sxm-vs-a100-sxm/",
                   "/fr/comparer/mi355x-vs-rtx-3090/"),
    "comparisons": ("/fr/comparer/", "/en/compare/"),
    "guides": ("/fr/guides/", "/en/guides/"),
    "guide": ("/fr/guides/choisir-gpu-deep-learning-llm/", "/en/guides/choosing-gpus-deep-learning-llm/"),
    "methodology": ("/fr/methodologie/", "/en/methodology/"),
    "models": ("/fr/modeles/", "/en/models/"),
    "model": ("/fr/modeles/llama-3-1-70b/", "/en/models/mistral-small-3-1-24b/", "/fr/modeles/flux-1-dev/",
              "/en/models/deepseek-r1/"),
    "search": ("/fr/recherche/", "/en/search/"),
    "not found": ("/fr/404/", "/en/404/"),
    "root": ("/", "/404.html"),
}
PAGES = [(kind, path) for kind, paths in PAGE_TYPES.items() for path in paths]


load = load_in_browser


@pytest.fixture(scope="session")
def table_report():
    """Collects each table's measures; written to tests/artifacts/ when the session ends."""
    rows: list[dict] = []
    yield rows
    if not rows:
        return
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "tables.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")
    lines = ["| page type | page | width | table | region px | sticky column share | visible data columns | scrolls |",
             "|---|---|--:|---|--:|--:|--:|---|"]
    for row in rows:
        share = "–" if row["stickyShare"] is None else f"{row['stickyShare']:.0%}"
        lines.append(f"| {row['type']} | {row['page']} | {row['width']} | {row['caption'][:48]} | {row['region']} "
                     f"| {share} | {row['visibleDataColumns']} of {row['dataColumns']} | {'yes' if row['scrolls'] else 'no'} |")
    (ARTIFACTS / "tables.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize(("kind", "path"), PAGES, ids=[path for _, path in PAGES])
def test_every_table_is_readable_at_every_width(page: Page, site_url: str, kind: str, path: str, width: int,
                                               table_report: list):
    errors = load(page, site_url + path, width)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow}px"
    tables = page.evaluate(METRICS)
    for table in tables:
        table_report.append({"type": kind, "page": path, "width": width, **table})
        name = f"{path} at {width}px, table “{table['caption']}”"
        assert table["caption"], f"{name}: no caption"
        assert table["labelled"], f"{name}: its region has no name"
        if table["sticky"]:
            assert table["stickyShare"] <= STICKY_SHARE, f"{name}: the sticky column takes {table['stickyShare']:.0%}"
        assert table["visibleDataColumns"] >= min(2, table["dataColumns"]), f"{name}: too few columns in view"
        assert table["overflowing"] == [], f"{name}: text overflows its cell"
        assert table["split"] == [], f"{name}: words cut across lines"
        if table["scrolls"]:
            assert table["focusable"] and table["hintShown"], f"{name}: scrolls without a hint or a tab stop"
    assert errors == []
    name = screenshot_name(kind, path)
    if name:  # one screenshot per page type, language and width, for review
        folder = ARTIFACTS / "screenshots"
        folder.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(folder / f"{name}-{width}.jpg"), full_page=True, type="jpeg", quality=55)


def screenshot_name(kind: str, path: str) -> str | None:
    """``use-case-fr`` for the first French page of a type, ``use-case-en`` for its first English
    one, ``root`` and ``root-404`` for the two pages of no language; None for the other pages."""
    slug = re.sub(r"[^a-z0-9]+", "-", kind)
    lang = path.split("/")[1]
    if lang not in ("fr", "en"):
        return slug if path == "/" else f"{slug}-404"
    first = next(other for other in PAGE_TYPES[kind] if other.split("/")[1] == lang)
    return f"{slug}-{lang}" if path == first else None


@pytest.fixture(scope="module")
def axe_page(browser: Browser):
    context = browser.new_context(bypass_csp=True)  # axe-core is injected as an inline script
    yield context.new_page()
    context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [375, 1280])
@pytest.mark.parametrize(("kind", "path"), [(kind, paths[0]) for kind, paths in PAGE_TYPES.items()],
                         ids=list(PAGE_TYPES))
def test_axe_finds_nothing_on_any_page_type_in_either_scheme(axe_page: Page, site_url: str, kind: str, path: str,
                                                             width: int, scheme: str):
    axe_page.emulate_media(color_scheme=scheme)
    axe_page.set_viewport_size({"width": width, "height": 900})
    axe_page.goto(site_url + path)
    axe_page.wait_for_load_state("networkidle")
    axe_page.add_script_tag(path=str(AXE))
    result = axe_page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    assert [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in result["violations"]] == []


def test_the_search_box_border_stands_out_in_both_schemes(page: Page, site_url: str):
    """WCAG 1.4.11: a form field's border has 3:1 against its background."""
    def luminance(rgb: str) -> float:
        values = [int(v) / 255 for v in re.findall(r"\d+", rgb)[:3]]
        return sum(w * (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4)
                   for w, c in zip((0.2126, 0.7152, 0.0722), values))

    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        load(page, site_url + "/fr/", 1280)
        border, background = page.locator("#header-search-input").evaluate(
            "el => [getComputedStyle(el).borderTopColor, getComputedStyle(document.body).backgroundColor]")
        high, low = sorted((luminance(border), luminance(background)), reverse=True)
        assert (high + 0.05) / (low + 0.05) >= 3, scheme


@pytest.mark.parametrize("path", ["/fr/entrainement-llm/", "/en/gpus/h100-sxm/", "/fr/guides/choisir-gpu-deep-learning-llm/",
                                  "/en/gpus/"])
def test_print_shows_every_faq_answer_and_the_content_only(page: Page, site_url: str, path: str):
    # An A4 page's width at 96 dpi; the catalogue prints on landscape pages (its fifteen columns).
    load(page, site_url + path, 1123 if path == "/en/gpus/" else 794)
    page.emulate_media(media="print")
    answers = page.locator(".faq-answer")
    for index in range(answers.count()):  # closed, and still printed (CSS, where the browser allows it)
        expect(answers.nth(index)).to_be_visible()
    page.evaluate("() => window.dispatchEvent(new Event('beforeprint'))")
    assert page.locator(".faq details:not([open])").count() == 0  # opened for the print (site.js)
    for hidden in (".site-nav", ".header-search", ".language-switcher", ".site-footer", ".breadcrumbs", ".toc",
                   ".comparison-links", ".link-columns", ".call-to-action"):
        for index in range(page.locator(hidden).count()):
            expect(page.locator(hidden).nth(index)).to_be_hidden()
    wide = page.evaluate("""() => Array.from(document.querySelectorAll('main table'))
        .filter(t => t.getBoundingClientRect().right > document.documentElement.clientWidth + 1).length""")
    assert wide == 0, "a table is cut off in print"
    page.evaluate("() => window.dispatchEvent(new Event('afterprint'))")
    assert page.locator(".faq details[open]").count() == 0


def results_shown(page: Page) -> int:
    return page.locator(".search-results li").count()


@pytest.mark.parametrize(("start", "query", "language"), [("/fr/", "mémoire", "fr"), ("/en/", "memory", "en")])
def test_search_from_the_header_counts_like_pagefind_keeps_the_query_and_stays_in_its_language(
        page: Page, site_url: str, start: str, query: str, language: str):
    errors = load(page, site_url + start, 375)
    page.fill("#header-search-input", query)
    page.keyboard.press("Enter")
    expect(page.locator(".search-results li").first).to_be_visible(timeout=10_000)
    assert f"q={query}" in page.url.replace("%C3%A9", "é")
    total = page.evaluate("q => import('/pagefind/pagefind.js').then(m => m.search(q)).then(r => r.results.length)",
                          query)
    status = page.locator(".search-status").inner_text()
    assert int(re.sub(r"\D", "", status)) == total > 20
    shown = results_shown(page)
    assert shown < total
    more = page.locator('.search-group[data-group="pages"] .search-more')
    if more.is_visible():
        more.click()
        expect(page.locator(".search-results li")).not_to_have_count(shown)
    comparisons = page.locator('.search-group[data-group="comparison"]')
    hrefs = page.locator(".search-results li > a").evaluate_all("links => links.map(a => new URL(a.href).pathname)")
    assert hrefs and all(href.startswith(f"/{language}/") for href in hrefs)
    pages_first = page.locator('.search-group[data-group="pages"] .search-results li > a').evaluate_all(
        "links => links.map(a => new URL(a.href).pathname)")
    assert not any("-vs-" in href for href in pages_first)  # the comparisons come after, apart
    if comparisons.is_visible():
        assert all("-vs-" in href for href in comparisons.locator("li > a").evaluate_all(
            "links => links.map(a => new URL(a.href).pathname)"))
    # Back from a result: the query and its results are there again.
    page.locator(".search-results li > a").first.click()
    page.wait_for_load_state()
    page.go_back()
    expect(page.locator("#search-query")).to_have_value(query)
    expect(page.locator(".search-results li").first).to_be_visible(timeout=10_000)
    assert errors == []


def test_a_search_address_can_be_shared(page: Page, site_url: str):
    load(page, site_url + "/en/search/?q=H100%20SXM", 1280)
    expect(page.locator("#search-query")).to_have_value("H100 SXM")
    expect(page.locator(".search-results a[href$='/gpus/h100-sxm/']").first).to_be_visible(timeout=10_000)


def test_without_javascript_search_shows_no_dead_box(browser: Browser, site_url: str):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + "/fr/recherche/")
    expect(page.locator(".search-form")).to_be_hidden()
    expect(page.locator("main noscript, main p").filter(has_text="JavaScript").first).to_be_visible()
    page.goto(site_url + "/fr/gpu/")  # the header's box is a form: it takes the query to the search page
    page.fill("#header-search-input", "H100")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith("/fr/recherche/?q=H100")
    context.close()


@pytest.mark.parametrize("width", [320, 375, 414])
def test_on_a_phone_the_header_takes_two_rows_at_most(page: Page, site_url: str, width: int):
    """The name and the menu button, then the search box and the other language: two rows of 44 px
    controls (tests/browser/test_navigation.py tests the menu)."""
    load(page, site_url + "/fr/entrainement-llm/", width)
    height = page.locator(".site-header").bounding_box()["height"]
    assert height <= 2 * 44 + 40, f"the header is {height}px tall"
    expect(page.locator("#header-search-input")).to_be_visible()
    assert page.locator("#header-search-input").bounding_box()["height"] >= 44


def test_the_use_cases_menu_closes_on_escape_and_outside_clicks(page: Page, site_url: str):
    load(page, site_url + "/en/", 1280)
    summary = page.locator(".site-nav details summary")
    summary.click()
    expect(page.locator(".site-nav details")).to_have_attribute("open", "")
    page.keyboard.press("Escape")
    expect(page.locator(".site-nav details[open]")).to_have_count(0)
    expect(summary).to_be_focused()
    summary.click()
    page.mouse.click(1260, 880)  # on the page, away from the open menu
    expect(page.locator(".site-nav details[open]")).to_have_count(0)


def test_sort_buttons_are_named_by_their_header_alone(page: Page, site_url: str):
    load(page, site_url + "/en/llm-training/", 1280)
    button = page.get_by_role("button", name="Bandwidth", exact=True)
    expect(button).to_be_visible()
    button.focus()
    outline = button.evaluate("el => getComputedStyle(el).outlineStyle")
    assert outline == "solid"


def test_the_better_value_is_marked_in_words_not_colour_alone(page: Page, site_url: str):
    load(page, site_url + "/en/compare/h100-sxm-vs-a100-sxm/", 375)
    row = page.locator("#specifications-caption").locator("xpath=..").locator("tr[data-column=bf16]")
    better = row.locator("td.better")
    expect(better).to_have_count(1)
    expect(better.locator(".better-mark")).to_have_text("(better)")
    assert better.locator("strong").evaluate("el => getComputedStyle(el).fontWeight") == "700"


@pytest.mark.parametrize("width", [375, 1280])
def test_long_pages_read_at_a_measure_with_their_contents(page: Page, site_url: str, width: int):
    load(page, site_url + "/fr/guides/choisir-gpu-deep-learning-llm/", width)
    characters = page.evaluate("""() => {
        const paragraph = Array.from(document.querySelectorAll('.page-body > p')).find(p => p.textContent.length > 400);
        const node = paragraph.firstChild, range = document.createRange();
        range.setStart(node, 0); range.setEnd(node, 1);
        const top = range.getBoundingClientRect().top;
        for (let i = 1; i < node.length; i++) {
            range.setStart(node, i); range.setEnd(node, i + 1);
            if (range.getBoundingClientRect().top > top + 2) return i;
        }
        return node.length;
    }""")
    if width == 1280:
        assert 60 <= characters <= 80, characters
    toc = page.locator("nav.toc a")
    assert toc.count() >= 8
    target = toc.nth(2).get_attribute("href")
    heading = page.locator(f'[id="{target[1:]}"]')
    expect(heading).to_have_count(1)
    assert heading.locator("a.heading-link").get_attribute("href") == target


def test_chart_text_keeps_its_size_at_every_width(page: Page, site_url: str):
    sizes = []
    for width in (375, 1280):
        load(page, site_url + "/fr/entrainement-llm/", width)
        sizes.append(page.locator(".chart-label").first.evaluate("el => parseFloat(getComputedStyle(el).fontSize)"))
    assert sizes[0] == sizes[1] and 13 <= sizes[0] <= 18


@pytest.mark.parametrize("path", ["/en/compare/h100-sxm-vs-a100-sxm/", "/fr/guides/choisir-gpu-deep-learning-llm/"])
def test_tables_laid_out_for_a_phone_keep_their_table_roles(page: Page, site_url: str, path: str):
    """A comparison grid and a table of sentences shown as cards are still tables to a screen
    reader: rows, row headers and cells (tables.js sets the roles the display would drop)."""
    load(page, site_url + path, 375)
    table = page.locator("table.comparison-table, .table-scroll.prose > table").first
    expect(table).to_have_attribute("role", "table")
    assert table.get_by_role("rowheader").count() >= 3
    assert table.get_by_role("cell").count() >= 6


#: Pages whose tables scroll on a phone: many columns, long headers, long captions.
WIDE_TABLES = ["/en/llm-inference/", "/fr/gpu/", "/en/models/llama-3-1-70b/", "/fr/gpu/h100-sxm/", "/en/models/",
               "/fr/guides/choisir-gpu-deep-learning-llm/"]


@pytest.mark.parametrize("width", [320, 375, 414])
@pytest.mark.parametrize("path", WIDE_TABLES)
def test_on_a_phone_headers_stay_short_captions_whole_and_the_first_column_in_line(page: Page, site_url: str,
                                                                                  path: str, width: int):
    """A header row of a few lines; a caption wrapped inside the visible part of its region, before
    and after scrolling; the sticky first column where it was, in line on every row, after a
    sideways scroll with the wheel (a real scroll, not a script's)."""
    load(page, site_url + path, width)
    regions = page.locator(".table-scroll.scrolls")
    assert regions.count() >= 1
    for index in range(regions.count()):
        region = regions.nth(index)
        region.evaluate("el => el.scrollIntoView({block: 'start'})")  # the wheel turns over it
        name = f"{path} at {width}px, table {index}"
        head = region.evaluate("el => { const t = el.querySelector('table'); return t.tHead ? t.tHead.rows[0].getBoundingClientRect().height : 0; }")
        assert head <= 130, f"{name}: a header row {head}px tall"
        def measure() -> dict:
            return region.evaluate("""el => {
                const box = el.getBoundingClientRect(), table = el.querySelector('table'), caption = table.caption;
                const shown = caption && getComputedStyle(caption).clipPath === 'none' && caption.getClientRects().length;
                const captionBox = shown ? caption.getBoundingClientRect() : null;
                return {
                    caption: captionBox ? [captionBox.left - box.left, box.right - captionBox.right] : null,
                    firsts: Array.from(table.rows).map(row => Math.round(row.cells[0].getBoundingClientRect().left * 2) / 2),
                    sticky: getComputedStyle(table.rows[table.rows.length - 1].cells[0]).position === 'sticky',
                    scrollLeft: el.scrollLeft,
                };
            }""")
        before = measure()
        box = region.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 200))
        page.mouse.wheel(240, 0)
        page.wait_for_function("el => el.scrollLeft > 0", arg=region.element_handle())
        page.wait_for_timeout(150)
        after = measure()
        for state in (before, after):
            if state["caption"]:
                assert min(state["caption"]) >= -1, f"{name}: the caption is cut off ({state['caption']})"
        if before["sticky"]:
            assert len(set(after["firsts"])) == 1, f"{name}: the first column is out of line after a scroll"
            assert after["firsts"] == before["firsts"], f"{name}: the first column moved"


@pytest.mark.parametrize(("path", "column"), [("/en/llm-inference/", "Price/h"), ("/fr/entrainement-llm/", "Prix/h"),
                                              ("/en/models/llama-3-1-70b/", "Verdict")])
def test_on_a_phone_the_key_columns_are_a_choice_away(page: Page, site_url: str, path: str, column: str):
    """A scrolling table has a "Go to column" select: choosing a column brings it next to the first."""
    load(page, site_url + path, 375)
    region = page.locator(".table-scroll.scrolls").filter(has=page.locator(f"th:has-text('{column}')")).first
    jump = page.locator(".column-jump").filter(has=page.locator(f"option:has-text('{column}')")).first
    expect(jump).to_be_visible()
    select = jump.locator("select")
    assert select.bounding_box()["height"] >= 44
    header = region.locator("thead th").filter(has_text=column).first
    assert header.bounding_box()["x"] > page.viewport_size["width"]  # off-screen before
    label = select.locator("option").filter(has_text=column).first.inner_text()
    select.select_option(label=label)
    page.wait_for_function("el => el.scrollLeft > 0", arg=region.element_handle())
    page.wait_for_timeout(200)
    box, area = header.bounding_box(), region.bounding_box()
    assert box["x"] >= area["x"] and box["x"] + box["width"] <= area["x"] + area["width"] + 1
    expect(select).to_have_value(select.locator("option").filter(has_text=column).first.get_attribute("value"))
