"""sitemap.xml and robots.txt (``gpuguide.build.sitemap``), from the tiny site's library loaded in
this process: every indexable page once, each with its translations as hreflang alternates."""

from __future__ import annotations

from pathlib import Path
from urllib.robotparser import RobotFileParser

import pytest
from lxml import etree
from sites import edit, tiny_project

from gpuguide.build.pipeline import Options, load
from gpuguide.build.sitemap import robots_txt, sitemap_xml
from gpuguide.project import Project
from gpuguide.structure.library import Library
from gpuguide.structure.pages import Page, PairSubject, ReversedPairSubject

NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
BASE = "https://gpus.example.org"


def _load(root: Path) -> Library:
    return load(Project(root), Options(parallel=False)).library


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Library:
    """The tiny site's pages, loaded (not rendered): what the sitemap is made from."""
    return _load(tiny_project(tmp_path_factory.mktemp("sitemap") / "tiny"))


def _entries(xml: str) -> list[tuple[str, dict[str, str]]]:
    """Each ``<url>``: its address and its alternates by hreflang (each hreflang at most once)."""
    root = etree.fromstring(xml.encode("utf-8"))
    assert root.tag == f"{{{NS['s']}}}urlset"
    entries = []
    for url in root.findall("s:url", NS):
        links = url.findall("x:link", NS)
        assert all(link.get("rel") == "alternate" for link in links)
        alternates = {link.get("hreflang"): link.get("href") for link in links}
        assert len(alternates) == len(links), "an hreflang given twice"
        entries.append((url.findtext("s:loc", namespaces=NS), alternates))
    return entries


def test_the_sitemap_is_well_formed_utf8_xml(library: Library):
    xml = sitemap_xml(library, BASE, ["fr", "en"])
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>')
    etree.fromstring(xml.encode("utf-8"))  # raises on malformed XML


def test_the_root_page_comes_first_with_each_home_page_and_x_default(library: Library):
    loc, alternates = _entries(sitemap_xml(library, BASE, ["fr", "en"]))[0]
    assert loc == f"{BASE}/"
    assert alternates == {"fr": f"{BASE}/fr/", "en": f"{BASE}/en/", "x-default": f"{BASE}/"}


def test_every_indexable_page_is_listed_once_and_search_and_404_pages_never(library: Library):
    locs = [loc for loc, _ in _entries(sitemap_xml(library, BASE, ["fr", "en"]))]
    assert len(locs) == len(set(locs))
    # The search and "not found" pages are `noindex`; so are the pairs of GPUs no buyer weighs (the
    # larger memory over three times the smaller: Card's 24 GB against 80) and a pair's other order
    # (a redirect); everything else that is published is listed.
    def listed(page: Page) -> bool:
        if page.meta.layout in ("search", "not_found") or isinstance(page.subject, ReversedPairSubject):
            return False
        if isinstance(page.subject, PairSubject):
            memories = sorted(gpu.memory_gb for gpu in (page.subject.first, page.subject.second))
            return memories[1] <= 3 * memories[0]
        return True
    expected = {f"{BASE}{page.url}" for page in library.published if listed(page)}
    assert set(locs[1:]) == expected
    for url in ("/fr/recherche/", "/en/search/", "/fr/404/", "/en/404/", "/fr/comparer/big-vs-card/",
                "/en/compare/pcie-vs-card/", "/fr/comparer/pcie-vs-big/"):
        assert f"{BASE}{url}" not in locs
    # Generated pages are there too: one per GPU, per pair buyers weigh, per model.
    for url in ("/fr/gpu/big/", "/en/gpus/card/", "/fr/comparer/big-vs-pcie/", "/en/models/image-model/"):
        assert f"{BASE}{url}" in locs
    # 22 published pages a language (3 pairs and their 3 other orders among them), minus search, 404,
    # the 3 other orders and the 2 pairs with Card, in two languages; and the root page.
    assert len(locs) == 2 * (22 - 2 - 3 - 2) + 1
    assert locs[1:] == sorted(locs[1:])  # a stable order: by URL


