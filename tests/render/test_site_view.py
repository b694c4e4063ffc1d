"""One language's view of the site (``render.site_view.SiteView``) over the tiny site: the URLs of
the pages every page links to, the menus, the language switcher, hreflang alternates, breadcrumbs
and their JSON-LD, the "compare two GPUs" form, and what the view read.

Expected URLs come from the tiny site's content files (their folder and ``slug``), names and
addresses from its data/site.yaml and data/gpus.yaml."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sites import edit, tiny_project

from gpuguide.build.pipeline import Options, Site, load
from gpuguide.project import Project
from gpuguide.render.environment import Link
from gpuguide.render.reads import KEYS, PAGE_TEXTS, Reads
from gpuguide.render.site_view import PICKER_OPTIONS, SiteView, picker_options
from gpuguide.structure.pages import Page

BASE = "https://tiny.example.com"  # base_url of the tiny site's data/site.yaml
NBSP = "\u00a0"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The tiny site loaded once for this file (nothing rendered)."""
    root = tiny_project(tmp_path_factory.mktemp("site_view") / "tiny")
    return load(Project(root), Options(search=False, parallel=False))


@pytest.fixture(scope="module")
def views(site: Site) -> dict[str, SiteView]:
    return {code: SiteView(language, site.languages, site.library, site.dataset)
            for code, language in site.languages.items()}


def _page(site: Site, url: str) -> Page:
    return next(page for page in site.library.published if page.url == url)


def test_the_urls_of_the_pages_every_language_has(views: dict[str, SiteView]) -> None:
    expected = {
        "fr": {"home": "/fr/", "catalogue": "/fr/gpu/", "comparisons": "/fr/comparer/", "models": "/fr/modeles/",
               "guides": "/fr/guides/", "methodology": "/fr/methodologie/", "search": "/fr/recherche/",
               "not_found": "/fr/404/"},
        "en": {"home": "/en/", "catalogue": "/en/gpus/", "comparisons": "/en/compare/", "models": "/en/models/",
               "guides": "/en/guides/", "methodology": "/en/methodology/", "search": "/en/search/",
               "not_found": "/en/404/"},
    }
    for code, urls in expected.items():
        assert {layout: views[code].url_of(layout) for layout in urls} == urls


def test_generated_pages_are_found_by_their_subject(views: dict[str, SiteView]) -> None:
    fr, en = views["fr"], views["en"]
    assert fr.gpu_url("big") == "/fr/gpu/big/" and en.gpu_url("card") == "/en/gpus/card/"
    assert fr.gpu_url("no-such-gpu") is None
    assert fr.page_url("model", "small-llm") == "/fr/modeles/small-llm/"
    assert en.page_url("model", "image-model") == "/en/models/image-model/"
    assert fr.page_url("gpu", "pcie") == "/fr/gpu/pcie/"
    assert fr.page_url("model", "no-such-model") is None


def test_a_pair_has_one_comparison_page_whichever_order(views: dict[str, SiteView]) -> None:
    fr = views["fr"]
    # Pairs are named in dataset order (big, pcie, card).
    assert fr.comparison_url("big", "pcie") == fr.comparison_url("pcie", "big") == "/fr/comparer/big-vs-pcie/"
    assert fr.comparison_url("card", "big") == "/fr/comparer/big-vs-card/"
    assert views["en"].comparison_url("card", "pcie") == "/en/compare/pcie-vs-card/"


def test_the_navigation_and_the_use_case_menu(views: dict[str, SiteView]) -> None:
    en = views["en"]
    assert [link.url for link in en.nav] == ["/en/", "/en/gpus/", "/en/compare/", "/en/models/"]
    assert en.nav[0].label == "Home" == en.home_label
    reads = Reads()
    assert views["fr"].use_cases(reads) == [
        ("llm-training", Link("GPU pour entraîner", "/fr/entrainement/", description="Entraîner sur un ou huit GPU."))]
    # The page listing them depends on the use-case page's front matter; the menu shows the linked ones.
    assert reads.keys == {(PAGE_TEXTS, "fr/entrainement/index.html")}
    assert views["fr"].menu == [Link("GPU pour entraîner", "/fr/entrainement/", description="Entraîner sur un ou huit GPU.")]
    assert en.methodology.url == "/en/methodology/"


