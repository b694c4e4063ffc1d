"""The layout registry and the pages it reserves: every layout but `use_case` and `guide` needs one
published page per language, and a missing one is an error naming the folder and the file to add."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import get_args

import pytest
from sites import tiny_project

from gpuguide.errors import Problems
from gpuguide.structure.dataset import Dataset, load_dataset
from gpuguide.structure.page_types import GENERATOR_LAYOUTS, LAYOUTS, Layout
from gpuguide.structure.library import Library
from gpuguide.structure.loading import load_library
from gpuguide.structure.validation import check_pages

# README, "Every layout (page type)": all but these must have exactly one page in each language.
OPTIONAL = {"use_case", "guide"}
REQUIRED = sorted(set(get_args(Layout)) - OPTIONAL)


@pytest.fixture(scope="module")
def tiny_loaded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Dataset, Library]:
    """The tiny site loaded in this process once (never changed: tests build new libraries from it)."""
    root = tiny_project(tmp_path_factory.mktemp("layouts") / "tiny")
    problems = Problems(root)
    dataset = load_dataset(root / "data", problems)
    assert dataset is not None, problems.items
    library = load_library(root / "content", dataset, problems)
    assert problems.items == []
    return root, dataset, library


def problems_of(root: Path, dataset: Dataset, library: Library) -> list[str]:
    problems = Problems(root)
    check_pages(library, dataset, problems)
    return [str(problem) for problem in problems.items]


def test_every_layout_has_a_rule_and_the_required_ones_are_the_readmes():
    assert set(LAYOUTS) == set(get_args(Layout))
    assert sorted(name for name, rule in LAYOUTS.items() if rule.required) == REQUIRED


def test_the_generator_layouts_make_pages_per_gpu_pair_and_model():
    assert {name: LAYOUTS[name].generates for name in GENERATOR_LAYOUTS} == {
        "gpu": "gpu", "comparison": "pair", "model": "model"}
    # Each generator has an index page its breadcrumb goes through.
    assert LAYOUTS["gpu"].parents == ("home", "catalogue")
    assert LAYOUTS["comparison"].parents == ("home", "comparisons")
    assert LAYOUTS["model"].parents == ("home", "models")


def test_breadcrumbs_go_through_pages_that_always_exist():
    for name, rule in LAYOUTS.items():
        for parent in rule.parents:
            # A trail links to its parents from every page: each must be a reserved, real page.
            assert LAYOUTS[parent].required and not LAYOUTS[parent].generates, (name, parent)
        assert not rule.parents or rule.parents[0] == "home", name
    assert LAYOUTS["home"].parents == () and LAYOUTS["not_found"].parents == ()


def test_only_the_search_and_404_pages_stay_out_of_the_sitemap():
    assert sorted(name for name, rule in LAYOUTS.items() if not rule.sitemap) == ["not_found", "search"]


def test_the_tiny_site_has_every_reserved_page(tiny_loaded):
    assert problems_of(*tiny_loaded) == []


@pytest.mark.parametrize("layout", REQUIRED)
def test_a_missing_reserved_page_is_an_error_naming_the_fix(tiny_loaded, layout: str):
    root, dataset, library = tiny_loaded
    # The English page of that layout (and, for a generator, every page it made) is gone.
    without = Library(tuple(page for page in library.pages if not (page.lang == "en" and page.meta.layout == layout)))
    # One problem for the language, naming the French page to translate (its layout in brackets).
    [missing] = [problem for problem in problems_of(root, dataset, without) if problem.startswith("content/en:1:1:")]
    assert missing.startswith("content/en:1:1: error: `en` lacks 1 page the site links to from every page: content/fr/")
    assert f"({layout})" in missing and "translate them into content/en/" in missing
    assert not any(problem.startswith("content/fr") and "lacks" in problem
                   for problem in problems_of(root, dataset, without))


@pytest.mark.parametrize("layout", sorted(OPTIONAL))
def test_a_language_may_have_no_use_case_or_guide_page(tiny_loaded, layout: str):
    root, dataset, library = tiny_loaded
    without = Library(tuple(page for page in library.pages if page.meta.layout != layout))
    assert not any(f"no `{layout}` page" in problem for problem in problems_of(root, dataset, without))


@pytest.mark.parametrize("layout", ["search", "gpu"])
def test_a_draft_does_not_count_as_the_reserved_page(tiny_loaded, layout: str):
    root, dataset, library = tiny_loaded
    pages = []
    for page in library.pages:
        if page.lang == "fr" and page.meta.layout == layout:
            if page.subject is not None:
                continue  # a draft generator makes no pages
            page = dataclasses.replace(page, meta=page.meta.model_copy(update={"draft": True}))
        pages.append(page)
    assert (f"`fr` lacks 1 page the site links to from every page: `{layout}`"
            in " ".join(problems_of(root, dataset, Library(tuple(pages)))))


def test_generated_pages_alone_do_not_stand_for_the_pattern(tiny_loaded):
    root, dataset, library = tiny_loaded
    # The GPU pages are there, the one Markdown file that makes them is not.
    without = Library(tuple(page for page in library.pages
                            if not (page.lang == "en" and page.meta.layout == "gpu" and page.subject is None)))
    assert any(problem.startswith("content/en:1:1: error: `en` lacks 1 page") and "(gpu)" in problem
               for problem in problems_of(root, dataset, without))


def test_a_language_with_an_unreadable_file_is_not_said_to_miss_a_page(tiny_loaded):
    """The file that failed to load may be the "missing" page: its own error is enough."""
    root, dataset, library = tiny_loaded
    search = next(page for page in library.pages if page.lang == "en" and page.meta.layout == "search")
    without = Library(tuple(page for page in library.pages if page is not search), (("en", search.source),))
    assert not any("no `search` page" in problem for problem in problems_of(root, dataset, without))
