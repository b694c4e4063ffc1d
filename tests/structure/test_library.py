"""The library: the one translation map (key → page in each language), what is published, the
reserved and generated pages, and use-case pages in the dataset's order, drafts included."""

from __future__ import annotations

from pathlib import Path

import pytest
from sites import tiny_project

from gpuguide.errors import Problems
from gpuguide.structure.dataset import load_dataset
from gpuguide.structure.library import Library
from gpuguide.structure.loading import load_library
from gpuguide.structure.pages import Page, PageMeta, ReversedPairSubject
from gpuguide.structure.yaml_documents import YamlDocument


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Library:
    """The tiny site's library, loaded in this process once: two languages, three GPUs, three models."""
    root = tiny_project(tmp_path_factory.mktemp("library") / "tiny")
    problems = Problems(root)
    dataset = load_dataset(root / "data", problems)
    library = load_library(root / "content", dataset, problems)
    assert problems.items == []
    return library


def page(lang: str, key: str, layout: str = "guide", **fields) -> Page:
    """A hand-made page, as the loader would make it from content/<lang>/<key>.md."""
    meta = PageMeta.model_validate({"title": key, "description": "D", "slug": key.replace("/", "-"),
                                    "translation_key": key, "layout": layout, **fields})
    return Page.from_text(Path("content") / lang / f"{key}.md", lang, meta, YamlDocument({}, {}), "", 0, 1)


def test_the_translation_map_pairs_each_key_with_its_page_in_every_language(library: Library):
    training = library.translations["use-case/llm-training"]
    assert {lang: p.url for lang, p in training.items()} == {"fr": "/fr/entrainement/", "en": "/en/training/"}
    # Generated pages pair up too: the pattern's key plus the GPU ids.
    assert {lang: p.url for lang, p in library.translations["comparison/big-vs-card"].items()} == {
        "fr": "/fr/comparer/big-vs-card/", "en": "/en/compare/big-vs-card/"}
    # Every page is in the map once, under its own key and language.
    assert sum(len(pages) for pages in library.translations.values()) == len(library.pages)
    assert all(library.translations[p.meta.translation_key][p.lang] is p for p in library.pages)


def test_translation_finds_the_published_page_in_the_other_language(library: Library):
    french_guide = library.find("guide/first", "fr")
    assert french_guide is not None and french_guide.url == "/fr/guides/premier-guide/"
    english = library.translation(french_guide, "en")
    assert english is not None and english.url == "/en/guides/first-guide/"
    assert library.translation(english, "fr") is french_guide
    assert library.translation(french_guide, "de") is None
    assert library.find("no/such-key", "fr") is None


def test_patterns_are_in_the_map_but_never_published(library: Library):
    # `gpu` is the key of the one Markdown file that makes the GPU pages: it is no page of its own.
    assert set(library.translations["gpu"]) == {"fr", "en"}
    assert library.find("gpu", "fr") is None
    assert not any(p.is_generator for p in library.published)
    assert library.find("gpu/big", "fr").url == "/fr/gpu/big/"


def test_published_leaves_out_drafts_and_patterns_but_the_map_keeps_drafts():
    source, draft, pattern = page("fr", "a"), page("fr", "b", draft=True), page("fr", "gpu", layout="gpu")
    translation = page("en", "b")
    library = Library((source, draft, pattern, translation))
    assert library.published == (source, translation)
    assert library.translations["b"] == {"fr": draft, "en": translation}
    # A draft is not linked: its translation has no published page to switch to.
    assert library.find("b", "fr") is None and library.translation(translation, "fr") is None


def test_reserved_and_by_layout_find_the_pages_the_site_links_to(library: Library):
    assert library.reserved("catalogue", "fr").url == "/fr/gpu/"
    assert library.reserved("search", "en").url == "/en/search/"
    assert library.reserved("home", "en").url == "/en/"
    assert [p.url for p in library.by_layout("fr", "guide")] == ["/fr/guides/premier-guide/"]
    assert library.by_layout("de", "guide") == []
    # The GPU pages, in dataset order; the pattern is not among them.
    assert [p.url for p in library.by_layout("en", "gpu")] == ["/en/gpus/big/", "/en/gpus/pcie/", "/en/gpus/card/"]


def test_reserved_is_only_for_the_single_pages_the_registry_requires(library: Library):
    # A use case is optional and a GPU page is generated: neither has one reserved page.
    for layout in ("use_case", "guide", "gpu", "comparison"):
        with pytest.raises(AssertionError):
            library.reserved(layout, "fr")
    assert Library(()).reserved("search", "fr") is None  # missing: validation reports it


def test_generated_finds_a_page_by_its_gpu_or_pair_in_dataset_order(library: Library):
    assert library.generated("gpu", "fr", ("pcie",)).url == "/fr/gpu/pcie/"
    assert library.generated("comparison", "en", ("big", "pcie")).url == "/en/compare/big-vs-pcie/"
    # A pair's page is in dataset order; the other order is a redirect to it.
    redirect = library.generated("comparison", "en", ("pcie", "big"))
    assert redirect.url == "/en/compare/pcie-vs-big/" and isinstance(redirect.subject, ReversedPairSubject)
    assert redirect.subject.pair.ids == ("big", "pcie") and not redirect.indexable
    assert library.generated("model", "fr", ("image-model",)).url == "/fr/modeles/image-model/"
    assert library.generated("gpu", "fr", ("no-such-gpu",)) is None


def test_use_case_pages_follow_the_dataset_order_drafts_included_unknown_last():
    pages = [page("fr", f"use-case/{name}", layout="use_case", use_case=name, draft=name == "b")
             for name in ("c", "x", "a", "b")]
    library = Library((*pages, page("en", "use-case/a", layout="use_case", use_case="a")))
    assert [p.meta.use_case for p in library.use_case_pages("fr", ["a", "b", "c"])] == ["a", "b", "c", "x"]
    assert [p.meta.use_case for p in library.use_case_pages("en", ["a", "b", "c"])] == ["a"]
    assert library.use_case_pages("de", ["a"]) == []
