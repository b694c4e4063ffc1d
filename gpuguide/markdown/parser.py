"""Markdown to HTML with markdown-it-py, through its extension points.

- CommonMark with tables enabled and raw HTML off: an editor's ``<script>`` is shown as text.
- ``::: faq`` … ``:::`` holds the FAQ: each heading inside is a question, what follows it the answer.
  The FAQ is returned as data, so the template renders it as an accordion and as JSON-LD.
- ``{{ name key=value }}`` shortcodes print figures computed by the sizing library (``shortcodes``).
- Headings get stable ASCII ids, none a layout uses, and link to themselves (``headings``); tables
  get a caption, row headers and a labelled scroll region (``tables``); links are resolved and
  located (``links``); the language's typography applies to the text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from functools import lru_cache
from collections.abc import Sequence
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.common import normalize_url
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.rules_core.normalize import NEWLINES_RE, NULL_RE, normalize
from markdown_it.token import Token
from mdit_py_plugins.container import container_plugin

from gpuguide.errors import Problems
from gpuguide.markdown.block_starts import block_starts_plugin
from gpuguide.markdown.headings import heading_ids_plugin, heading_links_plugin
from gpuguide.markdown.html_renderer import SiteRenderer
from gpuguide.markdown.links import links_plugin
from gpuguide.markdown.plain_inline import plain_inline_plugin
from gpuguide.markdown.shortcodes import shortcodes_plugin
from gpuguide.markdown.table_rows import table_rows_plugin
from gpuguide.markdown.tables import tables_plugin
from gpuguide.markdown.typography_rule import typography_plugin


class _SiteMarkdown(MarkdownIt):
    """markdown-it, with each link destination normalised once per process (``normalizeLink``, a
    pure function of the address, is a method markdown-it lets a subclass replace): a corpus page's
    links mostly go to a few addresses, and its percent-encoding was 2 % of a page."""

    def normalizeLink(self, url: str) -> str:
        return _normalize_link(url)


_normalize_link = lru_cache(maxsize=4096)(normalize_url.normalizeLink)


def _normalize(state: StateCore) -> None:
    """markdown-it's ``normalize`` core rule (line endings made ``\\n``, NUL made U+FFFD), run only
    on a text that has some: its regular expression replaced each of a page's ``\\n`` by itself,
    making the page's text anew (1 % of a corpus page)."""
    text = state.src
    if "\r" in text:
        text = NEWLINES_RE.sub("\n", text)
    if "\0" in text:
        text = NULL_RE.sub("\ufffd", text)
    state.src = text


@lru_cache(maxsize=2)
def markdown_parser(shortcuts: bool = True) -> MarkdownIt:
    """The site's parser: CommonMark with tables, and the plugins below (order matters).
    ``shortcuts``: with the shortcut for inline content without markup, the faster renderer, the
    faster table rows, the block rules tried at their first characters, text normalisation and link
    normalisation kept (off: markdown-it's own inline rule, renderer, block rules, normalisation and
    link normalisation, which the tests compare them with)."""
    md = (_SiteMarkdown if shortcuts else MarkdownIt)(
        "commonmark", {"html": False, "linkify": False, "typographer": False},
        renderer_cls=SiteRenderer if shortcuts else RendererHTML).enable("table")
    md.use(container_plugin, "faq")
    md.use(shortcodes_plugin)
    md.use(heading_ids_plugin, min_level=2, max_level=4)
    md.use(links_plugin)
    md.use(typography_plugin)  # after the heading ids: ids come from the text as written
    md.use(tables_plugin)  # after the typography: captions taken from headings read as they do
    md.use(heading_links_plugin)
    if shortcuts:
        if next(rule.fn for rule in md.core.ruler.__rules__ if rule.name == "normalize") is normalize:
            md.core.ruler.at("normalize", _normalize)
        md.use(table_rows_plugin)
        md.use(block_starts_plugin)
        md.use(plain_inline_plugin)  # last: it checks the inline rules the plugins above left
    return md


@dataclass
class FaqItem:
    question: str  # plain text
    answer_html: str
    answer_text: str  # plain text, for JSON-LD


@dataclass
class RenderedBody:
    intro_html: str
    main_html: str
    faq: list[FaqItem] = field(default_factory=list)
    sections: list[tuple[str, str]] = field(default_factory=list)  # (id, text) of each h2, for "On this page"


def faq_schema(faq: list[FaqItem]) -> dict[str, Any]:
    """The FAQ as schema.org's ``FAQPage`` (the page's JSON-LD)."""
    return {"@context": "https://schema.org", "@type": "FAQPage",
            "mainEntity": [{"@type": "Question", "name": item.question,
                            "acceptedAnswer": {"@type": "Answer", "text": item.answer_text}} for item in faq]}


def _plain_text(tokens: list[Token]) -> str:
    parts: list[str] = []
    for token in tokens:
        if token.type == "inline":
            parts.append("".join(child.content for child in token.children or []
                                 if child.type in ("text", "code_inline", "softbreak", "shortcode")
                                 ).replace("\n", " "))
    return " ".join(part for part in parts if part)


