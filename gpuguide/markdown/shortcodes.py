"""Shortcodes in Markdown: ``{{ name key=value … }}`` parsed, evaluated and printed through
markdown-it-py's extension points; the functions themselves are in ``figures.prose``.

The inline rule recognises the syntax; a core rule evaluates each shortcode once, with the page's
language and data in ``env["shortcodes"]``; render rules print the (escaped) result, marked with the
call that made it, or the block shortcode's table. Unknown names, unknown or missing arguments and
bad values are reported with the file and line.
"""

from __future__ import annotations

import inspect
import re
from functools import lru_cache
from pathlib import Path
from collections.abc import Callable, MutableMapping
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline

from gpuguide.errors import Problems, did_you_mean
from gpuguide.markdown.tables import PROSE_REGION, caption, next_table_id, region_open
from gpuguide.figures import methodology, prose  # noqa: F401 (importing them registers their shortcodes)
from gpuguide.figures.registry import BLOCK_SHORTCODES, SHORTCODES, BlockCell, BlockTable, ShortcodeContext, ShortcodeError

_ARGUMENT = re.compile(r'\s*([a-z_][a-z0-9_]*)=("([^"]*)"|[^\s"]+)')


_NAME = re.compile(r"\s*([a-z_][a-z0-9_]*)")


@lru_cache(maxsize=4)
def _last_close(src: str) -> int:
    """Where the last ``}}`` of an inline block starts (-1: none). Kept for the few blocks being
    parsed: a string's hash is computed once, and a key is found by identity."""
    return src.rfind("}}")


def _shortcode_rule(state: StateInline, silent: bool) -> bool:
    src, start = state.src, state.pos
    if not src.startswith("{{", start):
        return False
    # A `{{` with no `}}` after it is text, known at once: searching to the end of the block at
    # each of them would be quadratic in a run of `{`. A search that finds one consumes what it read.
    if _last_close(src) < start + 2:
        return False
    end = src.find("}}", start + 2)
    if end < 0:
        return False
    if not silent:
        token = state.push("shortcode", "", 0)
        token.content = src[start + 2:end].strip()
        token.meta = {"source": src[start:end + 2], "offset": start}  # where in its block: its line
    state.pos = end + 2
    return True


def _parse(text: str) -> tuple[str, dict[str, str]]:
    name_match = _NAME.match(text)
    if not name_match:
        raise ShortcodeError("a shortcode starts with its name, e.g. `{{ usable_memory_share }}`")
    args: dict[str, str] = {}
    rest = text[name_match.end():]
    while rest.strip():
        match = _ARGUMENT.match(rest)
        if not match:
            raise ShortcodeError(f"cannot read the arguments `{rest.strip()}`; write `name=value`")
        args[match.group(1)] = match.group(3) if match.group(3) is not None else match.group(2)
        rest = rest[match.end():]
    return name_match.group(1), args


@lru_cache(maxsize=None)
def _parameters(function: Callable[..., str]) -> tuple[inspect.Parameter, ...]:
    """A shortcode's arguments (after the context): read once, not at each of its calls (an
    ``inspect.signature`` costs about 7 µs, and a corpus page has 2 shortcodes on average)."""
    return tuple(inspect.signature(function).parameters.values())[1:]


def evaluate(text: str, ctx: ShortcodeContext) -> str:
    """Run the shortcode written as ``text`` (without braces); raise ShortcodeError with a hint."""
    name, raw_args = _parse(text)
    function = SHORTCODES.get(name)
    if function is None:
        hint = did_you_mean(name, SHORTCODES)
        raise ShortcodeError(f"unknown shortcode `{name}`" + (f"; {hint}" if hint else
                             f"; known shortcodes: {', '.join(sorted(SHORTCODES))}"))
    parameters = _parameters(function)
    known = {p.name: p for p in parameters}
    for key in raw_args:
        if key not in known:
            hint = did_you_mean(key, known)
            raise ShortcodeError(f"`{name}` has no argument `{key}`"
                                 + (f"; {hint}" if hint else f"; its arguments: {', '.join(known) or 'none'}"))
    kwargs: dict[str, Any] = {}
    for parameter in parameters:
        if parameter.name not in raw_args:
            if parameter.default is inspect.Parameter.empty:
                raise ShortcodeError(f"`{name}` needs the argument `{parameter.name}=…`")
            continue
        kwargs[parameter.name] = _convert(name, parameter, raw_args[parameter.name])
    return function(ctx, **kwargs)


