"""Links in Markdown: each link's source line (for the link check), ``rel="noopener"`` on external
links, and links to a page's Markdown file (``entrainement-llm.md#anchor``) turned into that page's
URL, as MkDocs does. A link to a file that is no published page is an error at its line."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.link import link
from markdown_it.token import Token


def _link_with_offset(state: StateInline, silent: bool) -> bool:
    """markdown-it's link rule, noting where in its block each link starts (``meta["offset"]``)."""
    start, first = state.pos, len(state.tokens)
    if not link(state, silent):
        return False
    for token in state.tokens[first:]:
        if token.type == "link_open" and "offset" not in token.meta:
            token.meta["offset"] = start
    return True


def _source_lines(state: StateCore) -> None:
    """Give each link its line in the Markdown (``token.meta["line"]``, 0-based within the text).

    Inline children carry no ``map``: the block's text keeps its line breaks (a code span's
    content does not), so a link is on the line of its offset in that text.
    """
    for block in state.tokens:
        if block.type != "inline" or not block.map:
            continue
        for child in block.children or []:
            if child.type == "link_open":
                child.meta["line"] = block.map[0] + block.content.count("\n", 0, child.meta.get("offset", 0))


def _link_open(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    """External links get ``rel="noopener"``; links to a page's Markdown file become its URL.

    Every link is recorded in ``env["links"]`` with its line, so the link check can point at it.
    """
    token = tokens[idx]
    href = str(token.attrGet("href") or "")
    line = env.get("line", 1) + token.meta.get("line", 0)
    parts = urlsplit(href)
    if parts.scheme.lower() in ("http", "https") or href.startswith("//"):
        token.attrSet("rel", "noopener")
    elif not parts.scheme and parts.path.endswith(".md") and not parts.path.startswith("/"):
        resolved = _page_link(unquote(parts.path), parts.fragment, line, env)
        if resolved is None:
            line = 0  # reported already: the link check skips it
        href = resolved or href
        token.attrSet("href", href)
    env.setdefault("links", {}).setdefault(href, line)
    return self.renderToken(tokens, idx, options, env)


def _page_link(md_path: str, fragment: str, line: int, env: dict) -> str | None:
    """``entrainement-llm.md#anchor`` (relative to the page's file) → that page's relative URL.

    None after reporting that no published page comes from that file.
    """
    resolve = env.get("resolve_source_link")
    try:
        if resolve is None:
            raise LookupError(None)
        url = resolve(md_path)
    except LookupError as exc:
        if "problems" in env:
            env["problems"].error(env["source"], line, 1,
                                  f"link to a Markdown file that is not a published page: `{md_path}`",
                                  exc.args[0] if exc.args and exc.args[0] else
                                  "link to a page's .md file, relative to this file (drafts are not published)")
        return None
    return f"{url}#{fragment}" if fragment else url


def links_plugin(md: MarkdownIt) -> None:
    """Plug link handling into a markdown-it parser."""
    md.inline.ruler.at("link", _link_with_offset)
    md.core.ruler.push("source_lines", _source_lines)
    md.add_render_rule("link_open", _link_open)