def test_a_draft_use_case_is_listed_without_a_link(tiny: Path) -> None:
    edit(tiny / "content" / "fr" / "entrainement.md", "layout: use_case\n", "layout: use_case\ndraft: true\n")
    site = load(Project(tiny), Options(search=False, parallel=False))
    view = SiteView(site.languages["fr"], site.languages, site.library, site.dataset)
    assert view.use_cases(Reads()) == [
        ("llm-training", Link("GPU pour entraîner", None, description="Entraîner sur un ou huit GPU."))]
    assert view.menu == []


def test_titles_are_typeset_in_their_pages_language(site: Site, views: dict[str, SiteView]) -> None:
    fr_page, en_page = _page(site, "/fr/entrainement/"), _page(site, "/en/training/")
    # French: a no-break space before the colon; English: as written.
    assert views["fr"].typeset(fr_page, "description", Reads()) == f"Entraîner un LLM{NBSP}: la mémoire compte."
    assert views["fr"].typeset(en_page, "description", Reads()) == "Training an LLM: memory matters."
    assert views["fr"].typeset(_page(site, "/fr/"), "short_name", Reads()) == ""  # a field not set: empty, never "None"


def test_the_language_switcher_lists_every_language(site: Site, views: dict[str, SiteView]) -> None:
    page = _page(site, "/fr/entrainement/")
    assert views["fr"].switcher(page) == [Link("Français", "/fr/entrainement/", "fr"),
                                         Link("English", "/en/training/", "en")]
    gpu = _page(site, "/en/gpus/big/")
    assert [link.url for link in views["en"].switcher(gpu)] == ["/fr/gpu/big/", "/en/gpus/big/"]


def test_hreflang_gives_absolute_alternates_and_x_default(site: Site, views: dict[str, SiteView]) -> None:
    page = _page(site, "/fr/entrainement/")
    assert views["fr"].hreflang(page) == [("fr", f"{BASE}/fr/entrainement/"), ("en", f"{BASE}/en/training/"),
                                         ("x-default", f"{BASE}/")]
    pair = _page(site, "/en/compare/big-vs-pcie/")
    assert dict(views["en"].hreflang(pair))["fr"] == f"{BASE}/fr/comparer/big-vs-pcie/"
    # A pair buyers do not weigh (80 GB against 24) and a pair's other order are not indexed: no alternates.
    assert views["en"].hreflang(_page(site, "/en/compare/pcie-vs-card/")) == []
    assert views["en"].hreflang(_page(site, "/en/compare/pcie-vs-big/")) == []


def test_pages_kept_out_of_search_engines_have_no_alternates(site: Site, views: dict[str, SiteView]) -> None:
    assert views["fr"].hreflang(_page(site, "/fr/recherche/")) == []
    assert views["fr"].hreflang(_page(site, "/fr/404/")) == []


def test_an_untranslated_page_has_no_link_to_the_other_language(tiny: Path) -> None:
    (tiny / "content" / "fr" / "guides" / "seul.md").write_text(
        '---\ntitle: "Seul"\ndescription: "Sans traduction."\nslug: seul\ntranslation_key: guide/alone\n'
        "layout: guide\n---\nSeul.\n", encoding="utf-8")
    site = load(Project(tiny), Options(search=False, parallel=False))
    view = SiteView(site.languages["fr"], site.languages, site.library, site.dataset)
    page = _page(site, "/fr/guides/seul/")
    assert view.switcher(page) == [Link("Français", "/fr/guides/seul/", "fr"), Link("English", None, "en")]
    assert view.hreflang(page) == []  # one language alone has no alternate


def test_breadcrumbs_follow_the_layouts_parents(site: Site, views: dict[str, SiteView]) -> None:
    fr = views["fr"]
    assert fr.breadcrumbs(_page(site, "/fr/"), Reads()) == []
    assert fr.breadcrumbs(_page(site, "/fr/404/"), Reads()) == []
    assert fr.breadcrumbs(_page(site, "/fr/entrainement/"), Reads()) == [Link("Accueil", "/fr/"),
                                                                Link("GPU pour entraîner", None)]
    # A GPU page: home › the catalogue › the page, its title typeset ("{model} : fiche").
    assert fr.breadcrumbs(_page(site, "/fr/gpu/big/"), Reads()) == [Link("Accueil", "/fr/"), Link("Les GPU", "/fr/gpu/"),
                                                           Link(f"Big{NBSP}: fiche", None)]
    assert views["en"].breadcrumbs(_page(site, "/en/guides/first-guide/"), Reads())[1] == Link("Guides", "/en/guides/")
    assert [c.url for c in views["en"].breadcrumbs(_page(site, "/en/compare/big-vs-card/"), Reads())] == [
        "/en/", "/en/compare/", None]


