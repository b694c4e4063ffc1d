"""Comparison tables: a registry of columns, each a value computed from the data and a formatter.

A page's front matter names its GPUs and its columns. A column is an id (``memory``,
``train_8gpu``) or, for columns about one model, a mapping (``{id: decode_upper_bound, model:
llama-3-1-8b, precision: bf16}``). ``build_table`` turns them into rows of cells; each cell keeps
its exact value (an unrounded capacity, a ``Fraction``) for ratios, sorting and tests, and the
text a reader sees. Every figure comes from ``sizing``; every word from the UI strings.

A value is a number (or a word's key), ``None`` when the vendor does not publish it, or a
``sizing.Absent`` saying why else it is missing (the GPU lacks the feature, has no live offer,
cannot hold the model): the cell says which, never "not published" for "not supported".
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_FLOOR
from fractions import Fraction
from typing import Any, Callable

from gpuguide.cached import cached_property
from gpuguide.figures import formatting

from gpuguide.figures import measured, roofline, serving, sizing
from gpuguide.figures.records import model_shape, serving_gpu, throughput
from gpuguide.structure.data import Dataset, Gpu, Price
from gpuguide.errors import Problems, did_you_mean
from gpuguide.structure.language import Language
from gpuguide.structure.library import Library
from gpuguide.structure.pages import ModelColumn, Page

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
    return formatting.approx_params(sizing.round_down_readable(v), language.locale)


def _price_from(v: Any, language: Language) -> str:
    return language.ui("price_from", price=formatting.usd(v, language.locale))


def _text(v: Any, language: Language) -> str:
    return str(v)


def _year(v: Any, language: Language) -> str:
    return str(v)  # a year is never digit-grouped


def _watts(v: Any, language: Language) -> str:
    return formatting.watts(v, language.locale)


def _yes_no(v: Any, language: Language) -> str:
    return language.ui("answer_yes") if v else language.ui("answer_no")


def _tier(v: Any, language: Language) -> str:
    return language.ui(f"scene_tier_{v}")


def _segment(v: Any, language: Language) -> str:
    return language.ui(f"segment_{v.replace('-', '_')}")


def _usd_rate(v: Any, language: Language) -> str:
    return formatting.usd_rate(v, language.locale)


def _usd_floor(v: Any, language: Language) -> str:
    """A price floor, three significant digits rounded down: ``≥ 0,199 $US``."""
    return language.ui("usd_lower_bound", price=formatting.usd_rate(formatting.significant(Fraction(v), 3, ROUND_FLOOR),
                                                                     language.locale))


def _usd_rate_exact(v: Any, language: Language) -> str:
    return formatting.usd_rate(v, language.locale)


def _tokens_per_second(v: Any, language: Language) -> str:
    return language.ui("tokens_per_second_upper_bound", value=formatting.whole_number(int(v), language.locale))


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
    return Fraction(sizing.round_down_readable(int(exact)))


def _shown_tflops(exact: Fraction) -> Fraction:
    """As ``formatting.tflops`` prints it: whole from 100, one decimal from 10, two below."""
    places = 0 if exact >= 100 else 1 if exact >= 10 else 2
    return Fraction(round(exact * 10**places), 10**places)


def _shown_rate(exact: Fraction) -> Fraction:
    """As ``formatting.usd_rate`` prints it: three significant digits."""
    return Fraction(formatting.rate_digits(exact))


def _shown_floor(exact: Fraction) -> Fraction:
    return Fraction(formatting.significant(exact, 3, ROUND_FLOOR))


def _shown_whole(exact: Fraction) -> Fraction:
    return Fraction(int(exact))


#: Formatters that round, and the number each prints (the others print the exact value).
SHOWN: dict[Formatter, Callable[[Fraction], Fraction]] = {
    _params: _shown_params, _tflops: _shown_tflops, _usd_rate: _shown_rate, _usd_floor: _shown_floor,
    _tokens_per_second: _shown_whole, _usd_rate_exact: _shown_rate}


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
                   lambda g, p: serving.serving_capacity_params(serving_gpu(g, p), precision, count), _params,
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
    _simple("fp64_useful", lambda g, p: sizing.has_useful_fp64(throughput(g, "fp64_tflops"), g.fp32_tflops), _yes_no),
    _simple("tdp", lambda g, p: g.tdp_w, _watts, higher_is_better=None),
    _simple("interconnect", lambda g, p: g, _interconnect, higher_is_better=None),
    _simple("form_factor", lambda g, p: g if g.form_factor else None, _form_factor, higher_is_better=None),
    _simple("ray_tracing", lambda g, p: g.ray_tracing, _yes_no),
    Column("launch_year", lambda language: language.ui("column_launch_year"), lambda g, p: g.launch_year, _year,
           comparable=False, higher_is_better=None),
    _simple("scene_tier", lambda g, p: sizing.scene_memory_tier(g.memory_gb, g.ray_tracing), _tier),
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
            lambda g, p: sizing.usd_per_pflop_hour(p.usd_per_gpu_hour if p else None, g.bf16_tflops), _usd_rate,
            higher_is_better=False),
    _simple("usd_per_fp64_tflop_hour", lambda g, p: _per_tflop(sizing.usd_per_pflop_hour(
        p.usd_per_gpu_hour if p else None, throughput(g, "fp64_tflops"))), _usd_rate, higher_is_better=False),
    _simple("usd_per_gb_hour", lambda g, p: sizing.usd_per_gb_hour(p.usd_per_gpu_hour if p else None, g.memory_gb),
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


def _one_gpu_bounds(shape: serving.ModelShape, workload: serving.Workload, gpu: Gpu,
                    price: Price | None) -> roofline.Bounds | sizing.Absent | None:
    """The roofline of ``workload`` on one GPU, ``DOES_NOT_FIT`` when that GPU cannot hold it within
    the engine's budget: a speed for a model that does not load would mislead."""
    spec = serving_gpu(gpu, price)
    if not serving.fits_engine(shape, workload, spec, 1):
        return sizing.DOES_NOT_FIT
    return roofline.decode_bounds(shape, workload, spec, 1)


