"""Table columns: a registry of columns, each a value computed from the data and a formatter.

A page's front matter names its GPUs and its columns. A column is an id (``memory``,
``train_8gpu``) or, for columns about one model, a mapping (``{id: decode_upper_bound, model:
llama-3-1-8b, precision: bf16}``: ``model_columns``). ``page_tables.build_table`` turns them into
rows of cells; each cell keeps its exact value (an unrounded capacity, a ``Fraction``) for ratios,
sorting and tests, and the text a reader sees. Every figure comes from ``sizing``, ``spec_figures``
and ``engine_budget``; every word from the UI strings.

A value is a number (or a word's key), ``None`` when the vendor does not publish it, or a
``sizing.Absent`` saying why else it is missing (the GPU lacks the feature, has no live offer,
cannot hold the model): the cell says which, never "not published" for "not supported".
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from gpuguide.figures import engine_budget, formatting, rounding, serving, sizing, spec_figures
from gpuguide.figures.records import serving_gpu, throughput
from gpuguide.structure.gpu_specs import Gpu
from gpuguide.structure.prices import Price
from gpuguide.structure.language import Language

ValueOf = Callable[[Gpu, Price | None], Any]
Formatter = Callable[[Any, Language], str]
Header = Callable[[Language], str]
#: A qualifier for a cell ("over PCIe", "derived from FP32"): (gpu, value) → the UI string that
#: wraps the figure (``{figure}``) and its other values, or None.
Caveat = Callable[[Gpu, Any], "tuple[str, dict[str, str]] | None"]


@dataclass(frozen=True)
class Column:
    id: str
    header: Header
    value: ValueOf  # exact value; None: not published; NOT_SUPPORTED: the GPU lacks the feature
    format: Formatter
    missing_key: str = "not_published"  # UI string shown when the value is None
    comparable: bool = True  # whether "A ÷ B" means something (not for a launch year)
    higher_is_better: bool | None = True  # for marking the better of two values; None: neither
    caveat: Caveat | None = None
    # The number a cell prints, from its exact value (a capacity rounded down the ladder, a
    # throughput to three figures): what a sentence quoting two cells computes its ratio from.
    shown: Callable[[Fraction], Fraction] = lambda exact: exact


# --- formatters: (value, language) -> text -------------------------------------------------------

def _memory(v: Any, language: Language) -> str:
    return formatting.memory_gb(v, language.locale)


def _bandwidth(v: Any, language: Language) -> str:
    return formatting.bandwidth_gbs(v, language.locale)


def _tflops(v: Any, language: Language) -> str:
    return formatting.tflops(v, language.locale)


def _params(v: Any, language: Language) -> str:
    """An exact capacity, rounded down for display (the cell keeps the exact value)."""
    return formatting.approx_params(rounding.round_down_readable(v), language.locale)


def _price_from(v: Any, language: Language) -> str:
    return language.ui("price_from", price=formatting.usd(v, language.locale))


def _text(v: Any, language: Language) -> str:
    return str(v)


def _year(v: Any, language: Language) -> str:
    return str(v)  # a year is never digit-grouped


def _watts(v: Any, language: Language) -> str:
    return formatting.watts(v, language.locale)


def yes_no(v: Any, language: Language) -> str:
    return language.ui("answer_yes") if v else language.ui("answer_no")


def _tier(v: Any, language: Language) -> str:
    return language.ui(f"scene_tier_{v}")


def _segment(v: Any, language: Language) -> str:
    return language.ui(f"segment_{v.replace('-', '_')}")


def _usd_rate(v: Any, language: Language) -> str:
    return formatting.usd_rate(v, language.locale)


def interconnect_text(gpu: Gpu, language: Language) -> str:
    """``NVLink, 900 Go/s (8 GPU reliés par NVSwitch)`` / ``PCIe (no NVLink)``."""
    link = gpu.interconnect
    kind = link.kind if link.bandwidth_gbs is None else f"{link.kind}, {formatting.bandwidth_gbs(link.bandwidth_gbs, language.locale)}"
    return language.ui("interconnect_cell", link=kind, topology=language.ui(f"topology_{link.topology}", count=link.gpus))


def _interconnect(v: Any, language: Language) -> str:
    return interconnect_text(v, language)


def form_factor_text(gpu: Gpu, language: Language) -> str | None:
    """``PCIe, double largeur, refroidissement passif`` / ``PCIe, dual-slot, passive cooling``."""
    form = gpu.form_factor
    if form is None:
        return None
    parts: list[str] = [form.module]
    if form.slots is not None:
        parts.append(language.ui(f"form_factor_slots_{form.slots}"))
    if form.low_profile:
        parts.append(language.ui("form_factor_low_profile"))
    if form.cooling is not None:
        parts.append(language.ui(f"form_factor_cooling_{form.cooling}"))
    text = ", ".join(parts)
    return language.ui("form_factor_founders_edition", form_factor=text) if form.founders_edition else text


def _form_factor(v: Any, language: Language) -> str:
    return form_factor_text(v, language) or ""


# --- the registry -------------------------------------------------------------------------------

def _simple(column_id: str, value: ValueOf, format: Formatter, missing_key: str = "not_published",
            higher_is_better: bool | None = True, caveat: Caveat | None = None) -> Column:
    return Column(column_id, lambda language: language.ui(f"column_{column_id}"), value, format, missing_key,
                  higher_is_better=higher_is_better, caveat=caveat, shown=SHOWN.get(format, _as_is))


def _as_is(exact: Fraction) -> Fraction:
    return exact


def _shown_params(exact: Fraction) -> Fraction:
    return Fraction(rounding.round_down_readable(int(exact)))


def _shown_tflops(exact: Fraction) -> Fraction:
    """As ``formatting.tflops`` prints it: whole from 100, one decimal from 10, two below."""
    places = 0 if exact >= 100 else 1 if exact >= 10 else 2
    return Fraction(round(exact * 10**places), 10**places)


def shown_rate(exact: Fraction) -> Fraction:
    """As ``formatting.usd_rate`` prints it: three significant digits."""
    return Fraction(formatting.rate_digits(exact))


#: Formatters of the columns registered here that round, and the number each prints (the others
#: print the exact value; a column about one model, ``model_columns``, says its own).
SHOWN: dict[Formatter, Callable[[Fraction], Fraction]] = {
    _params: _shown_params, _tflops: _shown_tflops, _usd_rate: shown_rate}


def _beyond_fast_link(count: int) -> Caveat:
    """Multi-GPU serving splits every layer across the GPUs (tensor parallelism): a configuration
    larger than the GPUs' fast-link group talks over PCIe, and its cell says so."""
    def caveat(gpu: Gpu, value: Any) -> tuple[str, dict[str, str]] | None:
        return ("over_pcie", {}) if count > gpu.interconnect.gpus else None
    return caveat


