"""A table the figures library built (``BlockTable``), as the page templates print it.

Written in Python rather than as a Jinja partial: a model page prints up to ten of these tables,
some of a hundred rows, and the partial's per-cell work (a ``set``, two tests and an escape per
attribute, through Jinja's runtime) was two thirds of the page's template time. The same bytes.
"""

from __future__ import annotations

from collections.abc import Callable

from markupsafe import Markup, escape

from gpuguide.figures.registry import BlockCell, BlockTable


def block_table(table: BlockTable, table_id: str, *, ui: Callable[[str], str],
                page_url: Callable[[str, str], str | None], url: Callable[[str], str]) -> Markup:
    """The scroll hint, the scroll region and the table ``table_id``: ``ui`` gives the hint's text
    (a tracked read), ``page_url`` the address of a cell's page, ``url`` that address from this page.
    No newline at the end: the template's line ends it."""
    numeric = table.numeric
    few = " few-columns" if len(table.headers) <= 4 else ""
    head = "".join(f'<th scope="col"{_number(numeric, index)}>{escape(header)}</th>'
                   for index, header in enumerate(table.headers))
    rows = "".join(f"<tr>{''.join(_cell(cell, index, numeric, page_url, url) for index, cell in enumerate(row))}</tr>\n"
                   for row in table.rows)
    return Markup(
        f'<p class="scroll-hint" id="{escape(table_id)}-hint" data-pagefind-ignore>{escape(ui("scroll_hint"))}</p>\n'
        f'<div class="table-scroll" data-pagefind-ignore role="region" tabindex="0" '
        f'aria-labelledby="{escape(table_id)}-caption" aria-describedby="{escape(table_id)}-hint">\n'
        f'<table class="figure-table{few}">\n'
        f'<caption id="{escape(table_id)}-caption">{escape(table.caption)}</caption>\n'
        f"<thead><tr>{head}</tr></thead>\n<tbody>\n{rows}</tbody>\n</table>\n</div>")


def _number(numeric: tuple[bool, ...], index: int) -> str:
    return ' class="number"' if numeric and numeric[index] else ""


def _cell(cell: BlockCell, index: int, numeric: tuple[bool, ...], page_url: Callable[[str, str], str | None],
          url: Callable[[str], str]) -> str:
    tag = "td" if index else "th"
    scope = "" if index else ' scope="row"'
    data = "".join(f' data-{escape(name)}="{escape(value)}"' for name, value in cell.data)
    text = escape(cell.text)
    target = page_url(*cell.page) if cell.page else None
    if cell.href:
        text = Markup(f'<a href="{escape(cell.href)}" rel="noopener">{text}</a>')
    elif target:
        text = Markup(f'<a href="{escape(url(target))}">{text}</a>')
    if cell.detail is not None:
        text = Markup(f'<span class="cell-main">{text}</span><span class="cell-detail">{escape(cell.detail)}</span>')
    return f"<{tag}{scope}{_number(numeric, index)}{data}>{text}</{tag}>"
