"""A table the figures library built (``BlockTable``), as the page templates print it.

Written in Python rather than as a Jinja partial: a model page prints up to ten of these tables,
some of a hundred rows, and the partial's per-cell work (a ``set``, two tests and an escape per
attribute, through Jinja's runtime) was two thirds of the page's template time. The same bytes:
each text is escaped as Jinja escapes it (``markupsafe.escape``), by ``_escape``, which makes a
plain string instead of a ``Markup`` for each of a page's thousands of cells (0.36 -> 0.31 s of template time for the 68 model pages).
"""

from __future__ import annotations

from collections.abc import Callable

from typing import Any

from markupsafe import Markup

from gpuguide.figures.registry import BlockCell, BlockTable


def block_table(table: BlockTable, table_id: str, *, ui: Callable[[str], str],
                page_url: Callable[[str, str], str | None], url: Callable[[str], str]) -> Markup:
    """The scroll hint, the scroll region and the table ``table_id``: ``ui`` gives the hint's text
    (a tracked read), ``page_url`` the address of a cell's page, ``url`` that address from this page.
    No newline at the end: the template's line ends it."""
    numeric = table.numeric
    few = " few-columns" if len(table.headers) <= 4 else ""
    head = "".join(f'<th scope="col"{_number(numeric, index)}>{_escape(header)}</th>'
                   for index, header in enumerate(table.headers))
    rows = "".join(f"<tr>{''.join(_cell(cell, index, numeric, page_url, url) for index, cell in enumerate(row))}</tr>\n"
                   for row in table.rows)
    return Markup(
        f'<p class="scroll-hint" id="{_escape(table_id)}-hint" data-pagefind-ignore>{_escape(ui("scroll_hint"))}</p>\n'
        f'<div class="table-scroll" data-pagefind-ignore role="region" tabindex="0" '
        f'aria-labelledby="{_escape(table_id)}-caption" aria-describedby="{_escape(table_id)}-hint">\n'
        f'<table class="figure-table{few}">\n'
        f'<caption id="{_escape(table_id)}-caption">{_escape(table.caption)}</caption>\n'
        f"<thead><tr>{head}</tr></thead>\n<tbody>\n{rows}</tbody>\n</table>\n</div>")


def _number(numeric: tuple[bool, ...], index: int) -> str:
    return ' class="number"' if numeric and numeric[index] else ""


def _cell(cell: BlockCell, index: int, numeric: tuple[bool, ...], page_url: Callable[[str, str], str | None],
          url: Callable[[str], str]) -> str:
    tag = "td" if index else "th"
    scope = "" if index else ' scope="row"'
    data = "".join(f' data-{_escape(name)}="{_escape(value)}"' for name, value in cell.data)
    text = _escape(cell.text)
    target = page_url(*cell.page) if cell.page else None
    if cell.href:
        text = f'<a href="{_escape(cell.href)}" rel="noopener">{text}</a>'
    elif target:
        text = f'<a href="{_escape(url(target))}">{text}</a>'
    if cell.detail is not None:
        text = f'<span class="cell-main">{text}</span><span class="cell-detail">{_escape(cell.detail)}</span>'
    return f"<{tag}{scope}{_number(numeric, index)}{data}>{text}</{tag}>"


def _escape(value: Any) -> str:
    """``markupsafe.escape(value)`` as a plain string: markup as it is, any other text with ``&``,
    ``<``, ``>``, ``'`` and ``"`` escaped as Jinja escapes them.

    >>> from markupsafe import escape
    >>> [_escape(v) == escape(v) for v in ("80 GB", "<b>&'" + '"', Markup("<i>x</i>"), 42)]
    [True, True, True, True]
    """
    if hasattr(value, "__html__"):
        return str(value.__html__())
    text = str(value)
    if "&" in text or "<" in text or ">" in text or "'" in text or '"' in text:
        return (text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;").replace("'", "&#39;")
                .replace('"', "&#34;"))
    return text