def _fp64_derived(gpu: Gpu, value: Any) -> tuple[str, dict[str, str]] | None:
    """FP64 the vendor gives only as a share of FP32: the cell says so (``1/64 du FP32``)."""
    return ("fp64_derived", {"ratio": gpu.fp64_ratio_of_fp32 or ""}) if gpu.fp64_is_derived else None


def _per_tflop(per_pflop: Any) -> Any:
    """A price per PFLOP-hour as a price per TFLOP-hour (an absence stays what it is)."""
    return per_pflop / 1000 if isinstance(per_pflop, Fraction) else per_pflop


def _serving(precision: str, count: int) -> Column:
    return _simple(f"infer_{precision}_{count}gpu",
                   lambda g, p: engine_budget.serving_capacity_params(serving_gpu(g, p), precision, count), _params,
                   caveat=_beyond_fast_link(count) if count > 1 else None)


COLUMNS: dict[str, Column] = {column.id: column for column in (
    _simple("segment", lambda g, p: g.segment, _segment, higher_is_better=None),
    _simple("memory", lambda g, p: g.memory_gb, _memory),
    _simple("memory_type", lambda g, p: g.memory_type, _text, higher_is_better=None),
    _simple("bandwidth", lambda g, p: g.bandwidth_gbs, _bandwidth),
    _simple("bf16", lambda g, p: g.bf16_tflops, _tflops),
    _simple("fp8", lambda g, p: throughput(g, "fp8_tflops"), _tflops),
    _simple("fp32", lambda g, p: g.fp32_tflops, _tflops),
    _simple("fp64", lambda g, p: throughput(g, "fp64_tflops"), _tflops, caveat=_fp64_derived),
    _simple("fp64_tensor", lambda g, p: throughput(g, "fp64_tensor_tflops"), _tflops),
    _simple("fp64_useful", lambda g, p: spec_figures.has_useful_fp64(throughput(g, "fp64_tflops"), g.fp32_tflops), yes_no),
    _simple("tdp", lambda g, p: g.tdp_w, _watts, higher_is_better=None),
    _simple("interconnect", lambda g, p: g, _interconnect, higher_is_better=None),
    _simple("form_factor", lambda g, p: g if g.form_factor else None, _form_factor, higher_is_better=None),
    _simple("ray_tracing", lambda g, p: g.ray_tracing, yes_no),
    Column("launch_year", lambda language: language.ui("column_launch_year"), lambda g, p: g.launch_year, _year,
           comparable=False, higher_is_better=None),
    _simple("scene_tier", lambda g, p: spec_figures.scene_memory_tier(g.memory_gb, g.ray_tracing), _tier),
    _simple("train_1gpu", lambda g, p: sizing.training_capacity_params(g.memory_gb, "full", 1), _params),
    # Full training on 8 GPUs shards the model states (FSDP, ZeRO-3): data parallelism, which runs
    # over PCIe too (more slowly), so these cells carry no interconnect caveat.
    _simple("train_8gpu", lambda g, p: sizing.training_capacity_params(g.memory_gb, "full", 8), _params),
    _simple("lora_1gpu", lambda g, p: sizing.training_capacity_params(g.memory_gb, "lora", 1), _params),
    _simple("qlora_1gpu", lambda g, p: sizing.training_capacity_params(g.memory_gb, "qlora", 1), _params),
    *(_serving(precision, count) for precision in serving.SERVING_FORMATS for count in (1, 8)),
    _simple("price", lambda g, p: p.usd_per_gpu_hour if p else None, _price_from, missing_key="no_offer",
            higher_is_better=False),
    # Price-performance: what one unit of what a workload needs costs per hour, at the best offer.
    _simple("usd_per_bf16_pflop_hour",
            lambda g, p: spec_figures.usd_per_pflop_hour(p.usd_per_gpu_hour if p else None, g.bf16_tflops), _usd_rate,
            higher_is_better=False),
    _simple("usd_per_fp64_tflop_hour", lambda g, p: _per_tflop(spec_figures.usd_per_pflop_hour(
        p.usd_per_gpu_hour if p else None, throughput(g, "fp64_tflops"))), _usd_rate, higher_is_better=False),
    _simple("usd_per_gb_hour", lambda g, p: spec_figures.usd_per_gb_hour(p.usd_per_gpu_hour if p else None, g.memory_gb),
            _usd_rate, higher_is_better=False),
)}

