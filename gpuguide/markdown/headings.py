"""Heading ids: stable ASCII anchors (``Ce qui compte : entraînement`` → ``ce-qui-compte-entrainement``),
each unique on its page and never one the page's layout uses (``heading_ids_plugin``), and headings
that link to themselves (``heading_links_plugin``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from slugify import slugify

from gpuguide.figures.columns import SEGMENTS
from gpuguide.figures.serving import PRESETS
from gpuguide.figures.size_groups import SIZE_GROUP_KEYS

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


#: The ids the layouts' templates give a page's elements (``templates/``:
#: ``tests/markdown/test_headings.py`` reads every template and fails on an id missing here), and the
#: ids of the tables a page's Markdown holds (``tables``, ``shortcodes``). A heading never takes one:
#: it gets a suffix, as the second of two headings of the same text does. ``{kind}`` is the part a
#: template fills in: a number, or a name from ``_names`` (the page's data, or the code's constants).
LAYOUT_IDS: tuple[str, ...] = (
    # base.html, root.html, not_found_all.html
    "main", "header-search-input", "site-menu", "site-map", "not-found-{language}",
    # partials
    "faq", "toc-heading", "call-to-action", "chart-title",
    "planner", "planner-heading", "planner-intro", "planner-data", "planner-m", "planner-ctx",
    "planner-users", "planner-w", "planner-kv", "planner-tps", "planner-table-hint", "planner-table-caption",
    # home.html, search.html, catalogue.html, comparisons.html, models.html
    "use-cases", "offers", "offers-table", "offers-table-hint", "offers-table-caption", "guides",
    "search-query", "search-comparisons",
    "{segment}", "table-{segment}", "table-{segment}-hint", "table-{segment}-caption", "with-{gpu}",
    "language-models", "language-models-{size}", "language-models-{size}-hint", "language-models-{size}-caption",
    "image-video-models",
    # use_case.html
    "suitable-gpus", "price-performance", "compare-gpus", "models", "other-use-cases",
    "gpu-table", "gpu-table-hint", "gpu-table-caption", "value-table", "value-table-hint", "value-table-caption",
    # model.html
    "model-facts", "memory", "serving", "serving-{preset}", "measured", "fine-tuning", "differences", "gpus",
    "kv-table-hint", "kv-table-caption", "memory-table-hint", "memory-table-caption",
    "cheapest-table-hint", "cheapest-table-caption", "plans-table-{preset}-hint", "plans-table-{preset}-caption",
    "measurements-table-hint", "measurements-table-caption", "fine-tuning-table-hint", "fine-tuning-table-caption",
    "gpus-table-hint", "gpus-table-caption", "generation-table-hint", "generation-table-caption",
    # gpu.html, comparison.html
    "specifications", "specifications-hint", "specifications-caption", "compare",
    "models-table-hint", "models-table-caption",
    "summary", "use-case-{number}", "use-case-table-{number}-hint", "use-case-table-{number}-caption", "gpu-pages",
    # the page's own tables, numbered (tables.next_table_id, shortcodes)
    "table-{number}", "table-{number}-hint",
)


def _names(env: Mapping[str, Any]) -> dict[str, Collection[str]]:
    """What each ``{kind}`` of ``LAYOUT_IDS`` stands for: the code's constants, and the page's data
    (the GPUs, the languages) when the page has it (``env["shortcodes"]``)."""
    context = env.get("shortcodes")
    dataset = getattr(context, "dataset", None)
    return {"segment": SEGMENTS, "preset": {preset.key for preset in PRESETS}, "size": SIZE_GROUP_KEYS,
            "gpu": dataset.gpus if dataset is not None else (),
            "language": dataset.config.languages if dataset is not None else ()}


def _split_layout_ids() -> tuple[frozenset[str], tuple[tuple[str, str, str], ...]]:
    """``LAYOUT_IDS`` as the fixed ids and the (prefix, kind, suffix) of the ids a template fills in."""
    fixed: set[str] = set()
    filled: list[tuple[str, str, str]] = []
    for layout_id in LAYOUT_IDS:
        prefix, brace, rest = layout_id.partition("{")
        if not brace:
            fixed.add(layout_id)
            continue
        kind, _, suffix = rest.partition("}")
        filled.append((prefix, kind, suffix))
    return frozenset(fixed), tuple(filled)


_FIXED_IDS, _FILLED_IDS = _split_layout_ids()


def _layout_uses(candidate: str, names: Mapping[str, Collection[str]]) -> bool:
    """Whether a layout may give ``candidate`` to an element of the page (``LAYOUT_IDS``)."""
    if candidate in _FIXED_IDS:
        return True
    for prefix, kind, suffix in _FILLED_IDS:
        if len(candidate) > len(prefix) + len(suffix) and candidate.startswith(prefix) and candidate.endswith(suffix):
            part = candidate[len(prefix):len(candidate) - len(suffix)]
            if kind == "number":
                if part.isascii() and part.isdigit():
                    return True
            elif part in names[kind]:
                return True
    return False


def heading_ids_plugin(md: MarkdownIt, min_level: int = 2, max_level: int = 4,
                       reserve_layout_ids: bool = True) -> None:
    """Give headings of ``min_level`` to ``max_level`` their ``heading_id``, unique on the page: a
    repeated one takes ``-1``, ``-2``…, as ``mdit_py_plugins.anchors`` numbers them (a test compares
    the two), and so does one a layout uses (``LAYOUT_IDS``) unless ``reserve_layout_ids`` is false."""
    rule = _make_heading_ids_rule(range(min_level, max_level + 1), reserve_layout_ids)
    md.core.ruler.push("heading_ids", rule)


def _make_heading_ids_rule(levels: range, reserve_layout_ids: bool) -> Callable[[StateCore], None]:
    def heading_ids(state: StateCore) -> None:
        tokens = state.tokens
        # Ids a heading already has (an attribute line) are kept, and never given to another one.
        used = {str(written) for token in tokens if token.type == "heading_open" and (written := token.attrGet("id"))}
        names = _names(state.env)
        # The next number to try after each id: the ids below it are taken, and stay taken, so the
        # 20,000th "FAQ" tries one number, not 20,000 (anchors' ``unique_slug`` counts from 1 each time).
        next_number: dict[str, int] = {}

        def taken(candidate: str) -> bool:
            return candidate in used or (reserve_layout_ids and _layout_uses(candidate, names))

        for index, token in enumerate(tokens):
            if token.type != "heading_open" or int(token.tag[1]) not in levels or token.attrGet("id"):
                continue
            title = "".join(child.content for child in tokens[index + 1].children or []
                            if child.type in ("text", "code_inline"))
            base = candidate = heading_id(title)
            if taken(candidate):
                number = next_number.get(base, 1)
                while taken(candidate := f"{base}-{number}"):
                    number += 1
                next_number[base] = number + 1
            used.add(candidate)
            token.attrSet("id", candidate)

    return heading_ids


def _heading_open(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    """A heading with an id links to itself (a reader can copy the section's address), unless it
    holds a link of its own: links do not nest."""
    token = tokens[idx]
    anchor = token.attrGet("id")
    html = self.renderToken(tokens, idx, options, env)
    if anchor is None or _has_link(tokens[idx + 1]):
        return html
    if (known := env.get("known")) is not None:
        known.href(f"#{anchor}")
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
