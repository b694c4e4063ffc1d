"""The tables of figures as the page templates print them: a table the figures library built
(``BlockTable``), and a two-GPU comparison's (``side_by_side_table``).

Written in Python rather than as a Jinja partial: a model page prints up to ten of these tables,
some of a hundred rows, and the partial's per-cell work (a ``set``, two tests and an escape per
attribute, through Jinja's runtime) was two thirds of the page's template time. The same bytes:
each text is escaped as Jinja escapes it (``markupsafe.escape``), by ``environment.escaped``, which makes a
plain string instead of a ``Markup`` for each of a page's thousands of cells (0.36 -> 0.31 s of
template time for the 68 model pages). The comparison pages, the site's most numerous, print theirs
the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from markupsafe import Markup

from gpuguide.figures.page_tables import Cell
from gpuguide.figures.registry import BlockCell, BlockTable
from gpuguide.render.comparison import ComparisonRow
from gpuguide.render.environment import escaped


#: The printers, by their names in the templates' context: each takes the table's id second.
PRINTERS = ("block_table", "side_by_side_table")
#: The ids a printed table writes, after its table's id: its scroll hint's and its caption's.
REGION_IDS = ("-hint", "-caption")


def block_table(table: BlockTable, table_id: str, *, ui: Callable[[str], str],
                page_url: Callable[[str, str], str | None], url: Callable[[str], str],
                anchor: Callable[[str], str] = str) -> Markup:
    """The scroll hint, the scroll region and the table ``table_id``: ``ui`` gives the hint's text
    (a tracked read), ``page_url`` the address of a cell's page, ``url`` that address from this page,
    ``anchor`` notes each id written (``render.known_links``, as ``url`` notes each address).
    No newline at the end: the template's line ends it."""
    _note_region_ids(table_id, anchor)
    numeric = table.numeric
    few = " few-columns" if len(table.headers) <= 4 else ""
    head = "".join(f'<th scope="col"{_number(numeric, index)}>{escaped(header)}</th>'
                   for index, header in enumerate(table.headers))
    rows = "".join(f"<tr>{''.join(_cell(cell, index, numeric, page_url, url) for index, cell in enumerate(row))}</tr>\n"
                   for row in table.rows)
    return Markup(
        f'<p class="scroll-hint" id="{escaped(table_id)}-hint" data-pagefind-ignore>{escaped(ui("scroll_hint"))}</p>\n'
        f'<div class="table-scroll" data-pagefind-ignore role="region" tabindex="0" '
        f'aria-labelledby="{escaped(table_id)}-caption" aria-describedby="{escaped(table_id)}-hint">\n'
        f'<table class="figure-table{few}">\n'
        f'<caption id="{escaped(table_id)}-caption">{escaped(table.caption)}</caption>\n'
        f"<thead><tr>{head}</tr></thead>\n<tbody>\n{rows}</tbody>\n</table>\n</div>")


def _note_region_ids(table_id: str, anchor: Callable[[str], str]) -> None:
    for suffix in REGION_IDS:
        anchor(table_id + suffix)


def _number(numeric: tuple[bool, ...], index: int) -> str:
    return ' class="number"' if numeric and numeric[index] else ""


def _cell(cell: BlockCell, index: int, numeric: tuple[bool, ...], page_url: Callable[[str, str], str | None],
          url: Callable[[str], str]) -> str:
    tag = "td" if index else "th"
    scope = "" if index else ' scope="row"'
    data = "".join(f' data-{escaped(name)}="{escaped(value)}"' for name, value in cell.data)
    text = escaped(cell.text)
    target = page_url(*cell.page) if cell.page else None
    if cell.href:
        text = f'<a href="{escaped(cell.href)}" rel="noopener">{text}</a>'
    elif target:
        text = f'<a href="{escaped(url(target))}">{text}</a>'
    if cell.detail is not None:
        text = f'<span class="cell-main">{text}</span><span class="cell-detail">{escaped(cell.detail)}</span>'
    return f"<{tag}{scope}{_number(numeric, index)}{data}>{text}</{tag}>"


def side_by_side_table(rows: list[ComparisonRow], table_id: str, caption: str, a: Any, b: Any, *,
                       ui: Callable[..., str], bid_url: Callable[[str], str | None],
                       anchor: Callable[[str], str] = str) -> Markup:
    """The scroll region and the table of ``rows`` comparing the GPUs ``a`` and ``b``: ``ui`` gives
    the texts, ``bid_url`` where to bid on a GPU without an offer, ``anchor`` notes each id written.
    No newline at the end: the template's line ends it."""
    _note_region_ids(table_id, anchor)
    # On a phone the rows are laid out as a grid (criterion above both values): tables.js gives the
    # table explicit roles, which some browsers would otherwise drop with its display.
    names = (escaped(a.short_name), escaped(b.short_name))
    head = (f'<tr><th scope="col">{escaped(ui("column_figure"))}</th>'
            f'<th scope="col" class="gpu" data-gpu="{escaped(a.id)}">{names[0]}</th>'
            f'<th scope="col" class="gpu" data-gpu="{escaped(b.id)}">{names[1]}</th>'
            f'<th scope="col" class="ratio"><span aria-hidden="true">{escaped(ui("column_ratio"))}</span>'
            f'<span class="visually-hidden">{escaped(ui("column_ratio_label", a=a.short_name, b=b.short_name))}'
            f"</span></th></tr>")
    body = "".join(f'<tr data-column="{escaped(row.column_id)}"><th scope="row">{escaped(row.label)}</th>'
                   f"{_comparison_cell(row, 0, row.first, a, ui, bid_url)}{_comparison_cell(row, 1, row.second, b, ui, bid_url)}"
                   f'<td class="ratio">{escaped(row.ratio)}</td></tr>\n' for row in rows)
    return Markup(
        f'<p class="scroll-hint" id="{escaped(table_id)}-hint" data-pagefind-ignore>{escaped(ui("scroll_hint"))}</p>\n'
        f'<div class="table-scroll" data-pagefind-ignore role="region" tabindex="0" '
        f'aria-labelledby="{escaped(table_id)}-caption" aria-describedby="{escaped(table_id)}-hint">\n'
        f'<table class="comparison-table">\n<caption id="{escaped(table_id)}-caption">{escaped(caption)}</caption>\n'
        f"<thead>\n{head}\n</thead>\n<tbody>\n{body}</tbody>\n</table>\n</div>")


def _comparison_cell(row: ComparisonRow, index: int, cell: Cell, gpu: Any, ui: Callable[..., str],
          bid_url: Callable[[str], str | None]) -> str:
    # No offer in the price row: a bid, as in every GPU table (partials/gpu_table.html).
    bid = bid_url(gpu.id) if cell.state == "no-offer" and row.column_id == "price" else None
    better = row.better == index
    css = f'{escaped(cell.state)}{" number" if cell.number is not None else ""}{" better" if better else ""}'
    value = f' data-value="{escaped(cell.sort_value)}"' if cell.sort_value is not None else ""
    if bid:
        text = f'<a class="bid-link" href="{escaped(bid)}" rel="noopener">{escaped(ui("no_offer_bid"))}</a>'
    elif better:
        text = (f'<strong>{escaped(cell.text)}</strong> <span class="better-mark" data-pagefind-ignore>'
                f'{escaped(ui("better_value"))}</span>')
    else:
        text = escaped(cell.text)
    return f'<td class="{css}"{value}>{text}</td>'