def render_body(body: str, source: Path, body_line: int, problems: Problems, env: dict) -> RenderedBody:
    """Split a page body into intro (before the first heading), main sections and FAQ, each rendered."""
    md = markdown_parser()
    env.update(source=source, line=body_line, problems=problems)
    tokens = md.parse(body, env)
    _report_unparsed_syntax(tokens, source, body_line, problems)
    intro: list[Token] = []
    main: list[Token] = []
    faq_tokens: list[Token] = []
    in_faq = False
    faq_line = body_line
    for token in tokens:
        if token.type == "container_faq_open":
            if in_faq or faq_tokens:
                _error(problems, source, body_line, token, "a page can have only one `::: faq` block",
                       "put every question in the same block")
            in_faq = True
            faq_line = body_line + (token.map[0] if token.map else 0)
            continue
        if token.type == "container_faq_close":
            in_faq = False
            if not token.markup:  # markdown-it closed it at the end of the page
                problems.error(source, faq_line, 1, "the `::: faq` block is never closed: it takes in the rest "
                               "of the page", "end the questions with a line `:::`")
            continue
        if in_faq:
            faq_tokens.append(token)
        elif main or (token.type == "heading_open"):
            main.append(token)
        else:
            intro.append(token)
    faq = _faq_items(faq_tokens, source, faq_line, body_line, problems, env)
    render = md.renderer.render
    sections = [(str(token.attrGet("id")), _plain_text([main[index + 1]])) for index, token in enumerate(main)
                if token.type == "heading_open" and token.tag == "h2" and token.attrGet("id") is not None]
    return RenderedBody(render(intro, md.options, env), render(main, md.options, env), faq, sections)


def render_inline(text: str, source: Path, line: int, problems: Problems, env: dict,
                  source_lines: Sequence[str] = ()) -> str:
    """One line of Markdown from front matter (a table note), shortcodes included. ``source_lines``:
    the file's lines from ``line`` on, where a folded YAML value spreads the text: a problem is
    reported at its own line of them, not at the field's."""
    env.update(source=source, line=line, problems=problems, inline_source=(line, source_lines))
    md = markdown_parser()
    try:
        tokens = md.parseInline(text, env)
        _report_unparsed_syntax(tokens, source, line, problems, inline=True)
        return md.renderer.render(tokens, md.options, env)
    finally:
        env.pop("inline_source", None)
        env.pop("_inline_found", None)


#: The containers this site knows: ``::: faq``.
CONTAINERS = ("faq",)


def _report_unparsed_syntax(tokens: list[Token], source: Path, base_line: int, problems: Problems,
                            inline: bool = False) -> None:
    """Syntax the parser left as text, which a reader would see raw: an unknown ``::: name`` block,
    a ``{{`` that never closes. Each is an error at its line, never published as it is."""
    for index, token in enumerate(tokens):
        if token.type != "inline" or not token.children:
            continue
        line = base_line + (token.map[0] if token.map and not inline else 0)
        first = token.children[0]
        if (first.type == "text" and first.content.startswith(":::") and not inline
                and index and tokens[index - 1].type == "paragraph_open"):
            name = first.content[3:].strip().split()[0] if first.content[3:].strip() else ""
            problems.error(source, line, 1, f"unknown block `::: {name}`" if name else "a `:::` line closes no block",
                           f"the blocks this site knows: {', '.join(f'::: {c}' for c in CONTAINERS)}")
        if "{" not in token.content and "&" not in token.content:
            continue  # no text of it can hold `{{`: only a brace, escaped or not, or an entity (`&#123;`) makes one
        offset = 0
        for child in token.children:
            if child.type in ("softbreak", "hardbreak"):
                offset += 1
            elif child.type == "text" and "{{" in child.content:
                problems.error(source, line + offset, 1, "a shortcode opens with `{{` and never closes",
                               "end it with `}}` on the same line, e.g. {{ gpu_figure gpu=h100-sxm column=memory }}")


def _faq_items(tokens: list[Token], source: Path, faq_line: int, body_line: int, problems: Problems,
               env: dict) -> list[FaqItem]:
    md = markdown_parser()
    items: list[FaqItem] = []
    question: str | None = None
    answer: list[Token] = []

    def flush() -> None:
        if question is not None:
            if not answer:
                problems.error(source, faq_line, 1, f"the FAQ question “{question}” has no answer",
                               "write the answer under the question's heading")
            items.append(FaqItem(question, md.renderer.render(answer, md.options, env), _plain_text(answer)))

    base_level = tokens[0].level if tokens else 0  # tokens nested in the container
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "heading_open" and token.level == base_level:
            flush()
            question = _plain_text([tokens[index + 1]])
            answer = []
            index += 3  # heading_open, inline, heading_close
            continue
        if question is None:
            _error(problems, source, body_line, token, "FAQ text before the first question",
                   "start each question with a heading line, e.g. `### How much memory do I need?`")
            return items
        answer.append(token)
        index += 1
    flush()
    return items


def _error(problems: Problems, source: Path, body_line: int, token: Token, message: str, hint: str) -> None:
    line = body_line + (token.map[0] if token.map else 0)
    problems.error(source, line, 1, message, hint)
