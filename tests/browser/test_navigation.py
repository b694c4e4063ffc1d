"""The header on every screen, in real Chromium: on a phone (320 to 414 px) a disclosure menu (a
button with aria-expanded and aria-controls, the whole menu on screen when open, closed by Escape,
which gives focus back to the button, and by a click outside); nothing of the header off-screen;
without JavaScript the menu's link leads to the same links in the footer. On a tablet and a desktop
the navigation is shown. Controls and touch targets of at least 44 px; card links not underlined;
one call to action per page, worded after the market's state.
"""

from __future__ import annotations

import re

import pytest
import yaml
from playwright.sync_api import Browser, Page, expect
from sites import ROOT, load_in_browser

pytestmark = pytest.mark.browser

UI = {lang: yaml.safe_load((ROOT / "data" / "ui" / f"{lang}.yaml").read_text(encoding="utf-8"))["strings"]
      for lang in ("fr", "en")}
SITE = yaml.safe_load((ROOT / "data" / "site.yaml").read_text(encoding="utf-8"))
#: A phone's screen at each width (iPhone SE 1st generation's is 320 × 568: the menu then scrolls inside).
PHONES = {320: 640, 360: 780, 375: 812, 414: 896}
PAGES = {"fr": "/fr/entrainement-llm/", "en": "/en/llm-training/"}
TARGET = 44  # px: the smallest control or touch target


def normalise(text: str) -> str:
    """Every kind of space (the French no-break ones the build adds) as one plain space."""
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ").replace("\u202f", " ")).strip()


load = load_in_browser


def off_screen(page: Page, selector: str) -> list[str]:
    """The visible elements under ``selector`` that reach past the left or right edge of the screen."""
    return page.evaluate("""selector => Array.from(document.querySelectorAll(selector)).filter(el => {
        const box = el.getBoundingClientRect();
        return box.width > 0 && box.height > 0 && getComputedStyle(el).visibility !== 'hidden'
            && (box.left < -0.5 || box.right > document.documentElement.clientWidth + 0.5);
    }).map(el => el.tagName + ' ' + el.textContent.trim().slice(0, 30))""", selector)


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("width", list(PHONES))
def test_the_phone_menu_is_a_disclosure_with_the_whole_menu_on_screen(page: Page, site_url: str, width: int, lang: str):
    errors = load(page, site_url + PAGES[lang], width, PHONES[width])
    assert off_screen(page, ".site-header *") == []
    button = page.get_by_role("button", name=UI[lang]["menu_button"], exact=True)
    expect(button).to_be_visible()
    expect(button).to_have_attribute("aria-expanded", "false")
    menu = page.locator("#" + button.get_attribute("aria-controls"))
    expect(menu).to_be_hidden()
    assert button.bounding_box()["height"] >= TARGET

    button.click()
    expect(button).to_have_attribute("aria-expanded", "true")
    expect(menu).to_be_visible()
    links = menu.locator("a:visible")
    # Every use case and every section: the six use cases, GPU models, comparisons, models, guides.
    assert links.count() >= 10
    for index in range(links.count()):
        box = links.nth(index).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, links.nth(index).inner_text()
        assert box["y"] >= 0 and box["y"] + box["height"] <= PHONES[width] + 0.5, links.nth(index).inner_text()
        assert box["height"] >= TARGET, links.nth(index).inner_text()
    assert off_screen(page, ".site-header *") == []

    # Escape closes it and gives focus back to the button.
    links.nth(1).focus()
    page.keyboard.press("Escape")
    expect(button).to_have_attribute("aria-expanded", "false")
    expect(menu).to_be_hidden()
    expect(button).to_be_focused()

    # The keyboard opens it too; Tab goes from the button into the menu.
    page.keyboard.press("Enter")
    expect(button).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Tab")
    assert menu.evaluate("el => el.contains(document.activeElement)")

    # A click outside it (here in the search box: the open menu covers the page) closes it.
    page.locator("#header-search-input").click()
    expect(button).to_have_attribute("aria-expanded", "false")
    expect(menu).to_be_hidden()
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    assert errors == []


@pytest.mark.parametrize("width", [320, 375])
def test_without_javascript_the_menu_leads_to_every_link_listed_in_the_footer(browser: Browser, site_url: str,
                                                                             width: int):
    context = browser.new_context(java_script_enabled=False, viewport={"width": width, "height": 800})
    page = context.new_page()
    page.goto(site_url + PAGES["fr"])
    toggle = page.locator(".menu-toggle")
    expect(toggle).to_be_visible()
    assert toggle.evaluate("el => el.tagName") == "A" and toggle.get_attribute("href") == "#site-map"
    assert off_screen(page, ".site-header *") == []
    header_links = set(page.locator("#site-menu a").evaluate_all(
        "links => links.map(a => a.getAttribute('href'))"))
    footer_links = set(page.locator("#site-map a").evaluate_all("links => links.map(a => a.getAttribute('href'))"))
    assert header_links and header_links <= footer_links
    toggle.click()
    assert page.url.endswith("#site-map")
    expect(page.locator("#site-map")).to_be_in_viewport()
    context.close()


