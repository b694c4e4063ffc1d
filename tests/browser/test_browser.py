"""What a reader sees, in real Chromium (Debian's, driven by Playwright)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 812}
DESKTOP = {"width": 1280, "height": 900}
PAGES = ["/fr/entrainement-llm/", "/en/llm-training/"]


@pytest.fixture
def console_errors(page: Page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


@pytest.mark.parametrize("path", PAGES)
def test_on_a_phone_the_table_scrolls_and_the_page_does_not(page: Page, site_url: str, path: str,
                                                           console_errors: list[str]):
    page.set_viewport_size(PHONE)
    page.goto(site_url + path)
    region = page.locator("[role=region][aria-labelledby=gpu-table-caption]")
    sizes = region.evaluate("el => ({scroll: el.scrollWidth, client: el.clientWidth})")
    assert sizes["scroll"] > sizes["client"], "the table should be wider than the phone screen"
    page_width = page.evaluate("() => document.documentElement.scrollWidth")
    assert page_width <= PHONE["width"], f"the page scrolls sideways ({page_width}px)"
    assert console_errors == []


def test_the_table_region_is_reached_with_the_keyboard_and_scrolls_with_arrows(page: Page, site_url: str):
    page.set_viewport_size(PHONE)
    page.goto(site_url + PAGES[0])
    region = page.locator("[role=region][aria-labelledby=gpu-table-caption]")
    for _ in range(20):  # Tab through the page until the region has focus
        page.keyboard.press("Tab")
        if region.evaluate("el => el === document.activeElement"):
            break
    expect(region).to_be_focused()
    first_cell = page.locator("#gpu-table tbody tr:first-child th")
    left_before = first_cell.bounding_box()["x"]
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => document.querySelector('[role=region][aria-labelledby=gpu-table-caption]').scrollLeft > 0")
    # The GPU column is sticky: it stays where it was while the other columns move.
    assert abs(first_cell.bounding_box()["x"] - left_before) < 1
    assert page.evaluate("() => window.scrollX") == 0


def test_on_a_desktop_nothing_overflows(page: Page, site_url: str):
    page.set_viewport_size(DESKTOP)
    page.goto(site_url + PAGES[0])
    assert page.evaluate("() => document.documentElement.scrollWidth") <= DESKTOP["width"]
    assert page.locator("h1").inner_text() == "GPU pour entraîner de grands modèles de langage"


def test_the_language_switcher_lands_on_the_translated_page(page: Page, site_url: str):
    page.goto(site_url + PAGES[0])
    page.get_by_role("link", name="English").click()
    expect(page).to_have_url(site_url + "/en/llm-training/")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.get_by_role("link", name="Français").click()
    expect(page).to_have_url(site_url + "/fr/entrainement-llm/")


def test_faq_answers_open_when_their_question_is_clicked(page: Page, site_url: str):
    page.goto(site_url + PAGES[1])
    answer = page.locator(".faq details").first.locator(".faq-answer")
    expect(answer).to_be_hidden()
    page.locator(".faq summary").first.click()
    expect(answer).to_be_visible()
