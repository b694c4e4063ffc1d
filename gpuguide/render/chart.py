"""The bar chart of a use-case page: one numeric column of its table, longest bar first, each bar
labelled with the GPU's figure and price (``partials/chart.svg.html``: the labels are text, the
bars SVG drawn at build time)."""

from __future__ import annotations

from dataclasses import dataclass

from gpuguide.figures import formatting
from gpuguide.figures.columns import COLUMNS
from gpuguide.figures.page_tables import Table
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.language import Language

#: Chart geometry, in SVG user units: the drawing is 400 wide and scales to the screen.
CHART_BAR_WIDTH = 290
CHART_ROW_HEIGHT = 46


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    text: str
    price: str
    width: float
    y: int


@dataclass(frozen=True)
class Chart:
    title: str
    description: str  # the text alternative: every bar, and the GPUs left out
    bars: tuple[Bar, ...]
    height: int
    bar_width: int = CHART_BAR_WIDTH
    missing: str = ""  # the GPUs whose figure is not published, in a sentence


def bar_chart(table: Table, column_id: str, dataset: Dataset, language: Language) -> Chart:
    """Bars for ``column_id``; values not published are left out and named in the text alternative."""
    ui = language.ui
    column = table.column_ids.index(column_id)
    price = COLUMNS["price"]
    found, missing = [], []
    for row in table.rows:
        cell = row.cells[column]
        if cell.sort_value is None or cell.sort_value <= 0:
            missing.append(row.gpu.model)
            continue
        price_value = price.value(row.gpu, dataset.price(row.gpu.id))
        price_text = ui(price.missing_key) if price_value is None else ui(
            "price_per_hour", price=formatting.usd(price_value, language.locale))
        found.append((row.gpu.model, float(cell.sort_value), cell.text, price_text))
    found.sort(key=lambda bar: -bar[1])
    largest = max((value for _, value, _, _ in found), default=1.0)
    bars = tuple(Bar(label, value, text, price_text, round(CHART_BAR_WIDTH * value / largest, 1),
                     index * CHART_ROW_HEIGHT)
                 for index, (label, value, text, price_text) in enumerate(found))
    missing_text = ui("chart_missing", gpus=", ".join(missing)) if missing else ""
    # The text alternative: every bar, then the GPUs left out (alone when no GPU has the figure).
    description = ". ".join(part for part in (
        "; ".join(ui("chart_bar", gpu=bar.label, figure=bar.text, price=bar.price) for bar in bars),
        missing_text) if part)
    return Chart(ui("chart_title", figure=table.headers[column]), description, bars,
                 max(len(bars), 1) * CHART_ROW_HEIGHT, missing=missing_text)