@pytest.mark.parametrize("path", ["/fr/", "/en/gpus/", "/fr/recherche/", "/en/404/", "/fr/comparer/mi355x-vs-rtx-3090/",
                                  "/en/models/deepseek-r1/"])
@pytest.mark.parametrize("width", [320, 360, 375, 414, 768, 1024, 1280])
def test_nothing_of_the_header_is_off_screen(page: Page, site_url: str, path: str, width: int):
    load(page, site_url + path, width)
    assert off_screen(page, ".site-header *, .breadcrumbs *") == []
    header = page.locator(".site-header").bounding_box()["height"]
    assert header <= 2 * TARGET + 40, f"the header is {header}px tall"
    if width >= 768:  # the navigation shown, whole, with no menu button
        expect(page.locator(".menu-toggle")).to_be_hidden()
        for index in range(page.locator(".nav-links > li:visible").count()):
            expect(page.locator(".nav-links > li:visible").nth(index)).to_be_in_viewport(ratio=1)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_the_menu_closes_when_the_screen_becomes_wide(page: Page, site_url: str, lang: str):
    load(page, site_url + PAGES[lang], 375)
    button = page.locator("button.menu-toggle")
    button.click()
    expect(button).to_have_attribute("aria-expanded", "true")
    page.set_viewport_size({"width": 1280, "height": 900})
    expect(button).to_have_attribute("aria-expanded", "false")
    expect(page.locator(".site-nav details[open]")).to_have_count(0)
    expect(page.locator("#site-menu")).to_be_visible()


@pytest.mark.parametrize("path", ["/en/gpus/h100-sxm/", "/fr/modeles/llama-3-1-70b/", "/en/search/", "/fr/gpu/"])
def test_controls_and_targets_are_at_least_44px_tall_on_a_phone(page: Page, site_url: str, path: str):
    load(page, site_url + path, 375)
    small = page.evaluate("""target => Array.from(document.querySelectorAll(
            'select, input:not([type=hidden]), button:not(.sort-button), .button, .faq summary, .toc a, '
            + '.site-header a, .site-footer a, .cards a, .language-switcher a'))
        .filter(el => el.getClientRects().length && getComputedStyle(el).visibility !== 'hidden')
        .map(el => [el.tagName + ' ' + (el.textContent || el.name || '').trim().slice(0, 30), el.getBoundingClientRect().height])
        .filter(([, height]) => height < target - 0.5)""", TARGET)
    assert small == []


def test_card_links_are_not_underlined_but_read_as_links(page: Page, site_url: str):
    load(page, site_url + "/fr/", 1280)
    link = page.locator(".use-cases .card-title a").first
    style = link.evaluate("""el => ({line: getComputedStyle(el).textDecorationLine, color: getComputedStyle(el).color,
                                     text: getComputedStyle(document.body).color, weight: getComputedStyle(el).fontWeight})""")
    assert style["line"] == "none" and style["color"] != style["text"] and int(style["weight"]) >= 600
    # The whole card is the link's target.
    card = page.locator(".use-cases .cards li").first.bounding_box()
    target = link.evaluate("a => a.href")
    page.mouse.click(card["x"] + card["width"] - 12, card["y"] + card["height"] - 12)
    page.wait_for_url(target)


@pytest.mark.parametrize("path", ["/fr/", "/en/", "/fr/entrainement-llm/", "/en/llm-inference/",
                                  "/fr/guides/choisir-gpu-deep-learning-llm/", "/en/gpus/h100-sxm/"])
def test_one_call_to_action_a_page_worded_after_the_market(page: Page, site_url: str, path: str):
    load(page, site_url + path, 1280)
    lang = path.split("/")[1]
    assert page.locator("main .button, main .call-to-action a.button").count() <= 1
    boxes = page.locator(".call-to-action.launch, .call-to-action.open")
    if boxes.count():
        assert boxes.count() == 1
        state = "launch" if SITE["market"] == "pre-launch" else "open"
        assert normalise(boxes.locator("h2").inner_text()) == normalise(UI[lang][f"{state}_title"])
        assert normalise(boxes.locator("p").first.inner_text()) == normalise(UI[lang][f"{state}_text"])
        expect(boxes.locator("a.button")).to_have_attribute("href", SITE["languages"][lang]["sign_up_url"])
        providers = page.locator(".call-to-action.providers")
        expect(providers.locator("a")).to_have_attribute("href", SITE["languages"][lang]["providers_url"])
        assert providers.locator(".button").count() == 0
        assert providers.bounding_box()["height"] < boxes.bounding_box()["height"] / 2  # a line, not a box
