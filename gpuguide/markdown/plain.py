"""Fast paths through markdown-it for Markdown that is plain text: most prose lines, table cells of figures.

Text in which none of the parser's active inline rules can start (no emphasis, code, link,
image, autolink, escape, entity, line break or shortcode) comes out of the inline parser as one
text token holding it all, and renders as that text, escaped. Two rules use this:

- ``plain_inline`` replaces markdown-it's core ``inline`` rule: such content gets its text
  token directly instead of running every inline rule at every character that might start one.
- ``plain_table`` replaces markdown-it's ``table`` rule (and calls it for other tables): a pipe
  table whose cells are all plain becomes one ``plain_table`` token holding the cells, instead
  of three tokens per cell (``td_open``, ``inline``, ``td_close``) that the renderer walks one
  by one; a 10 × 8 table of figures was 300 tokens, the largest cost of a typical page. It
  finds the same table (the same checks on the header and delimiter rows, the same end) and
  writes the same HTML as markdown-it; any other table is left to markdown-it's rule. Tests
  compare the two.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import MD_TRIM_CHARS, escapeHtml
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.rules_block.table import MAX_AUTOCOMPLETED_CELLS, headerLineRe
from markdown_it.rules_block.table import table as gfm_table
from markdown_it.rules_core import StateCore
from markdown_it.token import Token


#: The characters at which each inline rule can match: elsewhere, the ``text`` rule takes every
#: character. (markdown-it's ``terminator_re`` is wider: it also stops at ``$ % # + - : = > @ ^``
#: for plugins that may be added, which would send most lines of figures down the slow path.)
RULE_STARTS = {
    "text": "", "linkify": ":", "newline": "\n", "escape": "\\", "backticks": "`", "strikethrough": "~",
    "emphasis": "*_", "link": "[", "image": "!", "autolink": "<", "html_inline": "<", "entity": "&",
    "shortcode": "{",  # ours: ``{{ name … }}`` (shortcodes.py)
}


@lru_cache(maxsize=8)
def rule_starts(md: MarkdownIt) -> re.Pattern[str]:
    """Matches where one of ``md``'s active inline rules may start; markdown-it's own, wider
    ``terminator_re`` when a rule is active whose start characters are not known here."""
    active = md.inline.ruler.get_active_rules()
    if any(name not in RULE_STARTS for name in active):
        return md.inline.terminator_re
    return re.compile("[" + re.escape("".join(sorted({c for name in active for c in RULE_STARTS[name]}))) + "]")


def plain_inline(state: StateCore) -> None:
    """markdown-it's core ``inline`` rule, with plain content turned into its one text token directly."""
    md = state.md
    special = rule_starts(md).search
    for token in state.tokens:
        if token.type != "inline":
            continue
        if token.children is None:
            token.children = []
        if special(token.content) is None:
            if token.content:
                token.children.append(Token("text", "", 0, content=token.content))
        else:
            md.inline.parse(token.content, md, state.env, token.children)


def _line(state: StateBlock, line: int) -> str:
    return state.src[state.bMarks[line] + state.tShift[line]:state.eMarks[line]]


def _cells(row: str) -> list[str]:
    """A row's cells, as markdown-it's ``escapedSplit`` gives them for a row without backslashes."""
    cells = row.split("|")
    if cells and cells[0] == "":
        cells.pop(0)
    if cells and cells[-1] == "":
        cells.pop()
    return cells


def _aligns(delimiter_row: str) -> list[str]:
    aligns = []
    columns = delimiter_row.split("|")
    for index, column in enumerate(columns):
        text = column.strip(MD_TRIM_CHARS)
        if not text and index in (0, len(columns) - 1):
            continue
        assert headerLineRe.search(text)  # gfm_table(silent=True) checked the row already
        if text.endswith(":"):
            aligns.append("center" if text.startswith(":") else "right")
        else:
            aligns.append("left" if text.startswith(":") else "")
    return aligns


