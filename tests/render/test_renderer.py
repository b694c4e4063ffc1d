"""Rendering pages in-process (``render.renderer.PageRenderer``): a page of every layout of the tiny
site in both languages, read back with a real HTML parser; hreflang and the language switcher;
breadcrumbs; what a page read; the root and 404 pages; and problems reported with file and line
instead of raised. Expected URLs come from the tiny site's content files, names from its data."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from sites import edit, tiny_project

from gpuguide.build.pipeline import Options, Site, load
from gpuguide.errors import Problems
from gpuguide.project import Project
from gpuguide.render.reads import Reads
from gpuguide.render.renderer import PageOutput, PageRenderer
from gpuguide.render import site_wide
from gpuguide.structure.page_types import LAYOUTS
from gpuguide.structure.pages import Page, ReversedPairSubject, head_title

BASE = "https://tiny.example.com"  # base_url of the tiny site's data/site.yaml
NBSP = "\u00a0"


@dataclasses.dataclass
class Rendered:
    site: Site
    root: Path
    renderer: PageRenderer
    outputs: dict[str, PageOutput]  # every published page by URL

    def page(self, url: str) -> Page:
        return next(page for page in self.site.library.published if page.url == url)

    def soup(self, url: str) -> BeautifulSoup:
        html = self.outputs[url].html
        assert html is not None, url
        return BeautifulSoup(html, "lxml")


def _load(root: Path) -> tuple[Site, PageRenderer]:
    project = Project(root)
    site = load(project, Options(search=False, parallel=False))
    return site, PageRenderer(site.dataset, site.library, site.languages, project.templates_dir, site.problems)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> Rendered:
    """The tiny site loaded once for this file, every page rendered once (in memory, nothing written)."""
    root = tiny_project(tmp_path_factory.mktemp("renderer") / "tiny")
    site, renderer = _load(root)
    outputs = {page.url: renderer.render(page) for page in site.library.published}
    return Rendered(site, root, renderer, outputs)


def test_every_page_of_every_layout_renders_without_problems(rendered: Rendered) -> None:
    assert rendered.site.problems.items == []
    assert all(output.html is not None for output in rendered.outputs.values())
    # The tiny site has a page of each layout in each language.
    layouts = {(page.lang, page.meta.layout) for page in rendered.site.library.published}
    assert layouts == {(lang, layout) for lang in ("fr", "en") for layout in LAYOUTS}


def test_each_page_has_its_language_title_and_address(rendered: Rendered) -> None:
    for page in rendered.site.library.published:
        soup = rendered.soup(page.url)
        view = rendered.renderer.views[page.lang]
        title = view.typeset(page, "title", Reads())
        assert soup.html["lang"] == page.lang, page.url
        assert soup.title.get_text() == head_title(title, "Tiny"), page.url
        assert soup.h1.get_text(strip=True) == title, page.url
        assert soup.find("meta", attrs={"name": "description"})["content"] == view.typeset(page, "description", Reads())
        canonical = soup.find("link", rel="canonical")
        if page.meta.layout == "not_found":
            assert canonical is None  # served at any address: no canonical one
        elif isinstance(page.subject, ReversedPairSubject):  # a pair's other order: the pair's page
            first, second = page.subject.pair.ids
            assert canonical["href"] == BASE + page.url.replace(f"{second}-vs-{first}", f"{first}-vs-{second}")
            assert soup.find("meta", attrs={"name": "robots"})["content"] == "noindex"
        else:
            assert canonical["href"] == BASE + page.url, page.url


def test_generated_pages_fill_their_subject_into_the_title(rendered: Rendered) -> None:
    assert rendered.soup("/fr/gpu/card/").h1.get_text() == f"Card{NBSP}: fiche"  # "{model} : fiche"
    assert rendered.soup("/en/compare/big-vs-card/").h1.get_text() == "Big or Card"  # "{a} or {b}"
    assert rendered.soup("/en/models/small-llm/").h1.get_text().startswith("Small LLM")


def test_hreflang_alternates_on_an_indexed_page(rendered: Rendered) -> None:
    soup = rendered.soup("/fr/entrainement/")
    alternates = [(link["hreflang"], link["href"]) for link in soup.find_all("link", rel="alternate")]
    assert alternates == [("fr", f"{BASE}/fr/entrainement/"), ("en", f"{BASE}/en/training/"),
                          ("x-default", f"{BASE}/")]
    assert soup.find("meta", attrs={"name": "robots"}) is None
    assert soup.find("meta", property="og:locale")["content"] == "fr_FR"
    assert [m["content"] for m in soup.find_all("meta", property="og:locale:alternate")] == ["en_US"]


def test_a_page_kept_out_of_search_engines_has_no_alternates(rendered: Rendered) -> None:
    soup = rendered.soup("/en/search/")
    assert soup.find("meta", attrs={"name": "robots"})["content"] == "noindex"
    assert soup.find_all("link", rel="alternate") == []


def test_the_language_switcher_links_to_the_translation(rendered: Rendered) -> None:
    switcher = rendered.soup("/fr/entrainement/").find("nav", class_="language-switcher")
    current = switcher.find(attrs={"aria-current": "true"})
    assert current.get_text() == "Français"
    (other,) = switcher.find_all("a")
    # From /fr/entrainement/ to /en/training/, relative.
    assert (other["href"], other["hreflang"], other["lang"], other.get_text()) == (
        "../../en/training/", "en", "en", "English")


def test_breadcrumbs_on_a_generated_page(rendered: Rendered) -> None:
    soup = rendered.soup("/fr/gpu/big/")
    items = soup.find("nav", class_="breadcrumbs").find_all("li")
    links = [(li.a["href"], li.a.get_text()) for li in items if li.a]
    assert links == [("../../", "Accueil"), ("../", "Les GPU")]  # relative to /fr/gpu/big/
    last = items[-1].find("span", attrs={"aria-current": "page"})
    assert last is not None and last.get_text() == f"Big{NBSP}: fiche"
    schemas = [json.loads(script.string) for script in soup.find_all("script", type="application/ld+json")]
    (trail,) = [schema for schema in schemas if schema["@type"] == "BreadcrumbList"]
    assert [item.get("item") for item in trail["itemListElement"]] == [f"{BASE}/fr/", f"{BASE}/fr/gpu/", None]


def test_the_home_page_has_no_breadcrumbs(rendered: Rendered) -> None:
    soup = rendered.soup("/en/")
    assert soup.find("nav", class_="breadcrumbs") is None
    assert all(json.loads(s.string)["@type"] != "BreadcrumbList"
               for s in soup.find_all("script", type="application/ld+json"))


def test_links_are_relative_except_on_the_404_page(rendered: Rendered) -> None:
    stylesheet = rendered.soup("/fr/entrainement/").find("link", rel="stylesheet")["href"]
    assert stylesheet == "../../assets/style.css"
    # The 404 page is served at any address: its links are site-absolute.
    assert rendered.soup("/fr/404/").find("link", rel="stylesheet")["href"] == "/assets/style.css"


def test_a_use_case_page_shows_its_table_chart_toc_and_faq(rendered: Rendered) -> None:
    soup = rendered.soup("/en/training/")
    table = soup.find("table", id="gpu-table")
    assert [row["data-gpu"] for row in table.tbody.find_all("tr")] == ["big", "pcie", "card"]
    labels = [label.contents[0].strip() for label in soup.select("figure.chart .chart-label")]
    assert labels == ["Big", "Pcie", "Card"]  # train_8gpu: 32 B, 32 B, 9.6 B parameters
    toc = [a["href"] for a in soup.find("nav", class_="toc").find_all("a")]
    # The table before the body's sections, the comparisons after them, then the FAQ and other use cases.
    assert toc[0] == "#suitable-gpus" and toc[-2:] == ["#faq", "#other-use-cases"] and "#compare-gpus" in toc
    assert all(soup.find(id=anchor[1:]) is not None for anchor in toc)
    faq = [json.loads(s.string) for s in soup.find_all("script", type="application/ld+json")]
    (faq_page,) = [schema for schema in faq if schema["@type"] == "FAQPage"]
    assert [q["name"] for q in faq_page["mainEntity"]] == ["How much memory?"]


def test_a_comparison_page_marks_the_better_value(rendered: Rendered) -> None:
    table = rendered.soup("/fr/comparer/big-vs-pcie/").find("table", class_="comparison-table")
    row = table.find("tr", attrs={"data-column": "bf16"})
    first, second, ratio = row.find_all("td")
    assert "better" in first["class"] and "better" not in second["class"]  # 989 vs 312 TFLOPS
    assert ratio.get_text().replace(NBSP, " ") == "× 3,2"
    memory = table.find("tr", attrs={"data-column": "memory"}).find_all("td")
    assert memory[2].get_text() == "identique"  # 80 GB each


def test_a_page_depends_on_what_it_showed(rendered: Rendered) -> None:
    reads = rendered.outputs["/fr/comparer/big-vs-pcie/"].reads
    assert {("gpus", "big"), ("prices", "pcie"), ("ui-fr", "nav_home")} <= reads  # the page's and the view's
    assert not {("gpus", "card"), ("prices", "card")} & reads  # the third GPU is not on the page
    assert ("gpus", "*") in rendered.outputs["/fr/gpu/"].reads  # the catalogue shows every GPU


def test_links_written_in_markdown_keep_their_line(rendered: Rendered) -> None:
    # content/fr/index.md: the body starts at line 8 with a link to guides/premier-guide.md.
    assert rendered.outputs["/fr/"].link_lines == {"guides/premier-guide/": 8}


def test_the_sharing_card_shows_the_title_and_key_figures(rendered: Rendered) -> None:
    card = rendered.outputs["/en/training/"].card
    assert card is not None and (card.site_name, card.title) == ("Tiny", "GPUs for training")
    (line,) = card.lines
    assert "(Big)" in line  # the chart's longest bar
    home = rendered.outputs["/en/"].card
    assert home is not None and home.lines == (rendered.page("/en/").meta.description,)


def test_a_link_to_a_markdown_file_becomes_a_relative_url(rendered: Rendered) -> None:
    home = rendered.page("/fr/")
    assert rendered.renderer.source_link(home, "guides/premier-guide.md") == "guides/premier-guide/"
    guide = rendered.page("/fr/guides/premier-guide/")
    assert rendered.renderer.source_link(guide, "../entrainement.md") == "../../entrainement/"
    with pytest.raises(LookupError, match="did you mean"):
        rendered.renderer.source_link(home, "guides/premier-gide.md")


def test_the_root_page_links_to_each_languages_home(rendered: Rendered) -> None:
    result = site_wide.render_root(rendered.renderer)
    assert result is not None
    html, card = result
    soup = BeautifulSoup(html, "lxml")
    assert soup.html["lang"] == "fr"  # default_language
    assert [(a["href"], a["hreflang"]) for a in soup.main.find_all("a")] == [("fr/", "fr"), ("en/", "en")]
    assert [(link["hreflang"], link["href"]) for link in soup.find_all("link", rel="alternate")] == [
        ("fr", f"{BASE}/fr/"), ("en", f"{BASE}/en/"), ("x-default", f"{BASE}/")]
    assert card.title == "Accueil · Home"


def test_the_404_file_holds_every_languages_not_found_page(rendered: Rendered) -> None:
    html = site_wide.render_not_found_everywhere(rendered.renderer)
    assert html is not None
    text = BeautifulSoup(html, "lxml").get_text()
    assert "Page introuvable" in text and rendered.page("/en/404/").meta.title in text


# --- problems: reported with their file and line, never raised --------------------------------------

def _problems(site: Site) -> list[str]:
    return [str(problem) for problem in site.problems.errors]


def test_a_shortcode_error_is_reported_at_its_line(tiny: Path) -> None:
    edit(tiny / "content" / "fr" / "guides" / "premier-guide.md", "model=small-llm precision=bf16 }}.",
         "model=no-such-model precision=bf16 }}.")
    site, renderer = _load(tiny)
    renderer.render(next(p for p in site.library.published if p.url == "/fr/guides/premier-guide/"))
    (problem,) = site.problems.errors
    # The shortcode is on line 14 of the file (7 lines of front matter, then the body).
    assert (problem.path, problem.line) == ("content/fr/guides/premier-guide.md", 14)
    assert "no-such-model" in problem.message


def test_a_template_error_is_reported_at_the_templates_line(tiny: Path) -> None:
    edit(tiny / "templates" / "search.html", "<h1>{{ title }}</h1>\n", "<h1>{{ title }}</h1>\n{{ no_such_variable }}\n")
    site, renderer = _load(tiny)
    output = renderer.render(next(p for p in site.library.published if p.url == "/fr/recherche/"))
    assert output.html is None and output.card is None
    (problem,) = site.problems.errors
    assert (problem.path, problem.line) == ("templates/search.html", 8)  # the line inserted after the <h1>
    assert "no_such_variable" in problem.message
    assert problem.hint is not None and problem.hint.endswith("content/fr/recherche.md")


def test_a_template_syntax_error_is_reported_when_compiling(tiny: Path) -> None:
    edit(tiny / "templates" / "guide.html", "{% block main %}", "{% block main %}{% if %}")
    site, renderer = _load(tiny)
    renderer.compile_templates({"guide"})
    (problem,) = site.problems.errors
    assert problem.path == "templates/guide.html" and "syntax error" in problem.message
    lines = (tiny / "templates" / "guide.html").read_text(encoding="utf-8").splitlines()
    assert "{% if %}" in lines[problem.line - 1]


def test_a_missing_include_is_reported_where_it_is_included(tiny: Path) -> None:
    edit(tiny / "templates" / "guide.html", "{% block main %}", '{% block main %}{% include "partials/nope.html" %}')
    site, renderer = _load(tiny)
    renderer.compile_templates({"guide"})
    (problem,) = site.problems.errors
    lines = (tiny / "templates" / "guide.html").read_text(encoding="utf-8").splitlines()
    assert problem.path == "templates/guide.html" and "partials/nope.html" in lines[problem.line - 1]
    assert "not found" in problem.message


def _with_strings(rendered: Rendered, changes: dict[str, str | None]) -> tuple[PageRenderer, Problems]:
    """A renderer whose French UI strings are changed (None: removed), its problems its own."""
    site = rendered.site
    strings = {key: value for key, value in site.languages["fr"].strings.items() if key not in changes}
    strings.update({key: value for key, value in changes.items() if value is not None})
    languages = {**site.languages, "fr": dataclasses.replace(site.languages["fr"], strings=strings)}
    problems = Problems(rendered.root)
    return PageRenderer(site.dataset, site.library, languages, rendered.root / "templates", problems), problems


def test_a_missing_ui_string_is_reported_in_its_languages_file(rendered: Rendered) -> None:
    renderer, problems = _with_strings(rendered, {"scroll_hint": None})
    output = renderer.render(rendered.page("/fr/entrainement/"))
    assert output.html is None
    (problem,) = problems.errors
    assert problem.path == "data/ui/fr.yaml" and "scroll_hint" in problem.message


def test_an_unknown_placeholder_is_reported_at_the_strings_line(rendered: Rendered) -> None:
    renderer, problems = _with_strings(rendered, {"footer_text": "{nope} et {site_name}"})
    output = renderer.render(rendered.page("/fr/guides/"))
    assert output.html is None
    (problem,) = problems.errors
    lines = (rendered.root / "data" / "ui" / "fr.yaml").read_text(encoding="utf-8").splitlines()
    expected = next(number for number, text in enumerate(lines, 1) if text.strip().startswith("footer_text:"))
    assert (problem.path, problem.line) == ("data/ui/fr.yaml", expected)
    assert "{nope}" in problem.message
    # English pages are unaffected.
    assert renderer.render(rendered.page("/en/guides/")).html is not None
