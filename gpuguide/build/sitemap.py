"""sitemap.xml with each page's translations as ``xhtml:link`` alternates, robots.txt pointing to it,
and the other files beside the pages (``site_files``).

Made from the translation map, so every alternate is a page that was built. Written as text, in
the layout and with the escapes lxml gives the same tree (``tests/build/test_sitemap.py`` compares
the two): at 10,000 pages lxml's tree took 0.15 s of the build's last, single-core stage.
"""

from __future__ import annotations

from gpuguide.render.site_view import PICKER_OPTIONS, picker_options
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.library import Library

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"

#: XML's escapes in an element's text and in an attribute's value, as lxml writes them.
_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\r": "&#13;"})
_ATTRIBUTE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\t": "&#9;", "\n": "&#10;",
                            "\r": "&#13;"})


def _url(loc: str, alternates: list[tuple[str, str]]) -> str:
    links = "".join(f'    <xhtml:link rel="alternate" hreflang="{lang.translate(_ATTRIBUTE)}" '
                    f'href="{href.translate(_ATTRIBUTE)}"/>\n' for lang, href in alternates)
    return f"  <url>\n    <loc>{loc.translate(_TEXT)}</loc>\n{links}  </url>\n"


def sitemap_xml(library: Library, base_url: str, languages: list[str]) -> str:
    """One ``<url>`` per published, indexable page (``Page.indexable``: not the search and "not
    found" pages, not the pairs of GPUs nobody weighs, not a pair's other order), with ``hreflang``
    alternates and ``x-default`` (the root page, where a reader chooses a language); the root page
    first, its alternates the home page of each language."""
    base = base_url.rstrip("/")
    homes = {lang: home for lang in languages if (home := library.reserved("home", lang)) is not None}
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n', f'<urlset xmlns="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}">\n',
             _url(base + "/", [(lang, base + home.url) for lang, home in homes.items()] + [("x-default", base + "/")])]
    pages = sorted((p for p in library.published if p.indexable), key=lambda p: p.url)
    for page in pages:
        translations = {lang: other for lang in sorted(library.translations.get(page.meta.translation_key, {}))
                        if (other := library.find(page.meta.translation_key, lang)) is not None}
        alternates = ([(lang, base + other.url) for lang, other in translations.items()] + [("x-default", base + "/")]
                      if len(translations) >= 2 else [])
        parts.append(_url(base + page.url, alternates))
    parts.append("</urlset>\n")
    return "".join(parts)


def robots_txt(base_url: str) -> str:
    return f"User-agent: *\nAllow: /\n\nSitemap: {base_url.rstrip('/')}/sitemap.xml\n"


def site_files(sitemap: str, dataset: Dataset) -> dict[str, str]:
    """The files every build writes beside the pages, by path: the sitemap, robots.txt and the
    compare form's list of GPUs."""
    return {"sitemap.xml": sitemap, "robots.txt": robots_txt(dataset.config.base_url),
            PICKER_OPTIONS: picker_options(dataset)}
