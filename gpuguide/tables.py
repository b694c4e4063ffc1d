"""Comparison tables: a registry of columns, each a value computed from the data and a formatter.

A page's front matter names its GPUs and its columns. A column is an id (``memory``,
``train_8gpu``) or, for columns about one model, a mapping (``{id: decode_upper_bound, model:
llama-3-1-8b, precision: bf16}``). ``build_table`` turns them into rows of formatted cells and
keeps each cell's raw value for sorting and tests. Every figure comes from ``sizing``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from . import formatting, sizing
from .datasets import Dataset, Gpu, Price
from .strings import UiText

ValueOf = Callable[[Gpu, Price | None], Any]
Formatter = Callable[[Any, str, UiText], str]
Header = Callable[[UiText], str]


@dataclass(frozen=True)
class Column:
    id: str
    header: Header
    value: ValueOf  # raw value; None means not published (or not computable from what is published)
    format: Formatter
    missing_key: str = "not_published"  # UI string shown when the value is None
    comparable: bool = True  # whether "A ÷ B" means something (not for a launch year)


# --- formatters: (value, locale, ui) -> text -----------------------------------------------------

def _memory(v: Any, locale: str, ui: UiText) -> str:
    return formatting.memory_gb(v, locale)


def _bandwidth(v: Any, locale: str, ui: UiText) -> str:
    return formatting.bandwidth_gbs(v, locale)


def _tflops(v: Any, locale: str, ui: UiText) -> str:
    return formatting.tflops(v, locale)


def _params(v: Any, locale: str, ui: UiText) -> str:
    return formatting.approx_params(v, locale)


def _price_from(v: Any, locale: str, ui: UiText) -> str:
    return ui("price_from", price=formatting.usd(v, locale))


def _text(v: Any, locale: str, ui: UiText) -> str:
    return str(v)


def _year(v: Any, locale: str, ui: UiText) -> str:
    return str(v)  # a year is never digit-grouped


def _watts(v: Any, locale: str, ui: UiText) -> str:
    return formatting.watts(v, locale)


def _yes_no(v: Any, locale: str, ui: UiText) -> str:
    return ui("answer_yes") if v else ui("answer_no")


def _tier(v: Any, locale: str, ui: UiText) -> str:
    return ui(f"scene_tier_{v}")


def _segment(v: Any, locale: str, ui: UiText) -> str:
    return ui(f"segment_{v.replace('-', '_')}")


def _tokens_per_second(v: Any, locale: str, ui: UiText) -> str:
    return ui("tokens_per_second_upper_bound", value=formatting.whole_number(int(v), locale))


def _interconnect(gpu: Gpu, price: Price | None) -> tuple[str, float | None] | None:
    return (gpu.interconnect.kind, gpu.interconnect.bandwidth_gbs) if gpu.interconnect else None


def _interconnect_text(v: Any, locale: str, ui: UiText) -> str:
    kind, bandwidth = v
    return kind if bandwidth is None else f"{kind}, {formatting.bandwidth_gbs(bandwidth, locale)}"


# --- the registry -------------------------------------------------------------------------------

def _simple(column_id: str, value: ValueOf, format: Formatter, missing_key: str = "not_published") -> Column:
    return Column(column_id, lambda ui: ui(f"column_{column_id}"), value, format, missing_key)


def _memory_gb(gpu: Gpu) -> float:
    return gpu.memory_gb


COLUMNS: dict[str, Column] = {column.id: column for column in (
    _simple("segment", lambda g, p: g.segment, _segment),
    _simple("memory", lambda g, p: g.memory_gb, _memory),
    _simple("memory_type", lambda g, p: g.memory_type, _text),
    _simple("bandwidth", lambda g, p: g.bandwidth_gbs, _bandwidth),
    _simple("bf16", lambda g, p: g.bf16_tflops, _tflops),
    _simple("fp8", lambda g, p: g.fp8_tflops, _tflops),
    _simple("fp32", lambda g, p: g.fp32_tflops, _tflops),
    _simple("fp64", lambda g, p: g.fp64_tflops, _tflops),
    _simple("fp64_tensor", lambda g, p: g.fp64_tensor_tflops, _tflops),
    _simple("fp64_useful", lambda g, p: sizing.has_useful_fp64(g.fp64_tflops, g.fp32_tflops), _yes_no),
    _simple("tdp", lambda g, p: g.tdp_w, _watts),
    _simple("interconnect", _interconnect, _interconnect_text),
    _simple("form_factor", lambda g, p: g.form_factor, _text),
    _simple("ray_tracing", lambda g, p: g.ray_tracing, _yes_no),
    Column("launch_year", lambda ui: ui("column_launch_year"), lambda g, p: g.launch_year, _year,
           comparable=False),
    _simple("scene_tier", lambda g, p: sizing.scene_memory_tier(g.memory_gb), _tier),
    _simple("train_1gpu", lambda g, p: sizing.full_training_params(g.memory_gb, 1), _params),
    _simple("train_8gpu", lambda g, p: sizing.full_training_params(g.memory_gb, 8), _params),
    _simple("lora_1gpu", lambda g, p: sizing.lora_finetune_params(g.memory_gb, 1), _params),
    _simple("qlora_1gpu", lambda g, p: sizing.qlora_finetune_params(g.memory_gb, 1), _params),
    *(
        _simple(f"infer_{precision}_{count}gpu",
                (lambda precision, count: lambda g, p: sizing.inference_params(g.memory_gb, precision, count))(
                    precision, count), _params)
        for precision in ("bf16", "fp8", "int4") for count in (1, 8)
    ),
    _simple("price", lambda g, p: p.usd_per_gpu_hour if p else None, _price_from, missing_key="no_offer"),
)}


#: The segments of the catalogue, in the order it shows them.
SEGMENTS = ("data-centre", "workstation", "consumer")

#: Every specification of a GPU, in the order the catalogue and the GPU pages show them.
CATALOGUE_COLUMNS = ("memory", "memory_type", "bandwidth", "bf16", "fp8", "fp32", "fp64", "fp64_tensor",
                     "tdp", "interconnect", "form_factor", "ray_tracing", "launch_year", "price")

#: Columns that are specifications rather than sizing results (GPU pages show them once, not per use case).
SPEC_COLUMNS = frozenset({"segment", *CATALOGUE_COLUMNS})


def _decode_upper_bound(dataset: Dataset, model: str, precision: str) -> Column:
    llm = dataset.llm_models[model]
    read_per_token = llm.active_parameters or llm.parameters

    def value(gpu: Gpu, price: Price | None) -> Fraction | None:
        return sizing.decode_tokens_per_second_upper_bound(gpu.bandwidth_gbs, read_per_token, precision)

    return Column(f"decode_upper_bound:{model}:{precision}",
                  lambda ui: ui("column_decode_upper_bound", model=llm.name, precision=precision.upper()),
                  value, _tokens_per_second)


def _diffusion_fits(dataset: Dataset, model: str, precision: str) -> Column:
    diffusion = dataset.diffusion_models[model]
    need = (diffusion.memory_gb or {}).get(precision)

    def value(gpu: Gpu, price: Price | None) -> bool | None:
        return sizing.diffusion_fits(gpu.memory_gb, need)

    return Column(f"diffusion_fits:{model}:{precision}",
                  lambda ui: ui("column_diffusion_fits", model=diffusion.name, precision=precision.upper()),
                  value, _yes_no)


#: Columns about one model: id -> (factory, which dataset the model comes from, allowed precisions).
MODEL_COLUMNS: dict[str, tuple[Callable[[Dataset, str, str], Column], str, tuple[str, ...]]] = {
    "decode_upper_bound": (_decode_upper_bound, "llm_models", ("bf16", "fp8", "int4")),
    "diffusion_fits": (_diffusion_fits, "diffusion_models", ("bf16", "fp8")),
}


def resolve_column(ref: Any, dataset: Dataset) -> Column:
    """The column a front-matter entry names (checked beforehand by ``content``)."""
    if isinstance(ref, str):
        return COLUMNS[ref]
    factory = MODEL_COLUMNS[ref.id][0]
    return factory(dataset, ref.model, ref.precision)


@dataclass(frozen=True)
class Cell:
    text: str
    value: Any  # the raw value (None: not published)

    @property
    def sort_value(self) -> int | float | None:
        """A number to sort on (booleans as 0/1); None for text and for values not published."""
        if isinstance(self.value, bool):
            return int(self.value)
        if isinstance(self.value, (int, float, Fraction)):
            number = float(self.value)
            return int(number) if number.is_integer() else round(number, 6)
        return None


@dataclass(frozen=True)
class Row:
    gpu: Gpu
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Table:
    headers: tuple[str, ...]
    column_ids: tuple[str, ...]
    rows: tuple[Row, ...]
    comparable: tuple[bool, ...] = ()


def build_table(gpu_ids: list[str], column_refs: list[Any], dataset: Dataset, lang: str, ui: UiText) -> Table:
    """Rows of formatted cells for ``gpu_ids`` in that order; ids were checked when pages loaded."""
    locale = dataset.config.languages[lang]
    columns = [resolve_column(ref, dataset) for ref in column_refs]
    rows = []
    for gpu_id in gpu_ids:
        gpu = dataset.gpus[gpu_id]
        price = dataset.price(gpu_id)
        cells = []
        for column in columns:
            value = column.value(gpu, price)
            text = ui(column.missing_key) if value is None else column.format(value, locale, ui)
            cells.append(Cell(text, value))
        rows.append(Row(gpu, tuple(cells)))
    return Table(tuple(column.header(ui) for column in columns), tuple(c.id for c in columns), tuple(rows),
                 tuple(c.comparable for c in columns))