def test_a_page_lists_itself_and_its_translation_as_alternates(library: Library):
    entries = dict(_entries(sitemap_xml(library, BASE, ["fr", "en"])))
    expected = {"fr": f"{BASE}/fr/entrainement/", "en": f"{BASE}/en/training/", "x-default": f"{BASE}/"}
    assert entries[f"{BASE}/fr/entrainement/"] == expected
    assert entries[f"{BASE}/en/training/"] == expected
    assert entries[f"{BASE}/en/compare/big-vs-pcie/"]["fr"] == f"{BASE}/fr/comparer/big-vs-pcie/"


def test_alternates_are_reciprocal_and_point_to_listed_pages(library: Library):
    entries = dict(_entries(sitemap_xml(library, BASE, ["fr", "en"])))
    for loc, alternates in entries.items():
        assert alternates.get("x-default") == f"{BASE}/", loc
        languages = {lang: href for lang, href in alternates.items() if lang != "x-default"}
        # Each page names itself (the root page as x-default: it has no language of its own).
        assert loc in alternates.values(), f"{loc} is not among its own alternates"
        for href in languages.values():
            assert href in entries, f"{loc} names {href}, which is not in the sitemap"
            assert entries[href] == alternates, f"{loc} and {href} disagree on their alternates"


def test_the_base_url_is_used_with_or_without_a_trailing_slash(library: Library):
    with_slash, without = sitemap_xml(library, BASE + "/", ["fr", "en"]), sitemap_xml(library, BASE, ["fr", "en"])
    assert with_slash == without
    assert all(loc.startswith(BASE + "/") and "//" not in loc[len("https://"):] for loc, _ in _entries(without))


def test_a_page_whose_translation_is_a_draft_has_no_alternates(tmp_path: Path):
    root = tiny_project(tmp_path / "tiny")
    edit(root / "content" / "en" / "guides" / "first-guide.md", "layout: guide", "layout: guide\ndraft: true")
    entries = dict(_entries(sitemap_xml(_load(root), BASE, ["fr", "en"])))
    assert f"{BASE}/en/guides/first-guide/" not in entries  # a draft is not published
    assert entries[f"{BASE}/fr/guides/premier-guide/"] == {}  # so the French guide names no translation
    assert entries[f"{BASE}/fr/entrainement/"]["en"] == f"{BASE}/en/training/"  # the others keep theirs


def test_robots_txt_allows_everything_and_names_the_sitemap():
    for base in (BASE, BASE + "/"):
        text = robots_txt(base)
        parser = RobotFileParser()
        parser.parse(text.splitlines())
        assert parser.can_fetch("*", f"{BASE}/fr/gpu/big/")
        assert parser.can_fetch("Googlebot", f"{BASE}/")
        assert parser.site_maps() == [f"{BASE}/sitemap.xml"]


def test_the_sitemap_is_written_as_lxml_writes_the_same_tree(library: Library):
    # Parsed and written again by lxml (indented as it indents), the text is the same: the layout
    # and the escapes are lxml's own.
    xml = sitemap_xml(library, BASE, ["fr", "en"])
    root = etree.fromstring(xml.encode("utf-8"))
    etree.indent(root)
    assert xml == '<?xml version="1.0" encoding="UTF-8"?>\n' + etree.tostring(root, encoding="unicode") + "\n"


def test_addresses_are_escaped_as_lxml_escapes_them():
    from gpuguide.build.sitemap import SITEMAP_NS, XHTML_NS, _url

    odd = "https://e.org/a&b<c>d\"e'f\tg\nh\ri\u00e9/"
    root = etree.Element(f"{{{SITEMAP_NS}}}urlset", nsmap={None: SITEMAP_NS, "xhtml": XHTML_NS})
    url = etree.SubElement(root, f"{{{SITEMAP_NS}}}url")
    etree.SubElement(url, f"{{{SITEMAP_NS}}}loc").text = odd
    etree.SubElement(url, f"{{{XHTML_NS}}}link", rel="alternate", hreflang="f\"r", href=odd)
    etree.indent(root)
    expected = etree.tostring(root, encoding="unicode").split("\n", 1)[1].rsplit("\n", 1)[0] + "\n"
    assert _url(odd, [('f"r', odd)]) == expected
    parsed = etree.fromstring(f'<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}">\n{expected}</urlset>'.encode())
    assert parsed.findtext("s:url/s:loc", namespaces=NS) == odd  # every character back
    assert parsed.find("s:url/x:link", NS).get("href") == odd