def _decode_upper_bound(dataset: Dataset, model: str, precision: str) -> Column:
    """Per-user decoding speed bound on one GPU, chat preset (one user, 8,192 tokens)."""
    llm = dataset.llm_models[model]
    shape, chat = model_shape(llm), serving.preset("chat")
    workload = serving.Workload(chat.context_tokens, chat.users, precision)

    def value(gpu: Gpu, price: Price | None) -> Fraction | sizing.Absent | None:
        bounds = _one_gpu_bounds(shape, workload, gpu, price)
        return bounds.user_tokens_per_second if isinstance(bounds, roofline.Bounds) else bounds

    return Column(f"decode_upper_bound:{model}:{precision}",
                  lambda language: language.ui("column_decode_upper_bound", model=llm.name,
                                               precision=language.ui(f"precision_{serving.format_of(shape, precision)}")),
                  value, _tokens_per_second, shown=_shown_whole)


def _usd_per_million_tokens(dataset: Dataset, model: str, precision: str) -> Column:
    """The price floor per million output tokens on one GPU, batch preset (64 sequences of 4,096 tokens)."""
    llm = dataset.llm_models[model]
    shape, batch = model_shape(llm), serving.preset("batch")
    workload = serving.Workload(batch.context_tokens, batch.users, precision)

    def value(gpu: Gpu, price: Price | None) -> Fraction | sizing.Absent | None:
        bounds = _one_gpu_bounds(shape, workload, gpu, price)
        if not isinstance(bounds, roofline.Bounds):
            return bounds
        if price is None:
            return sizing.NO_OFFER
        return roofline.usd_per_million_tokens(price.usd_per_gpu_hour, bounds.total_tokens_per_second)

    return Column(f"usd_per_million_tokens:{model}:{precision}",
                  lambda language: language.ui("column_usd_per_million_tokens", model=llm.name,
                                               precision=language.ui(f"precision_{serving.format_of(shape, precision)}")),
                  value, _usd_floor, higher_is_better=False, shown=_shown_floor)


def _measured_usd_per_million_tokens(dataset: Dataset, model: str, precision: str) -> Column:
    """What a million output tokens cost at the measured throughput: the best published result for
    the model on this GPU (MLPerf, per GPU), at this site's price; ``NOT_MEASURED`` without one."""
    llm = dataset.llm_models[model]

    def value(gpu: Gpu, price: Price | None) -> Fraction | sizing.Absent | None:
        per_gpu = measured.best_tokens_per_gpu(dataset, model, gpu.id)
        if per_gpu is None:
            return sizing.NOT_MEASURED
        if price is None:
            return sizing.NO_OFFER
        return roofline.usd_per_million_tokens(price.usd_per_gpu_hour, per_gpu)

    return Column(f"measured_usd_per_million_tokens:{model}:{precision}",
                  lambda language: language.ui("column_measured_usd_per_million_tokens", model=llm.name),
                  value, _usd_rate_exact, higher_is_better=False, shown=_shown_rate)


def _diffusion_fits(dataset: Dataset, model: str, precision: str) -> Column:
    diffusion = dataset.diffusion_models[model]
    need = diffusion.documented_memory_gb(precision)

    def value(gpu: Gpu, price: Price | None) -> bool | None:
        return sizing.diffusion_fits(gpu.memory_gb, need)

    return Column(f"diffusion_fits:{model}:{precision}",
                  lambda language: language.ui("column_diffusion_fits", model=diffusion.name,
                                               precision=language.ui(f"precision_{precision}")),
                  value, _yes_no)


#: Columns about one model: id -> (factory, which dataset the model comes from, allowed precisions).
MODEL_COLUMNS: dict[str, tuple[Callable[[Dataset, str, str], Column], str, tuple[str, ...]]] = {
    "decode_upper_bound": (_decode_upper_bound, "llm_models", ("bf16", "fp8", "int4", "native")),
    "usd_per_million_tokens": (_usd_per_million_tokens, "llm_models", ("bf16", "fp8", "int4", "native")),
    "measured_usd_per_million_tokens": (_measured_usd_per_million_tokens, "llm_models", ("native",)),
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
    pos = page.front_matter.position(path)
    if isinstance(column, str):
        if column not in COLUMNS:
            hint = did_you_mean(column, [*COLUMNS, *MODEL_COLUMNS])
            problems.error(page.source, pos.line, pos.column, f"unknown column `{column}`",
                           hint or f"use one of: {', '.join(COLUMNS)}")
        return
    if column.id not in MODEL_COLUMNS:
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