def _convert(name: str, parameter: inspect.Parameter, raw: str) -> Any:
    kind = parameter.annotation
    try:
        if kind in (int, "int", "int | None"):
            return int(raw)
        if kind in (float, "float"):
            return float(raw)
    except ValueError:
        raise ShortcodeError(f"`{name}`: `{parameter.name}` must be a number, got `{raw}`") from None
    return raw


def _evaluate_rule(state: StateCore) -> None:
    ctx: ShortcodeContext | None = state.env.get("shortcodes")
    # The page's inline figures, each evaluated once per build and language (``SiteView.figure``).
    figure: Callable[[str], str] | None = state.env.get("figure")
    problems: Problems | None = state.env.get("problems")
    source: Path = state.env.get("source", Path("?"))
    base_line: int = state.env.get("line", 1)
    tokens = state.tokens
    for index, block in enumerate(tokens):
        if block.type != "inline" or not block.children or "{{" not in block.content:
            continue  # a shortcode is written `{{ … }}` in the token's text
        first_line = base_line + (block.map[0] if block.map else 0)
        shortcodes = [child for child in block.children if child.type == "shortcode"]
        alone = (len(block.children) == 1 and shortcodes and 0 < index < len(tokens) - 1
                 and tokens[index - 1].type == "paragraph_open")
        # The line breaks before the last failed shortcode, counted once: counting from the block's
        # start at each one was quadratic in a paragraph of them.
        breaks_before, counted_to, line_start = 0, 0, 0
        for child in shortcodes:
            try:
                if ctx is None:
                    raise ShortcodeError("shortcodes are not available here")
                name = _parse(child.content)[0]
                if name in BLOCK_SHORTCODES and not alone:
                    raise ShortcodeError(f"`{name}` makes a table: write it alone on its own line, "
                                         "with a blank line before and after")
                result = (figure(child.content) if figure is not None and name not in BLOCK_SHORTCODES
                          else evaluate(child.content, ctx))
                if name in BLOCK_SHORTCODES:
                    # Replace the paragraph by the table: paragraph_open / inline / paragraph_close.
                    tokens[index - 1].hidden = tokens[index + 1].hidden = True
                    child.type, child.meta = "shortcode_table", {**child.meta, "table": result}
                else:
                    child.content = result
            except ShortcodeError as exc:
                if problems is None:
                    raise
                # The block's text keeps its line breaks: the shortcode is on the line its offset is.
                offset = child.meta.get("offset", 0)
                if offset < counted_to:  # children come in the order of the text; if not, count again
                    breaks_before, counted_to, line_start = 0, 0, 0
                breaks = block.content.count("\n", counted_to, offset)
                if breaks:  # the line it is on starts after the last break since the one before
                    breaks_before += breaks
                    line_start = block.content.rfind("\n", counted_to, offset) + 1
                counted_to = offset
                line, column = first_line + breaks_before, offset - line_start + 1 + _stripped_columns(
                    state, block, breaks_before, line_start)
                if state.env.get("inline_source"):  # text from a front-matter field: its own line of the file
                    line, column = _in_field(state.env, child.meta["source"], line, column)
                problems.error(source, line, column,
                               f"shortcode {child.meta['source']}: {exc}", "see the list of shortcodes in README.md")
                child.content = child.meta["source"]
                child.meta["failed"] = True


def _in_field(env: MutableMapping[str, Any], call: str, line: int, column: int) -> tuple[int, int]:
    """Where ``call`` is written in the front-matter field the text came from (a folded value spreads
    it over lines): the first place at or after the last one found, else the field's own line."""
    first_line, lines = env["inline_source"]
    needle = call.split("\n")[0][:60]
    found_line, found_column = env.get("_inline_found", (0, 0))
    for index in range(found_line, len(lines)):
        at = lines[index].find(needle, found_column if index == found_line else 0)
        if at >= 0:
            env["_inline_found"] = (index, at + 1)
            return first_line + index, at + 1
    return line, column


