"""Tables written in Markdown, as readers get them: a caption, row headers, a labelled scroll region
with its hint, through markdown-it's extension points.

- **Caption**: an attribute line right above the table, ``{caption="What takes up GPU memory"}``
  (mdit-py-plugins' ``attrs_block``), shown above the table; without one, the heading the table is
  under names it, for assistive technology only (the heading is already on screen).
- **Row headers**: the first cell of each body row names the row (``<th scope="row">``); it stays
  in view while the other columns scroll. Each other cell carries its column's header
  (``data-label``): on a phone such a table of sentences is shown as one card per row.
- **Region**: the table scrolls inside ``<div class="table-scroll" role="region" tabindex="0">``
  labelled by the caption and described by the scroll hint printed above it (``env["scroll_hint"]``).
"""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from mdit_py_plugins.attrs import attrs_block_plugin


#: The one attribute an editor may set on a table.
TABLE_ATTRIBUTES = ("caption",)


def _heading_text(token: Token) -> str:
    return "".join(child.content for child in token.children or []
                   if child.type in ("text", "code_inline", "shortcode")) or token.content


def _captions_and_row_headers(state: StateCore) -> None:
    """Give every table its caption (``meta["caption"]``, ``meta["caption_visible"]``) and turn the
    first cell of each body row into a row header."""
    heading = ""
    tokens = state.tokens
    in_body = False
    first_cell = False
    labels: list[str] = []
    column = 0
    for index, token in enumerate(tokens):
        kind = token.type  # read once: a page's 400 tokens go through the tests below
        if kind != "table_open" and token.attrs and token.nesting == 1 and "caption" in token.attrs:
            # A caption line above something else than a table: an editor's slip, not an attribute.
            token.attrs.pop("caption")
            if "problems" in state.env and token.map:
                state.env["problems"].error(
                    state.env.get("source", "?"), state.env.get("line", 1) + max(token.map[0] - 1, 0), 1,
                    "a `{caption=…}` line names the table right below it, but no table follows",
                    "put the caption line directly above the table's header row, or remove it")
        if kind == "inline" or (token.nesting == -1 and kind != "tbody_close"):
            continue  # nothing below acts on them
        if kind == "heading_open" and index + 1 < len(tokens):
            heading = _heading_text(tokens[index + 1])
        elif kind == "table_open":
            written = token.attrs.pop("caption", None)
            token.meta = dict(token.meta or {})
            if written is not None and str(written).strip():
                token.meta["caption"] = state.env.get("typography", str)(str(written).strip())
                token.meta["caption_visible"] = True
            else:
                token.meta["caption"] = heading or state.env.get("page_title", "")
                token.meta["caption_visible"] = False
            labels = []
        elif kind == "th_open" and not in_body:
            labels.append(_heading_text(tokens[index + 1]))
        elif kind == "tbody_open":
            in_body = True
        elif kind == "tbody_close":
            in_body = False
        elif kind == "tr_open":
            first_cell = in_body
            column = 0
        elif kind == "td_open" and not first_cell:
            column += 1
            if column < len(labels):
                token.attrSet("data-label", labels[column])
        elif kind == "td_open" and first_cell:
            token.type, token.tag = "th_open", "th"
            token.attrSet("scope", "row")
            first_cell = False
            depth = 0
            # Walked by index from the cell on, up to its close (a few tokens): a slice would copy
            # the rest of the page at every row, quadratic in a long table.
            for closing_index in range(index + 1, len(tokens)):
                closing = tokens[closing_index]
                if closing.type == "td_open":
                    depth += 1
                elif closing.type == "td_close":
                    if depth == 0:
                        closing.type, closing.tag = "th_close", "th"
                        break
                    depth -= 1


def next_table_id(env: dict) -> str:
    """The id of the page's next table (``table-1``, ``table-2``…), written or computed by a shortcode."""
    env["table_count"] = env.get("table_count", 0) + 1
    return f"table-{env['table_count']}"


def region_open(env: dict, caption_id: str, css: str = "table-scroll") -> str:
    """The scroll hint and the opening tag of the scroll region of the table captioned ``caption_id``
    (the hint's id noted in ``env["known"]``)."""
    hint = env.get("scroll_hint", "")
    if hint and (known := env.get("known")) is not None:  # ``render.known_links``: for the link check
        known.anchor(f"{caption_id}-hint")
    # A table of figures is left out of the search index: its cells would run together in excerpts
    # ("GPUGPUsInterconnect"); a table of sentences (PROSE_REGION) is prose, and stays in.
    ignore = "" if css == PROSE_REGION else " data-pagefind-ignore"
    if not hint:
        return f'<div class="{css}"{ignore} role="region" tabindex="0" aria-labelledby="{caption_id}">\n'
    hint_id = f"{caption_id}-hint"
    return (f'<p class="scroll-hint" id="{hint_id}" data-pagefind-ignore>{escapeHtml(hint)}</p>\n'
            f'<div class="{css}"{ignore} role="region" tabindex="0" aria-labelledby="{caption_id}" '
            f'aria-describedby="{hint_id}">\n')


#: The region of a table written in Markdown: sentences, shown as cards on a phone.
PROSE_REGION = "table-scroll prose"


def caption(env: dict, caption_id: str, text: str, visible: bool = True) -> str:
    """A table's ``<caption>`` (its id noted in ``env["known"]``)."""
    if (known := env.get("known")) is not None:
        known.anchor(caption_id)
    css = "" if visible else ' class="visually-hidden"'
    return f'<caption id="{caption_id}"{css}>{escapeHtml(text)}</caption>\n'


def _table_open(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    caption_id = next_table_id(env)
    token = tokens[idx]
    return (region_open(env, caption_id, PROSE_REGION) + self.renderToken(tokens, idx, options, env)
            + caption(env, caption_id, token.meta.get("caption", ""), bool(token.meta.get("caption_visible"))))


def _table_close(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    return self.renderToken(tokens, idx, options, env) + "</div>\n"


def tables_plugin(md: MarkdownIt) -> None:
    """Captions (``{caption="…"}`` above a table), row headers and scroll regions."""
    md.use(attrs_block_plugin, allowed=TABLE_ATTRIBUTES)
    md.core.ruler.push("table_captions", _captions_and_row_headers)
    md.add_render_rule("table_open", _table_open)
    md.add_render_rule("table_close", _table_close)
