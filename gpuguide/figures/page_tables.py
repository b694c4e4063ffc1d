"""A page's tables: the columns its front matter names, checked (``check_columns``) and resolved
(``resolve_column``) from ``columns.COLUMNS`` and ``model_columns.MODEL_COLUMNS``, and the rows of
cells built from them (``build_table``). Each cell keeps its exact value for ratios, sorting and
tests, and the text a reader sees.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from gpuguide.cached import cached_property
from gpuguide.errors import Problems, did_you_mean
from gpuguide.figures import sizing
from gpuguide.figures.columns import COLUMNS, Column
from gpuguide.figures.model_columns import MODEL_COLUMNS
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.gpu_specs import Gpu
from gpuguide.structure.prices import Price
from gpuguide.structure.language import Language
from gpuguide.structure.library import Library
from gpuguide.structure.pages import ModelColumn, Page


@dataclass(frozen=True)
class Cell:
    text: str
    value: Any  # the exact value; None: not published; a ``sizing.Absent``: why else it is missing
    caveat: str | None = None  # the UI string key of a qualifier already in the text ("over_pcie")

    @cached_property
    def state(self) -> str:
        """``value``, ``not-published``, or why else it is missing (``not-supported``, ``no-offer``,
        ``does-not-fit``): what the cell's class says."""
        if self.value is None:
            return "not-published"
        if isinstance(self.value, sizing.Absent):
            return self.value.value.replace("_", "-")
        return "value"

    @cached_property  # templates ask several times per cell
    def number(self) -> Fraction | None:
        """The exact value as a number, or None (text, yes/no, absent)."""
        value = self.value
        if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
            return None
        return sizing.exact(value)

    @cached_property
    def sort_value(self) -> int | float | None:
        """A number to sort on (booleans as 0/1); None for text and for values not published."""
        if isinstance(self.value, bool):
            return int(self.value)
        number = self.number
        if number is None:
            return None
        return int(number) if number.denominator == 1 else round(float(number), 6)


@dataclass(frozen=True)
class Row:
    gpu: Gpu
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    column_ids: tuple[str, ...]
    rows: tuple[Row, ...]
    columns: tuple[Column, ...] = ()


_ABSENT_BY_KEY = {absent.value: absent for absent in sizing.Absent}


def make_cell(column: Column, gpu: Gpu, price: Price | None, language: Language) -> Cell:
    """One GPU's cell in one column, in one language."""
    value = column.value(gpu, price)
    if value is None:
        # A column that says why its figure is missing ("No offer") puts the cell in that state.
        return Cell(language.ui(column.missing_key), _ABSENT_BY_KEY.get(column.missing_key))
    if isinstance(value, sizing.Absent):
        # A column may say why in its own words ("No RT cores" rather than "Not supported").
        own = f"{column.id}_{value.value}"
        return Cell(language.ui(own if own in language.strings else value.value), value)
    text = column.format(value, language)
    caveat = column.caveat(gpu, value) if column.caveat is not None else None
    if caveat is not None:
        key, values = caveat
        text = language.ui(key, figure=text, **values)
        return Cell(text, value, key)
    return Cell(text, value)


def build_table(gpu_ids: list[str], column_refs: list[Any], dataset: Dataset, language: Language) -> Table:
    """Rows of cells for ``gpu_ids`` in that order; ids were checked when pages loaded."""
    columns = [resolve_column(ref, dataset) for ref in column_refs]
    rows = []
    for gpu_id in gpu_ids:
        gpu = dataset.gpus[gpu_id]
        price = dataset.price(gpu_id)
        rows.append(Row(gpu, tuple(make_cell(column, gpu, price, language) for column in columns)))
    return Table(tuple(column.header(language) for column in columns), tuple(c.id for c in columns), tuple(rows),
                 tuple(columns))


def resolve_column(ref: Any, dataset: Dataset) -> Column:
    """The column a front-matter entry names (checked beforehand by ``check_columns``)."""
    if isinstance(ref, str):
        return COLUMNS[ref]
    factory = MODEL_COLUMNS[ref.id][0]
    return factory(dataset, ref.model, ref.precision)


def check_columns(library: Library, dataset: Dataset, problems: Problems) -> None:
    """Every column a page's table names exists, and its model and precision too."""
    for page in library.pages:
        if page.facts_from is not None:
            continue  # a translation's columns are its source's: reported there
        if page.meta.table is not None:
            for index, column in enumerate(page.meta.table.columns):
                _check_column(column, page, ("table", "columns", index), dataset, problems)
        for index, column in enumerate(page.meta.price_performance):
            _check_column(column, page, ("price_performance", index), dataset, problems)
        for index, column_id in enumerate(page.meta.verdict):
            _check_column(column_id, page, ("verdict", index), dataset, problems)


def _check_column(column: "str | ModelColumn", page: Page, path: tuple[str | int, ...], dataset: Dataset,
                  problems: Problems) -> None:
    if isinstance(column, str):
        if column not in COLUMNS:
            pos = page.front_matter.position(path)  # only for a problem: it may parse the YAML again
            hint = did_you_mean(column, [*COLUMNS, *MODEL_COLUMNS])
            problems.error(page.source, pos.line, pos.column, f"unknown column `{column}`",
                           hint or f"use one of: {', '.join(COLUMNS)}")
        return
    if column.id not in MODEL_COLUMNS:
        pos = page.front_matter.position(path)
        problems.error(page.source, pos.line, pos.column, f"unknown model column `{column.id}`",
                       did_you_mean(column.id, MODEL_COLUMNS) or f"use one of: {', '.join(MODEL_COLUMNS)}")
        return
    _, dataset_name, precisions = MODEL_COLUMNS[column.id]
    models = getattr(dataset, dataset_name)
    if column.model not in models:
        pos = page.front_matter.position(path + ("model",))
        problems.error(page.source, pos.line, pos.column, f"unknown model `{column.model}`",
                       did_you_mean(column.model, models) or "use an id from data/models.yaml")
    if column.precision not in precisions:
        pos = page.front_matter.position(path + ("precision",))
        problems.error(page.source, pos.line, pos.column, f"unknown precision `{column.precision}`",
                       f"use one of: {', '.join(precisions)}")
