"""The link check reads the ids and links the renderer noted as it wrote them (``render.known_links``):
they must be exactly what the page's HTML holds. lxml parses every page of the real site (both
languages, every layout), pages of the benchmark's corpus and a page of everything Markdown can
link with, and finds the same ids and the same internal links; and no template writes an id or an
address the renderer does not note."""

from __future__ import annotations

import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import jinja2
import pytest
from jinja2 import nodes
from sites import ROOT, copy_project

from gpuguide.build.link_check import ParsedPage, check_links, parse_page, written_page
from gpuguide.build.pipeline import Options, Site, load
from gpuguide.errors import Problems
from gpuguide.project import Project
from gpuguide.render.renderer import PageRenderer
from gpuguide.structure.page_types import LAYOUTS


def _renderer(project: Project, site: Site) -> PageRenderer:
    renderer = PageRenderer(site.dataset, site.library, site.languages, project.templates_dir, Problems(project.root))
    renderer.compile_templates({page.meta.layout for page in site.library.published})
    assert renderer.problems.items == []
    return renderer


def _differences(root: Path, limit: int | None = None) -> tuple[list[str], set[tuple[str, str]]]:
    """Each page of the project at ``root`` whose noted ids or links differ from lxml's parse of its
    HTML (with what differs), and the (language, layout) of every page compared."""
    project = Project(root)
    site = load(project, Options(parallel=False))
    renderer = _renderer(project, site)
    differences, seen = [], set()
    for page in site.library.published[:limit]:
        output = renderer.render(page)
        assert output.html is not None and output.known is not None, page.source
        noted, parsed = written_page(output.known, page.output_path), parse_page(output.html, page.output_path)
        seen.add((page.lang, page.meta.layout))
        if set(noted.ids) != set(parsed.ids) or set(noted.links) != set(parsed.links):
            differences.append(f"{page.output_path}: ids noted only {set(noted.ids) - set(parsed.ids)}, "
                               f"not noted {set(parsed.ids) - set(noted.ids)}; links noted only "
                               f"{set(noted.links) - set(parsed.links)}, not noted {set(parsed.links) - set(noted.links)}")
    assert renderer.problems.items == []
    return differences, seen


def test_every_page_of_the_real_site_notes_the_ids_and_links_its_html_holds() -> None:
    differences, seen = _differences(ROOT)
    assert not differences, "\n".join(differences[:10])
    # Every layout, in both languages (the redirects of a pair's other order among the comparisons).
    assert seen == {(lang, layout) for lang in ("fr", "en") for layout in LAYOUTS}


def test_the_benchmark_corpus_pages_note_the_ids_and_links_their_html_holds(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "bench" / "corpus.py"), "--pages", "40", "--out", str(tmp_path),
                    "--kinds", "ours"], check=True, capture_output=True)
    differences, seen = _differences(tmp_path / "ours")
    assert not differences, "\n".join(differences[:10])
    assert ("en", "guide") in seen and ("fr", "guide") in seen


MARKDOWN_LINKS = """\
Text with an ![image](../assets/favicon.svg "title"), an autolink <https://example.com/x>, a
[reference][ref], a [link to a page](../gpus.md), [another](../llm-training.md#what-matters-training)
and [one to a heading here](#a-heading), an [empty one]() and [an email](mailto:a@example.com).

[ref]: ../models.md "Models"

## A heading

### A heading with [a link](../index.md) inside

| GPU | Page |
|---|---|
| A | [B](../gpus.md#faq) |

{{ llm_requirements_table models="llama-3-1-8b,qwen3-32b" precision=bf16 }}

"""
#: The first question of the page's FAQ.
FAQ_QUESTION = """### A question?

An answer with a [link](../methodology.md) and an ![image](data:image/gif;base64,R0lGODlhAQABAAAAACw=).

"""


def test_a_page_of_every_markdown_link_and_id_notes_what_its_html_holds(tmp_path: Path) -> None:
    root = copy_project(tmp_path / "site")
    guide = root / "content" / "en" / "guides" / "choosing-gpus-deep-learning-llm.md"
    before, faq, after = guide.read_text(encoding="utf-8").partition("::: faq\n")
    assert faq, "the guide has a FAQ"
    guide.write_text(before + MARKDOWN_LINKS + faq + FAQ_QUESTION + after, encoding="utf-8")
    project = Project(root)
    site = load(project, Options(parallel=False))
    renderer = _renderer(project, site)
    page = next(page for page in site.library.published if page.source.name == guide.name and page.lang == "en")
    output = renderer.render(page)
    assert output.html is not None and output.known is not None and renderer.problems.items == []
    noted, parsed = written_page(output.known, page.output_path), parse_page(output.html, page.output_path)
    assert set(noted.ids) == set(parsed.ids) and {"a-heading", "faq", "table-1", "table-1-hint"} <= set(noted.ids)
    assert set(noted.links) == set(parsed.links)
    hrefs = {link.href for link in noted.links}
    assert {"../assets/favicon.svg", "", "#a-heading", "../../gpus/#faq", "../../models/"} <= hrefs


