"""The link check (``gpuguide.build.link_check``): what a page defines and links to, where a link leads,
and every broken link or anchor reported at its source file and line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from gpuguide.build.link_check import Link, ParsedPage, check_links, link_target, parse_page, resolve_links
from gpuguide.errors import Problems

PAGE = """<!doctype html>
<html lang="fr"><head>
<link rel="stylesheet" href="../../assets/style.css">
<script src="../../assets/site.js"></script>
</head><body>
<h2 id="memoire">Mémoire</h2>
<p id="débit">Débit</p>
<a name="ancien">old-style anchor</a>
<a href="../entrainement/#faq">FAQ</a>
<a>no address</a>
<img src="og.png" alt="">
<form action="/ailleurs/"><input id="champ"></form>
</body></html>"""


# --- parse_page ---------------------------------------------------------------------------------

def test_parse_page_finds_ids_and_named_anchors():
    parsed = parse_page(PAGE, "fr/gpu/index.html")
    # Any element's id and an <a name> are link targets; the non-ASCII id is read as text.
    assert set(parsed.ids) == {"memoire", "débit", "ancien", "champ"}


def test_parse_page_finds_links_of_anchors_stylesheets_images_and_scripts_resolved():
    parsed = parse_page(PAGE, "fr/gpu/index.html")
    # A form's action is not a link the check follows; an <a> without href makes no link.
    assert sorted(parsed.links) == sorted([Link("../../assets/style.css", "assets/style.css", ""),
                                           Link("../../assets/site.js", "assets/site.js", ""),
                                           Link("../entrainement/#faq", "fr/entrainement/index.html", "faq"),
                                           Link("og.png", "fr/gpu/og.png", "")])


def test_parse_page_reads_text_and_utf8_bytes_alike():
    from_text, from_bytes = parse_page(PAGE, "fr/gpu/index.html"), parse_page(PAGE.encode("utf-8"), "fr/gpu/index.html")
    assert set(from_bytes.ids) == set(from_text.ids)
    assert list(from_bytes.links) == list(from_text.links)


def test_resolve_links_keeps_each_internal_address_once_in_order_and_leaves_external_ones():
    hrefs = ["../", "https://example.com/#x", "#m%C3%A9moire", "../", "mailto:a@example.com", "/assets/a.css"]
    assert resolve_links("fr/gpu/index.html", hrefs) == (
        Link("../", "fr/index.html", ""), Link("#m%C3%A9moire", "fr/gpu/index.html", "mémoire"),
        Link("/assets/a.css", "assets/a.css", ""))


def test_parse_page_agrees_with_beautifulsoup_on_every_page_of_the_tiny_site(tiny_site: Path):
    """An independent parser finds the same ids and links in every real page."""
    pages = sorted(tiny_site.rglob("*.html"))
    assert len(pages) > 20
    for path in pages:
        data = path.read_bytes()
        soup = BeautifulSoup(data, "lxml")
        ids = {tag["id"] for tag in soup.find_all(id=True)} | {tag["name"] for tag in soup.find_all("a", attrs={"name": True})}
        hrefs = ([tag["href"] for tag in soup.find_all(["a", "link"], href=True)]
                 + [tag["src"] for tag in soup.find_all(["img", "script"], src=True)])
        output = path.relative_to(tiny_site).as_posix()
        internal = {href for href in hrefs if link_target(output, href) is not None}
        parsed = parse_page(data, output)
        assert set(parsed.ids) == ids, path
        assert sorted(link.href for link in parsed.links) == sorted(internal), path
        assert all(link.target == link_target(output, link.href) for link in parsed.links), path


# --- link_target --------------------------------------------------------------------------------

@pytest.mark.parametrize(("href", "expected"), [
    ("../entrainement/", "fr/entrainement/index.html"),  # a sibling page: a folder, its index.html
    ("h100-sxm/", "fr/gpu/h100-sxm/index.html"),  # a child page
    ("./", "fr/gpu/index.html"),
    (".", "fr/gpu/index.html"),
    ("../../assets/style.css", "assets/style.css"),  # a file, kept as it is
    ("og.png", "fr/gpu/og.png"),
    ("/", "index.html"),  # site-absolute: the root page
    ("/fr/gpu/", "fr/gpu/index.html"),
    ("/assets/style.css", "assets/style.css"),
    ("#memoire", "fr/gpu/index.html"),  # an anchor of the page itself
    ("?tri=prix", "fr/gpu/index.html"),
    ("../entrainement/#faq", "fr/entrainement/index.html"),  # the fragment is not part of the file
    ("caf%C3%A9/", "fr/gpu/café/index.html"),  # percent-encoding undone
])
def test_link_target_resolves_internal_links_to_output_files(href: str, expected: str):
    assert link_target("fr/gpu/index.html", href) == expected


@pytest.mark.parametrize("href", ["https://example.com/fr/", "http://example.com", "//cdn.example.com/x.js",
                                  "mailto:someone@example.com"])
def test_link_target_ignores_external_addresses(href: str):
    assert link_target("fr/gpu/index.html", href) is None


def test_link_target_of_a_link_that_leaves_the_site_starts_with_dotdot():
    assert link_target("fr/gpu/index.html", "../../../ailleurs/").startswith("..")


# --- check_links --------------------------------------------------------------------------------

@dataclass
class RawPage:
    """A page's ids and links as written, before ``resolve_links`` (what a worker sends is resolved)."""

    ids: set[str]
    links: list[str]


