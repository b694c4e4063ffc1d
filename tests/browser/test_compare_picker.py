"""The "compare two GPUs" form, in Chromium, on every page type that lists GPUs, in both languages:
it appears only once its script runs, opens the pair's page whichever order the GPUs are chosen
in, refuses the same GPU twice, and opens on the page's own GPU and its closest alternative; a pair's
address in the other order lands on the pair's page."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

PAGES = [
    "/fr/comparer/", "/en/compare/",  # the comparisons index
    "/fr/gpu/", "/en/gpus/",  # the catalogue
    "/fr/gpu/l40s/", "/en/gpus/l40s/",  # a GPU page
    "/fr/inference-llm/", "/en/llm-inference/",  # a use-case page
    "/fr/comparer/h100-sxm-vs-a100-sxm/", "/en/compare/h100-sxm-vs-a100-sxm/",  # a comparison
]


@pytest.mark.parametrize("path", PAGES)
def test_the_picker_opens_the_pair_in_either_order(page: Page, site_url: str, path: str):
    page.goto(site_url + path)
    form = page.locator("form.compare-picker")
    expect(form).to_be_visible()
    # A100 SXM comes after H100 SXM in the dataset: chosen first, it still opens h100-sxm-vs-a100-sxm.
    form.locator('select[name="a"]').select_option("a100-sxm")
    form.locator('select[name="b"]').select_option("h100-sxm")
    form.get_by_role("button").click()
    page.wait_for_url("**/h100-sxm-vs-a100-sxm/")
    lang = path.split("/")[1]
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("h1")).to_contain_text("H100 SXM")


@pytest.mark.parametrize("path, chosen", [("/en/gpus/rtx-4090/", ("rtx-4090", "rtx-3090")),
                                          ("/fr/gpu/h100-sxm/", ("h100-sxm", "a100-sxm")),
                                          ("/en/compare/h200-vs-h100-sxm/", ("h200", "h100-sxm"))])
def test_the_form_opens_on_the_pages_own_pair(page: Page, site_url: str, path: str, chosen: tuple[str, str]):
    page.goto(site_url + path)
    form = page.locator("form.compare-picker")
    expect(form.locator('select[name="a"]')).to_have_value(chosen[0])
    expect(form.locator('select[name="b"]')).to_have_value(chosen[1])
    form.get_by_role("button").click()
    page.wait_for_url(f"**/{chosen[0]}-vs-{chosen[1]}/")


@pytest.mark.parametrize("path, real", [("/en/compare/h100-sxm-vs-h200/", "/en/compare/h200-vs-h100-sxm/"),
                                        ("/fr/comparer/a10-vs-b300/", "/fr/comparer/b300-vs-a10/")])
def test_a_pair_in_the_other_order_lands_on_its_page(page: Page, site_url: str, path: str, real: str):
    page.goto(site_url + path)
    page.wait_for_url(f"**{real}")
    expect(page.locator("article.comparison h1")).to_be_visible()


def test_the_same_gpu_twice_is_refused_with_a_message(page: Page, site_url: str):
    page.goto(site_url + "/en/gpus/")
    form = page.locator("form.compare-picker")
    form.locator('select[name="a"]').select_option("l4")
    form.locator('select[name="b"]').select_option("l4")
    form.get_by_role("button").click()
    expect(form.locator(".compare-picker-error")).to_have_text("Choose two different GPUs.")
    assert page.url.endswith("/en/gpus/")


def test_without_javascript_the_form_stays_hidden(browser, site_url: str):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site_url + "/fr/comparer/")
    expect(page.locator("form.compare-picker")).to_be_hidden()
    expect(page.locator('a[href*="h100-sxm-vs-a100-sxm"]').first).to_be_visible()
    context.close()
