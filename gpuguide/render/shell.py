"""The use-case menu, which every page of a language shows twice (in the header's menu and in the
footer's site map), as fragments of the page whose places the page's output keeps (``Spans``).

Every page shows the use cases' titles: without this, editing one of them rendered every page of
the site again. A page whose own inputs are unchanged now gets the new menu put in its place in the
file the last build wrote (``splice``), which costs a read and a write; the pages that show a use
case's title in their content note it as read (``SiteView.use_cases``) and are rendered again.

The template marks where the fragments go (``MARKS``, tokens drawn at random for each process: no
page's content can contain them), and ``fill`` puts them there.
"""

from __future__ import annotations

import functools
import hashlib
import json
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING

from markupsafe import Markup

from gpuguide.render.environment import escaped

if TYPE_CHECKING:
    from gpuguide.render.environment import Link

#: Where a page's template puts the header's and the footer's use-case links (``base.html``).
MARKS = tuple(Markup(f"\0menu-{part}-{secrets.token_hex(8)}\0") for part in ("header", "footer"))

CURRENT = ' aria-current="page"'  # on the menu's link to the page itself

#: The fragments' (start, end) offsets in the page's text (characters), header then footer.
Spans = tuple[tuple[int, int], ...]


def fragments(menu: list[Link], page_url: str, url: Callable[[str], str]) -> tuple[str, str]:
    """The header's and the footer's use-case links of the page at ``page_url``, ``url`` making
    each link's address as that page writes it (relative to the page). Each fragment is the
    links' lines without the last line break, which the template's line gives."""
    hrefs = tuple(url(link.url or "") for link in menu)
    current = next((index for index, link in enumerate(menu) if link.url == page_url), -1)
    return _fragments(tuple(escaped(link.label) for link in menu), hrefs, current)


@functools.lru_cache(maxsize=1024)
def _fragments(labels: tuple[str, ...], hrefs: tuple[str, ...], current: int) -> tuple[str, str]:
    # Pages of one folder (a language's comparisons, its GPUs) write the same links: made once.
    marks = [CURRENT if index == current else "" for index in range(len(hrefs))]
    header = "\n".join(f'            <li><a href="{escaped(href)}"{mark}>{label}</a></li>'
                       for href, mark, label in zip(hrefs, marks, labels))
    footer = "\n".join(f'      <li><a href="{escaped(href)}">{label}</a></li>' for href, label in zip(hrefs, labels))
    return header, footer


def menu_digest(menu: list[Link]) -> str:
    """What the fragments are made of besides each page's address: a page whose digest differs
    needs its fragments again."""
    text = json.dumps([(link.label, link.url) for link in menu], ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


def fill(html: str, parts: tuple[str, str]) -> tuple[str, Spans | None]:
    """``html`` with each mark replaced by its fragment, and the fragments' places: () for a
    template that shows no menu; None for one that shows one mark without the other, or a mark twice
    (an edited template): every mark is replaced, but the page cannot be given a new menu in place
    (the renderer then notes it read the titles, and it is rendered again when they change)."""
    spans: list[tuple[int, int]] = []
    counts = [html.count(mark) for mark in MARKS]
    if counts != [1] * len(MARKS):
        for mark, part in zip(MARKS, parts):
            html = html.replace(mark, part)
        return html, (() if not any(counts) else None)
    pieces: list[str] = []
    length, rest = 0, html
    for mark, part in zip(MARKS, parts):
        before, _, rest = rest.partition(mark)
        pieces += [before, part]
        spans.append((length + len(before), length + len(before) + len(part)))
        length += len(before) + len(part)
    pieces.append(rest)
    return "".join(pieces), tuple(spans)


def splice(text: str, spans: Spans, parts: tuple[str, str]) -> tuple[str, Spans]:
    """``text`` (a page as ``fill`` made it, with ``spans``) with its fragments replaced by ``parts``
    (in the order of the spans: a page without a header menu has none)."""
    pieces: list[str] = []
    moved: list[tuple[int, int]] = []
    last, shift = 0, 0
    for (start, end), part in zip(spans, parts):
        pieces += [text[last:start], part]
        moved.append((start + shift, start + shift + len(part)))
        shift += len(part) - (end - start)
        last = end
    pieces.append(text[last:])
    return "".join(pieces), tuple(moved)


def record(digest: str, spans: Spans) -> str:
    """What a page's cache entry keeps of its menu: the menu's digest and the fragments' places."""
    return " ".join([digest, *(str(offset) for span in spans for offset in span)])


def same_menu(text: str, digest: str) -> bool:
    """Whether ``record`` wrote ``text`` for the menu of ``digest`` (compared, not parsed: ten
    thousand pages at each build)."""
    return text.startswith(digest) and text[len(digest):len(digest) + 1] in ("", " ")


def read_record(text: str) -> tuple[str, Spans] | None:
    """What ``record`` wrote; None for anything else (then the page is rendered again)."""
    digest, *offsets = text.split(" ")
    if len(offsets) not in (0, 2 * len(MARKS)) or not all(offset.isdigit() for offset in offsets):
        return None
    numbers = [int(offset) for offset in offsets]
    return digest, tuple(zip(numbers[::2], numbers[1::2]))