def _stripped_columns(state: StateCore, block: Any, line_index: int, line_start: int) -> int:
    """The characters markdown-it took off the start of the block's ``line_index``-th line (a list
    item's marker, indentation, a quote's ``>``): the source line ends with the inline line."""
    if not block.map:
        return 0
    starts = state.env.get("_line_starts")
    if starts is None:  # where each line of the body starts, found once per page
        starts = state.env["_line_starts"] = [0, *(i + 1 for i, c in enumerate(state.src) if c == "\n")]
    number = block.map[0] + line_index
    if number >= len(starts):
        return 0
    end = starts[number + 1] - 1 if number + 1 < len(starts) else len(state.src)
    source_line = state.src[starts[number]:end].rstrip()
    line_end = block.content.find("\n", line_start)
    inline_line = block.content[line_start:line_end if line_end >= 0 else len(block.content)].rstrip()
    return max(len(source_line) - len(inline_line), 0) if source_line.endswith(inline_line) else 0


def _render_shortcode(self: Any, tokens: list, idx: int, options: Any, env: dict) -> str:
    """A computed figure, marked with the call that made it (tests check it against the tables)."""
    token = tokens[idx]
    if token.meta.get("failed"):
        return escapeHtml(token.content)
    call = " ".join(token.meta["source"][2:-2].split())
    return f'<span class="figure" data-shortcode="{escapeHtml(call)}">{escapeHtml(token.content)}</span>'


def _cell(tag: str, cell: BlockCell, numeric: bool, env: dict, scope: str = "", label: str | None = None) -> str:
    attributes = "".join(f' data-{name}="{escapeHtml(value)}"' for name, value in cell.data)
    if label is not None:  # the column's header, shown beside the cell when a phone shows rows as cards
        attributes += f' data-label="{escapeHtml(label)}"'
    css = ' class="number"' if numeric else ""
    text = escapeHtml(cell.text)
    if cell.href is not None:
        text = f'<a href="{escapeHtml(cell.href)}" rel="noopener">{text}</a>'
    elif cell.page is not None and (href := env.get("page_url", _no_page)(*cell.page)) is not None:
        if (known := env.get("known")) is not None:
            known.href(href)
        text = f'<a href="{escapeHtml(href)}">{text}</a>'
    if cell.detail is not None:
        text = f'<span class="cell-main">{text}</span><span class="cell-detail">{escapeHtml(cell.detail)}</span>'
    return f"<{tag}{scope}{css}{attributes}>{text}</{tag}>"


def _no_page(layout: str, subject_id: str) -> None:
    return None


def _render_shortcode_table(self: Any, tokens: list, idx: int, options: Any, env: dict) -> str:
    table: BlockTable = tokens[idx].meta["table"]
    caption_id = next_table_id(env)
    numeric = table.numeric or (False,) * len(table.headers)
    head = "".join(_cell("th", BlockCell(header), numeric[i], env, ' scope="col"') for i, header in enumerate(table.headers))
    body = "".join(
        "<tr>" + _cell("th", row[0], numeric[0], env, ' scope="row"')
        + "".join(_cell("td", cell, numeric[i], env, label=table.headers[i]) for i, cell in enumerate(row[1:], 1))
        + "</tr>\n"
        for row in table.rows)
    # A table whose data columns are mostly not figures reads as sentences: shown as cards on a phone.
    figures = 2 * sum(numeric[1:]) > len(numeric) - 1
    return (region_open(env, caption_id, "table-scroll" if figures else PROSE_REGION)
            + "<table>\n" + caption(env, caption_id, table.caption)
            + f"<thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody>\n</table>\n</div>\n")


def shortcodes_plugin(md: MarkdownIt) -> None:
    """Plug shortcodes into a markdown-it parser."""
    md.inline.ruler.before("escape", "shortcode", _shortcode_rule)
    md.core.ruler.after("inline", "shortcode_evaluate", _evaluate_rule)
    md.add_render_rule("shortcode", _render_shortcode)
    md.add_render_rule("shortcode_table", _render_shortcode_table)
