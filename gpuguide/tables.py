"""Comparison tables: a registry of columns, each a value computed from the data and a formatter.

A page's front matter names its GPUs and column ids; ``build_table`` turns them into rows of
formatted cells, keeping each cell's raw value for sorting and tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from . import formatting, sizing
from .datasets import Dataset, Gpu, Price
from .strings import UiText

ValueOf = Callable[[Gpu, Price | None], Any]
Formatter = Callable[[Any, str, UiText], str]


def _price_from(value: float, locale: str, ui: UiText) -> str:
    return ui("price_from", price=formatting.usd(value, locale))


def _text(value: str, locale: str, ui: UiText) -> str:
    return value


@dataclass(frozen=True)
class Column:
    id: str
    header_key: str  # UI string with the column's header
    value: ValueOf  # raw value; None means the vendor does not publish it
    format: Formatter
    numeric: bool = True


COLUMNS: dict[str, Column] = {column.id: column for column in (
    Column("memory", "column_memory", lambda gpu, price: gpu.memory_gb,
           lambda v, locale, ui: formatting.memory_gb(v, locale)),
    Column("memory_type", "column_memory_type", lambda gpu, price: gpu.memory_type, _text, numeric=False),
    Column("bandwidth", "column_bandwidth", lambda gpu, price: gpu.bandwidth_gbs,
           lambda v, locale, ui: formatting.bandwidth_gbs(v, locale)),
    Column("bf16", "column_bf16", lambda gpu, price: gpu.bf16_tflops,
           lambda v, locale, ui: formatting.tflops(v, locale)),
    Column("train_1gpu", "column_train_1gpu", lambda gpu, price: sizing.full_training_params(gpu.memory_gb, 1),
           lambda v, locale, ui: formatting.approx_params(v, locale)),
    Column("train_8gpu", "column_train_8gpu", lambda gpu, price: sizing.full_training_params(gpu.memory_gb, 8),
           lambda v, locale, ui: formatting.approx_params(v, locale)),
    Column("price", "column_price", lambda gpu, price: price.usd_per_gpu_hour if price else None, _price_from),
)}


@dataclass(frozen=True)
class Cell:
    text: str
    value: Any  # the raw value (None: not published)


@dataclass(frozen=True)
class Row:
    gpu: Gpu
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Table:
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]


def build_table(gpu_ids: list[str], column_ids: list[str], dataset: Dataset, lang: str, ui: UiText) -> Table:
    """Rows of formatted cells for ``gpu_ids`` in that order; ids were checked when pages loaded."""
    locale = dataset.config.languages[lang]
    columns = tuple(COLUMNS[column_id] for column_id in column_ids)
    rows = []
    for gpu_id in gpu_ids:
        gpu = dataset.gpus[gpu_id]
        price = dataset.price(gpu_id)
        cells = []
        for column in columns:
            value = column.value(gpu, price)
            text = ui("not_published") if value is None else column.format(value, locale, ui)
            cells.append(Cell(text, value))
        rows.append(Row(gpu, tuple(cells)))
    return Table(columns, tuple(rows))