def plain_table(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    # markdown-it's rule in silent mode runs every check on the header and delimiter rows.
    if not gfm_table(state, start_line, end_line, True):
        return False
    if silent:
        return True
    special = rule_starts(state.md).search
    header_row = _line(state, start_line).strip(MD_TRIM_CHARS)
    if "\\" in header_row or special(header_row):  # the whole row at once: "|" starts no inline rule
        return gfm_table(state, start_line, end_line, False)
    header = [cell.strip(MD_TRIM_CHARS) for cell in _cells(header_row)]
    aligns = _aligns(_line(state, start_line + 1))
    column_count = len(header)
    # The rules that end a table, as in markdown-it's rule. None of them starts a block on a line
    # that begins with "|", so such rows skip them.
    terminators = state.md.block.ruler.getRules("blockquote")
    rows: list[list[str]] = []
    autocompleted = 0
    line = start_line + 2
    while line < end_line:
        if state.sCount[line] < state.blkIndent:
            break
        text = _line(state, line)
        if not text.startswith("|") and any(rule(state, line, end_line, True) for rule in terminators):
            break
        text = text.strip(MD_TRIM_CHARS)
        if not text or state.is_code_block(line):
            break
        if "\\" in text or special(text):
            return gfm_table(state, start_line, end_line, False)
        cells = _cells(text)
        autocompleted += column_count - len(cells)
        if autocompleted > MAX_AUTOCOMPLETED_CELLS:
            break
        row = [cell.strip(MD_TRIM_CHARS) for cell in cells[:column_count]]
        rows.append(row + [""] * (column_count - len(row)))
        line += 1
    token = state.push("plain_table", "table", 0)
    token.map = [start_line, line]
    token.meta = {"aligns": aligns, "header": header, "rows": rows}
    state.line = line
    return True


def render_plain_table(tokens: list[Token], idx: int, caption: str = "") -> str:
    """The table's HTML, as markdown-it's renderer writes the tokens of its ``table`` rule, with
    ``caption`` (HTML) after the opening tag, the first cell of each body row a row header and the
    others labelled with their column's header (as ``tables`` makes them of markdown-it's tokens)."""
    meta = tokens[idx].meta
    aligns = [f' style="text-align:{align}"' if align else "" for align in meta["aligns"]]
    # Escape every cell in one call: markdown-it's normalize rule has replaced any NUL in the source.
    cells = iter(escapeHtml("\0".join(plain_text(tokens[idx]))).split("\0"))
    labels = [f' data-label="{escapeHtml(header)}"' for header in meta["header"]]
    parts = ["\n" if idx and tokens[idx - 1].hidden else "", "<table>\n", caption, "<thead>\n<tr>\n"]
    parts.extend(f"<th{align}>{next(cells)}</th>\n" for align in aligns)
    parts.append("</tr>\n</thead>\n")
    if meta["rows"]:
        parts.append("<tbody>\n")
        for _ in meta["rows"]:
            parts.append("<tr>\n")
            parts.extend(f'<th{align} scope="row">{next(cells)}</th>\n' if column == 0
                         else f'<td{align}{labels[column]}>{next(cells)}</td>\n' for column, align in enumerate(aligns))
            parts.append("</tr>\n")
        parts.append("</tbody>\n")
    parts.append("</table>\n")
    return "".join(parts)


def plain_text(token: Token) -> list[str]:
    """The cells' text, header first, as the ``inline`` tokens of markdown-it's rule hold it."""
    return [*token.meta["header"], *(cell for row in token.meta["rows"] for cell in row)]


def plain_plugin(md: MarkdownIt, render_table: Any) -> None:
    """Install both fast paths; ``render_table(self, tokens, idx, options, env)`` writes plain tables
    (``render_plain_table`` gives the table's HTML)."""
    md.core.ruler.at("inline", plain_inline)
    # In the table rule's place, not before it: every block start would run both rules' checks.
    md.block.ruler.at("table", plain_table, {"alt": ["paragraph", "reference"]})
    md.add_render_rule("plain_table", render_table)