#: The segments of the catalogue, in the order it shows them.
SEGMENTS = ("data-centre", "workstation", "consumer")

#: Every specification of a GPU, in the order the catalogue and the GPU pages show them.
CATALOGUE_COLUMNS = ("memory", "memory_type", "bandwidth", "bf16", "fp8", "fp32", "fp64", "fp64_tensor",
                     "tdp", "interconnect", "form_factor", "ray_tracing", "launch_year", "price",
                     "usd_per_bf16_pflop_hour", "usd_per_gb_hour")

#: Columns whose figures are price-performance: a table showing one carries the note saying what it bounds.
PRICE_PERFORMANCE_NOTES = {"usd_per_bf16_pflop_hour": "table_note_price_performance",
                           "usd_per_gb_hour": "table_note_price_performance",
                           "usd_per_fp64_tflop_hour": "table_note_price_performance",
                           "usd_per_million_tokens": "table_note_usd_per_million_tokens",
                           "measured_usd_per_million_tokens": "table_note_measured_usd_per_million_tokens"}


def price_performance_notes(column_ids: tuple[str, ...]) -> list[str]:
    """The UI-string keys of the notes a table with these columns needs, once each, in order."""
    keys = [PRICE_PERFORMANCE_NOTES.get(column_id.split(":")[0]) for column_id in column_ids]
    return list(dict.fromkeys(key for key in keys if key))

#: Columns that are specifications rather than sizing results (GPU pages show them once, not per use case).
SPEC_COLUMNS = frozenset({"segment", *CATALOGUE_COLUMNS})