def test_the_breadcrumb_schema_is_a_breadcrumb_list(site: Site, views: dict[str, SiteView]) -> None:
    fr = views["fr"]
    crumbs = fr.breadcrumbs(_page(site, "/fr/gpu/card/"), Reads())
    schema = json.loads(str(fr.breadcrumb_schema(crumbs)))
    assert schema["@context"] == "https://schema.org" and schema["@type"] == "BreadcrumbList"
    items = schema["itemListElement"]
    assert [item["position"] for item in items] == [1, 2, 3]
    assert [item["name"] for item in items] == ["Accueil", "Les GPU", f"Card{NBSP}: fiche"]
    assert [item.get("item") for item in items] == [f"{BASE}/fr/", f"{BASE}/fr/gpu/", None]  # the page itself: no link


def test_the_compare_form_opens_on_the_pair_asked_for_and_reads_its_gpus_from_one_file(
        views: dict[str, SiteView], site: Site) -> None:
    picker = views["en"].picker("card", "big")
    assert picker == {"chosen": ("card", "big"), "base": "/en/compare/", "options": "/" + PICKER_OPTIONS}
    assert views["fr"].picker("card", "big")["options"] == picker["options"]  # one file for the site
    # Every GPU, in the data's order (the script orders a pair by it), by its name.
    assert json.loads(picker_options(site.dataset)) == {"gpus": [["big", "Big"], ["pcie", "Pcie"], ["card", "Card"]]}


def test_addresses_and_calls_to_action_come_from_the_site_settings(views: dict[str, SiteView]) -> None:
    fr, en = views["fr"], views["en"]
    assert fr.absolute("/fr/gpu/") == f"{BASE}/fr/gpu/"
    assert fr.calls_to_action == {"sign_up": f"{BASE}/fr/inscription", "providers": f"{BASE}/fr/fournisseurs"}
    assert en.calls_to_action == {"sign_up": None, "providers": None}  # not set for English: not shown
    assert fr.language_names == {"fr": "Français", "en": "English"}
    assert fr.gpu_order == {"big": 0, "pcie": 1, "card": 2}


def test_the_view_reads_names_and_ui_strings_not_gpu_records(views: dict[str, SiteView]) -> None:
    # Every page depends on what the view read: a GPU's record or price must not be among it, or
    # a price change would re-render every page.
    reads = views["fr"].reads.keys
    assert {("ui-fr", "nav_home"), ("ui-fr", "nav_catalogue"), ("ui-en", "language_name"),
            ("gpus", KEYS)} <= reads
    assert not [read for read in reads if read[0] in ("gpus", "prices") and read[1] != KEYS]
    assert not [read for read in reads if read[0] == "ui-en" and read[1] != "language_name"]


def test_an_inline_figure_is_evaluated_once_and_its_reads_noted_on_each_page(site: Site, monkeypatch) -> None:
    # A fresh view: its figures are made on demand, once per build and language.
    from gpuguide.figures.registry import ShortcodeContext
    from gpuguide.markdown import shortcodes
    from gpuguide.render import site_view
    from gpuguide.render.reads import tracked_dataset, tracked_language

    view = SiteView(site.languages["fr"], site.languages, site.library, site.dataset)
    call = "gpu_figure gpu=big column=memory"
    alone = Reads()
    expected = shortcodes.evaluate(call, ShortcodeContext(tracked_dataset(site.dataset, alone),
                                                          tracked_language(site.languages["fr"], alone)))
    evaluated: list[str] = []
    monkeypatch.setattr(site_view, "evaluate", lambda text, ctx: evaluated.append(text) or shortcodes.evaluate(text, ctx))
    first, second = Reads(), Reads()
    second.note("gpus", "card")  # what the second page read before: kept, the figure's reads added
    assert view.figure(call, first) == expected == view.figure(call, second)
    assert evaluated == [call]  # the second page reused the first one's text
    assert ("gpus", "big") in alone.keys
    assert first.keys == alone.keys  # each page depends on what evaluating it read, as if alone
    assert second.keys == alone.keys | {("gpus", "card")}


def test_an_inline_figure_that_fails_is_not_kept(site: Site) -> None:
    from gpuguide.figures.registry import ShortcodeError

    view = SiteView(site.languages["en"], site.languages, site.library, site.dataset)
    for _ in range(2):  # reported on each page that writes it, never served from the cache
        with pytest.raises(ShortcodeError):
            view.figure("gpu_figure gpu=no-such-gpu column=memory", Reads())
    assert view.figure_cache == {}
