"""sitemap.xml with each page's translations as ``xhtml:link`` alternates, robots.txt pointing to it,
and the other files beside the pages (``site_files``).

Built with lxml (ElementTree's API, in C) from the translation map, so every alternate is a page that was built.
"""

from __future__ import annotations

from typing import Any

from lxml import etree as ET

from gpuguide.render.site_view import PICKER_OPTIONS, picker_options
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.library import Library

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"


def sitemap_xml(library: Library, base_url: str, languages: list[str]) -> str:
    """One ``<url>`` per published, indexable page (``Page.indexable``: not the search and "not
    found" pages, not the pairs of GPUs nobody weighs, not a pair's other order), with ``hreflang``
    alternates and ``x-default`` (the root page, where a reader chooses a language); the root page
    first, its alternates the home page of each language."""
    namespaces: dict[Any, str] = {None: SITEMAP_NS, "xhtml": XHTML_NS}  # None: the default namespace
    root = ET.Element(f"{{{SITEMAP_NS}}}urlset", nsmap=namespaces)
    base = base_url.rstrip("/")
    entry = ET.SubElement(root, f"{{{SITEMAP_NS}}}url")
    ET.SubElement(entry, f"{{{SITEMAP_NS}}}loc").text = base + "/"
    homes = {lang: home for lang in languages if (home := library.reserved("home", lang)) is not None}
    for lang, home in homes.items():
        ET.SubElement(entry, f"{{{XHTML_NS}}}link", rel="alternate", hreflang=lang, href=base + home.url)
    ET.SubElement(entry, f"{{{XHTML_NS}}}link", rel="alternate", hreflang="x-default", href=base + "/")
    pages = sorted((p for p in library.published if p.indexable), key=lambda p: p.url)
    for page in pages:
        entry = ET.SubElement(root, f"{{{SITEMAP_NS}}}url")
        ET.SubElement(entry, f"{{{SITEMAP_NS}}}loc").text = base + page.url
        translations = {lang: other for lang in sorted(library.translations.get(page.meta.translation_key, {}))
                        if (other := library.find(page.meta.translation_key, lang)) is not None}
        if len(translations) < 2:
            continue
        for lang, other in translations.items():
            ET.SubElement(entry, f"{{{XHTML_NS}}}link", rel="alternate", hreflang=lang, href=base + other.url)
        ET.SubElement(entry, f"{{{XHTML_NS}}}link", rel="alternate", hreflang="x-default", href=base + "/")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def robots_txt(base_url: str) -> str:
    return f"User-agent: *\nAllow: /\n\nSitemap: {base_url.rstrip('/')}/sitemap.xml\n"


def site_files(sitemap: str, dataset: Dataset) -> dict[str, str]:
    """The files every build writes beside the pages, by path: the sitemap, robots.txt and the
    compare form's list of GPUs."""
    return {"sitemap.xml": sitemap, "robots.txt": robots_txt(dataset.config.base_url),
            PICKER_OPTIONS: picker_options(dataset)}
