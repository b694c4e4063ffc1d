"""Heading ids: stable ASCII anchors (``Ce qui compte : entraînement`` → ``ce-qui-compte-entrainement``),
and headings that link to themselves."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from slugify import slugify

#: python-slugify's own patterns (``slugify._legacy``): characters a slug drops, runs of dashes.
_DISALLOWED = re.compile(r"[^-a-zA-Z0-9]+")


_DASHES = re.compile(r"-{2,}")


@lru_cache(maxsize=8192)
def heading_id(text: str) -> str:
    """``Ce qui compte : entraînement de LLM`` → ``ce-qui-compte-entrainement-de-llm``."""
    if text.isascii() and not any(char in text for char in "&',"):
        # What slugify does to such text (nothing to transliterate, no entity, quote or
        # thousands separator to drop), without its eight passes over it: tests compare the two.
        return _DASHES.sub("-", _DISALLOWED.sub("-", text.lower())).strip("-") or "section"
    # An explicit backend: "auto" tries to import the optional ``unidecode`` on every call.
    return slugify(text, backend="text-unidecode") or "section"


def _heading_open(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    """A heading with an id links to itself (a reader can copy the section's address), unless it
    holds a link of its own: links do not nest."""
    token = tokens[idx]
    anchor = token.attrGet("id")
    html = self.renderToken(tokens, idx, options, env)
    if anchor is None or _has_link(tokens[idx + 1]):
        return html
    return f'{html}<a class="heading-link" href="#{escapeHtml(str(anchor))}">'


def _heading_close(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    opening = tokens[idx - 2] if idx >= 2 else None
    html = self.renderToken(tokens, idx, options, env)
    if opening is None or opening.type != "heading_open" or opening.attrGet("id") is None or _has_link(tokens[idx - 1]):
        return html
    return "</a>" + html


def _has_link(inline: Token) -> bool:
    return any(child.type == "link_open" for child in inline.children or [])


def heading_links_plugin(md: MarkdownIt) -> None:
    """Headings with an id (``anchors_plugin``) become links to themselves."""
    md.add_render_rule("heading_open", _heading_open)
    md.add_render_rule("heading_close", _heading_close)