def _site() -> dict[str, RawPage]:
    """Two French pages that link to each other and to the stylesheet, every link valid."""
    return {
        "fr/index.html": RawPage({"haut"}, ["entrainement/", "entrainement/#faq", "../assets/style.css", "#haut",
                                            "https://example.com/"]),
        "fr/entrainement/index.html": RawPage({"faq", "mémoire"}, ["../", "#m%C3%A9moire", "/assets/style.css"]),
    }


def _resolved(pages: dict[str, RawPage]) -> dict[str, ParsedPage]:
    return {output: ParsedPage(page.ids, resolve_links(output, page.links)) for output, page in pages.items()}


def _sources(root: Path) -> dict[str, Path]:
    return {"fr/index.html": root / "content" / "fr" / "index.md",
            "fr/entrainement/index.html": root / "content" / "fr" / "entrainement.md"}


def test_check_links_accepts_a_site_whose_links_all_resolve(tmp_path: Path):
    problems = Problems(tmp_path)
    check_links(_resolved(_site()), {"assets/style.css"}, _sources(tmp_path), problems)
    assert problems.items == []


def test_a_link_to_a_missing_page_is_reported_at_its_source_file_and_line(tmp_path: Path):
    parsed = _site()
    parsed["fr/entrainement/index.html"].links.append("../inference/")
    problems = Problems(tmp_path)
    check_links(_resolved(parsed), {"assets/style.css"}, _sources(tmp_path), problems,
                link_lines={"fr/entrainement/index.html": {"../inference/": 12}})
    assert len(problems.errors) == 1
    problem = problems.errors[0]
    # Named by the Markdown file, relative to the project root, at the line the link was written.
    assert (problem.path, problem.line) == ("content/fr/entrainement.md", 12)
    assert "`../inference/`" in problem.message and "does not exist" in problem.message


def test_a_link_to_a_missing_anchor_is_reported(tmp_path: Path):
    parsed = _site()
    parsed["fr/index.html"].links.append("entrainement/#prix")
    problems = Problems(tmp_path)
    check_links(_resolved(parsed), {"assets/style.css"}, _sources(tmp_path), problems,
                link_lines={"fr/index.html": {"entrainement/#prix": 7}})
    assert [(p.path, p.line) for p in problems.errors] == [("content/fr/index.md", 7)]
    assert "missing anchor" in problems.errors[0].message and "#prix" in problems.errors[0].message


def test_a_missing_anchor_of_the_page_itself_is_reported(tmp_path: Path):
    parsed = _site()
    parsed["fr/index.html"].links.append("#bas")
    problems = Problems(tmp_path)
    check_links(_resolved(parsed), {"assets/style.css"}, _sources(tmp_path), problems)
    assert len(problems.errors) == 1 and "#bas" in problems.errors[0].message


def test_a_missing_asset_and_a_link_out_of_the_site_are_reported(tmp_path: Path):
    problems = Problems(tmp_path)
    # No stylesheet among the files; and a link that climbs above the site's root.
    parsed = _site()
    parsed["fr/index.html"].links.append("../../hors-du-site/")
    check_links(_resolved(parsed), set(), _sources(tmp_path), problems)
    messages = [p.message for p in problems.errors]
    assert len(messages) == 3, messages  # the stylesheet from both pages, and the link out
    assert sum("style.css" in m for m in messages) == 2
    assert any("hors-du-site" in m for m in messages)


def test_a_link_without_a_known_line_is_reported_at_line_1_and_line_0_is_not_reported_again(tmp_path: Path):
    parsed = _site()
    parsed["fr/index.html"].links.extend(["perdu/", "deja-signale/"])
    problems = Problems(tmp_path)
    # 0: the Markdown renderer already reported this link; a template's link has no line: 1.
    check_links(_resolved(parsed), {"assets/style.css"}, _sources(tmp_path), problems,
                link_lines={"fr/index.html": {"deja-signale/": 0}})
    assert [(p.line, "perdu/" in p.message) for p in problems.errors] == [(1, True)]


def test_a_page_without_a_source_is_named_by_its_output_path(tmp_path: Path):
    parsed = _site()
    parsed["index.html"] = RawPage(set(), ["fr/", "de/"])  # the root page: no Markdown behind it
    problems = Problems(tmp_path)
    check_links(_resolved(parsed), {"assets/style.css"}, _sources(tmp_path), problems)
    assert [p.path for p in problems.errors] == ["index.html"]
    assert "`de/`" in problems.errors[0].message


def test_only_checks_the_links_of_the_pages_named(tmp_path: Path):
    parsed = _site()
    parsed["fr/index.html"].links.append("perdu/")
    parsed["fr/entrainement/index.html"].links.append("../perdu-aussi/")
    problems = Problems(tmp_path)
    check_links(_resolved(parsed), {"assets/style.css"}, _sources(tmp_path), problems, only={"fr/entrainement/index.html"})
    assert [p.path for p in problems.errors] == ["content/fr/entrainement.md"]
    assert "perdu-aussi" in problems.errors[0].message


def test_a_link_to_an_output_file_that_is_not_a_page_is_accepted_without_an_anchor_check(tmp_path: Path):
    parsed = {"fr/index.html": RawPage(set(), ["../404.html#top", "/sitemap.xml"])}
    problems = Problems(tmp_path)
    # 404.html and sitemap.xml are files of the site whose ids were not parsed: they exist, nothing more.
    check_links(_resolved(parsed), {"404.html", "sitemap.xml"}, {}, problems)
    assert problems.items == []