def test_an_id_the_renderer_did_not_note_would_be_reported_missing() -> None:
    """What the notes are for: a link to an id its page does not note is an error (so a template
    writing an id without ``anchor()`` fails the build, never a reader)."""
    pages = {"en/a/index.html": ParsedPage(frozenset({"main"}), ()),
             "en/b/index.html": written_page(_known(["../a/#main", "../a/#faq"]), "en/b/index.html")}
    problems = Problems(Path("."))
    check_links(pages, set(), {}, problems)
    assert [problem.message for problem in problems.items] == ["link to a missing anchor: `../a/#faq`"]


def _known(hrefs: list[str]):  # type: ignore[no-untyped-def]
    from gpuguide.render.known_links import KnownLinks

    known = KnownLinks()
    for href in hrefs:
        known.href(href)
    return known


# --- the templates write no id or address the renderer does not note ------------------------------

#: The two pages made of the whole site, parsed by lxml at each build (``link_check.parse_page``).
PARSED_TEMPLATES = {"root.html", "not_found_all.html"}
#: Addresses a template writes as they are: outside the site (https:// by validation), or made
#: with ``url()`` in Python (``stylesheet``).
EXTERNAL = {"canonical", "address", "model.source", "gpu.source", "bid", "calls_to_action.sign_up",
            "calls_to_action.providers", "stylesheet"}


class _Attributes(HTMLParser):
    """The ``id``, ``href`` and ``src`` attributes of a template's tags, as written."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [(name, value) for name, value in attrs if name in ("id", "href", "src") and value is not None]


def _unnoted(source: str) -> list[str]:
    """The attributes of a template that write an id or an address without noting it."""
    parser = _Attributes()
    parser.feed(source)
    parser.close()
    wrong = []
    for name, value in parser.found:
        body = jinja2.Environment().parse(value).body
        parts = [part for block in body for part in getattr(block, "nodes", [])]
        call = parts[0] if len(parts) == 1 and isinstance(parts[0], nodes.Call) else None
        function = call.node.name if call is not None and isinstance(call.node, nodes.Name) else None
        if name == "id" and function == "anchor":
            continue
        if name != "id" and function in ("url", "link"):
            continue
        if (name != "id" and len(parts) == 1 and isinstance(parts[0], (nodes.Name, nodes.Getattr))
                and _dotted(parts[0]) in EXTERNAL):
            continue
        wrong.append(f'{name}="{value}"')
    return wrong


def _dotted(node: nodes.Node) -> str:
    if isinstance(node, nodes.Getattr):
        return f"{_dotted(node.node)}.{node.attr}"
    return node.name if isinstance(node, nodes.Name) else ""


def test_every_template_notes_the_ids_and_addresses_it_writes() -> None:
    folder = ROOT / "templates"
    wrong = {path.relative_to(folder).as_posix(): found for path in sorted(folder.rglob("*.html"))
             if path.name not in PARSED_TEMPLATES and (found := _unnoted(path.read_text(encoding="utf-8")))}
    assert not wrong, "write ids as id=\"{{ anchor('…') }}\" and addresses with url() or link(): " + repr(wrong)


@pytest.mark.parametrize(("written", "unnoted"), [
    ('<h2 id="new">x</h2>', ['id="new"']),
    ('<a href="#main">x</a>', ['href="#main"']),
    ('<a href="{{ page_link }}">x</a>', ['href="{{ page_link }}"']),
    ('<img src="{{ url(\'/a.png\') }}"><h2 id="{{ anchor(\'x-\' ~ n) }}"><a href="{{ link(\'#x\') }}">', []),
    ('<a href="{{ canonical }}">x</a>', []),
])
def test_a_template_writing_an_id_or_address_as_it_is_is_found(written: str, unnoted: list[str]) -> None:
    assert _unnoted(written) == unnoted
