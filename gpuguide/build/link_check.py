"""Checks on the rendered site before it is published: every internal link and anchor resolves.

A page rendered now gives its ids and links as the renderer noted them while writing its HTML
(``render.known_links``: ``written_page``), not by parsing that HTML again. The worker that
rendered it resolves each internal link to the output file it points to (``Link``), once per
address: what is left for the build's own process, which checks every page after the workers, is
set lookups. An unchanged page is not rendered again: its cache entry holds its ids and links.

The two pages made of the whole site (the root page, ``/404.html``) are parsed (``parse_page``):
with lxml (libxml2's HTML parser, in C), never matched with regular expressions, plain
``lxml.etree`` fed UTF-8 bytes, with compiled XPath queries. The tests parse every page so, and
find what the renderer noted.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, cast
from urllib.parse import unquote, urlsplit

from lxml import etree

from gpuguide.errors import Problems

if TYPE_CHECKING:
    from gpuguide.build.page_cache import PageEntry
    from gpuguide.render.known_links import KnownLinks
    from gpuguide.build.workers import RenderedPage


class Link(NamedTuple):
    """An internal link of a page, resolved where the page is parsed."""

    href: str  # as the page writes it: what an error quotes, and the key of its Markdown line
    target: str  # the output file it points to (``fr/gpu/index.html``); starts with ``..`` when it leaves the site
    fragment: str  # its #fragment, percent-encoding undone ("" for none)


@dataclass
class ParsedPage:
    """What the link check needs of a page: the ids it defines and its internal links, each once."""

    ids: Collection[str] = field(default_factory=frozenset)
    links: Sequence[Link] = ()


_PARSER = etree.HTMLParser(encoding="utf-8")
_IDS = etree.XPath("//@id | //a/@name")
_LINKS = etree.XPath("//a/@href | //link/@href | //img/@src | //script/@src", smart_strings=False)


def parse_page(html: str | bytes, output: str) -> ParsedPage:
    """The ids the page at ``output`` defines and its internal links, from its text or its UTF-8 bytes."""
    root = etree.fromstring(html.encode("utf-8") if isinstance(html, str) else html, _PARSER)
    return ParsedPage({str(value) for value in cast(list[str], _IDS(root))},
                      resolve_links(output, cast(list[str], _LINKS(root))))


def written_page(known: KnownLinks, output: str) -> ParsedPage:
    """The ids and internal links of the page at ``output``, as its renderer noted them."""
    return ParsedPage(frozenset(known.ids), resolve_links(output, known.hrefs))


def resolve_links(output: str, hrefs: Iterable[str]) -> tuple[Link, ...]:
    """The internal links among ``hrefs``, made by the page at ``output``, in order, each address
    once: a page repeats its menus' addresses, and external ones are not checked at build time."""
    links: list[Link] = []
    seen: set[str] = set()
    for href in hrefs:
        if href in seen:
            continue
        seen.add(href)
        target = link_target(output, href)
        if target is not None:
            links.append(Link(href, target, unquote(_split(href).fragment)))
    return tuple(links)


# Pages share most of their links (menus, stylesheet, scripts): split each address once.
_split = lru_cache(maxsize=4096)(urlsplit)


def link_target(path: str, href: str) -> str | None:
    """The output file a link of the page at ``path`` points to (``fr/gpu/index.html``); None for an
    external address. May start with ``..`` when it leaves the site."""
    parts = _split(href)
    if parts.scheme or parts.netloc or href.startswith("mailto:"):
        return None  # external: not ours to check at build time
    if parts.path.startswith("/"):  # site-absolute (the 404 page)
        target = posixpath.normpath(unquote(parts.path).lstrip("/") or ".")
    else:
        target = path if not parts.path else posixpath.normpath(
            posixpath.join(posixpath.dirname(path), unquote(parts.path)))
    if parts.path.endswith("/") or parts.path in ("", "."):
        target = posixpath.normpath(posixpath.join(target, "index.html")) if parts.path else target
    return target


def check_links(parsed: Mapping[str, ParsedPage], files: set[str], sources: Mapping[str, Path | str], problems: Problems,
                link_lines: dict[str, dict[str, int]] | None = None, only: set[str] | None = None) -> None:
    """Report every internal link or anchor that points to nothing in the output.

    ``parsed`` maps each output path (``fr/entrainement-llm/index.html``) to its ids and resolved
    links (``parse_page``), ``files`` holds every other output file, ``sources`` maps output paths to
    the Markdown they came from, ``link_lines`` gives the Markdown line of each link written in a
    page's source (others: line 1); ``only``: the pages whose links are checked (default: all): only
    theirs are looked up in ``parsed``, with the ids of the pages they link to.
    """
    link_lines = link_lines or {}

    def report(path: str, href: str, message: str, hint: str) -> None:
        line = link_lines.get(path, {}).get(href, 1)
        if line != 0:  # 0: reported when the Markdown was rendered
            problems.error(sources.get(path, Path(path)), line, 1, message, hint)

    for path in sorted(parsed if only is None else [path for path in only if path in parsed]):
        for href, target, fragment in parsed[path].links:
            if target.startswith("..") or (target not in parsed and target not in files):
                report(path, href, f"link to a page that does not exist: `{href}`",
                       "link to a published page (drafts and missing translations are not built)")
                continue
            if fragment and target in parsed and fragment not in parsed[target].ids:
                report(path, href, f"link to a missing anchor: `{href}`", "check the heading's id in the target page")


def check_build_links(rendered: Mapping[str, RenderedPage], site_wide: Mapping[str, ParsedPage],
                      reused: Mapping[str, PageEntry], sources: Mapping[str, Path | str], files: set[str],
                      problems: Problems) -> None:
    """The link check of one build: the links of the pages rendered now (``rendered``, and the
    ``site_wide`` pages: root, 404), and of the unchanged pages that link to an anchor of one.
    An unchanged page's plain links still resolve (the set of pages is in the global key), and
    what the check needs of it is read from its cache entry, never from its HTML again. A page that
    failed to render is not linked to as missing: its own problem is reported."""
    from gpuguide.build.page_cache import LinkedPages

    parsed = {output: page.parsed for output, page in rendered.items() if page.written or page.html}
    parsed.update(site_wide)
    linked = LinkedPages(parsed, reused)
    failed = {output for output in [*sources, "index.html"] if output not in linked}
    now = set(rendered)
    checked = now | set(site_wide) | {output for output, entry in reused.items()
                                      if not entry.anchor_targets.isdisjoint(now)}
    link_lines = {output: page.link_lines for output, page in rendered.items()}
    link_lines.update({output: reused[output].links.link_lines for output in checked - now if output in reused})
    check_links(linked, files | failed, sources, problems, link_lines, only=checked)
