"""Figures quoted in prose: the functions behind the shortcodes, each computed by the sizing library
so prose never drifts from tables.

An editor writes ``{{ name key=value … }}`` in Markdown (``markdown.shortcodes`` parses it): the
function ``name`` below runs with those arguments, converted to its annotated types, and returns
the text (inline shortcodes) or a table (block shortcodes, alone in their paragraph). A value it
cannot use raises ``ShortcodeError`` with what would work; the parser reports it at its line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable

from gpuguide.errors import did_you_mean
from gpuguide.figures import formatting, sizing
from gpuguide.figures.columns import COLUMNS, Column, make_cell
from gpuguide.figures.records import gpu_specs, model_shape
from gpuguide.structure.data import Dataset, Gpu, LlmModel
from gpuguide.structure.language import Language

@dataclass(frozen=True)
class ShortcodeContext:
    dataset: Dataset
    language: Language

    @property
    def locale(self) -> str:
        return self.language.locale

    @property
    def ui(self) -> Any:
        return self.language.ui


class ShortcodeError(ValueError):
    """A shortcode was given a value it cannot use; the message says what would work."""


SHORTCODES: dict[str, Callable[..., Any]] = {}


BLOCK_SHORTCODES: set[str] = set()


@dataclass(frozen=True)
class BlockCell:
    """A cell of a block shortcode's table; ``data`` becomes ``data-*`` attributes (what tests and
    scripts read: the configuration a row recommends, the exact bytes a figure rounds)."""

    text: str
    data: tuple[tuple[str, str], ...] = ()
    href: str | None = None  # the cell is a link (an external source)
    page: tuple[str, str] | None = None  # the cell links to a page of the site: (layout, id), e.g. ("gpu", "h100-sxm")
    detail: str | None = None  # a second, smaller line (as a GPU's architecture under its name): no column of its own


@dataclass(frozen=True)
class BlockTable:
    """What a block shortcode returns: a table the renderer prints in a scroll region."""

    caption: str
    headers: tuple[str, ...]
    rows: tuple[tuple[BlockCell, ...], ...]
    numeric: tuple[bool, ...] = ()  # per column: right-aligned figures


def shortcode(function: Callable[..., str]) -> Callable[..., str]:
    """Register an inline shortcode: its text goes where it is written."""
    SHORTCODES[function.__name__] = function
    return function


def block_shortcode(function: Callable[..., BlockTable]) -> Callable[..., BlockTable]:
    """Register a block shortcode: written alone in its paragraph, it becomes a table."""
    SHORTCODES[function.__name__] = function
    BLOCK_SHORTCODES.add(function.__name__)
    return function


def _gpu(ctx: ShortcodeContext, gpu_id: str) -> "Gpu":
    if gpu_id not in ctx.dataset.gpus:
        hint = did_you_mean(gpu_id, ctx.dataset.gpus)
        raise ShortcodeError(f"unknown GPU `{gpu_id}`" + (f"; {hint}" if hint else "; use an id from data/gpus.yaml"))
    return ctx.dataset.gpus[gpu_id]


def _llm(ctx: ShortcodeContext, model: str) -> "LlmModel":
    if model not in ctx.dataset.llm_models:
        hint = did_you_mean(model, ctx.dataset.llm_models)
        raise ShortcodeError(f"unknown model `{model}`" + (f"; {hint}" if hint else "; use an id from data/models.yaml"))
    return ctx.dataset.llm_models[model]


def _column(column: str) -> Column:
    if column not in COLUMNS:
        hint = did_you_mean(column, COLUMNS)
        raise ShortcodeError(f"unknown column `{column}`" + (f"; {hint}" if hint else ""))
    return COLUMNS[column]


SERVING_PRECISIONS = (*sizing.SERVING_PRECISIONS, "native")


def _precision(precision: str, allowed: tuple[str, ...] = SERVING_PRECISIONS) -> str:
    if precision not in allowed:
        raise ShortcodeError(f"unknown precision `{precision}`; use one of: {', '.join(allowed)}")
    return precision


def _context(llm: "LlmModel", context: int | None) -> int:
    """A context a shortcode may size: positive, and within the model's maximum context. Not given:
    the reference context (8,192 tokens), never beyond the model's maximum."""
    if context is None:
        return min(sizing.REFERENCE_CONTEXT_TOKENS, llm.max_context_tokens)
    if context <= 0:
        raise ShortcodeError("`context` must be a positive number of tokens, e.g. 8192")
    if context > llm.max_context_tokens:
        raise ShortcodeError(f"{llm.name} takes at most {llm.max_context_tokens:,} tokens of context; "
                             f"use context={llm.max_context_tokens} or less")
    return context


def _whole_number(name: str, value: int, example: str) -> int:
    if value <= 0 or value > 10**15:
        raise ShortcodeError(f"`{name}` must be a positive whole number no larger than 10^15, e.g. {example}")
    return value


@shortcode
def usable_memory_share(ctx: ShortcodeContext) -> str:
    """The share of GPU memory the sizing counts on: ``80 %`` / ``80%``."""
    return formatting.percent(float(sizing.USABLE_MEMORY_SHARE), ctx.locale)


@shortcode
def reference_context(ctx: ShortcodeContext) -> str:
    """The context the KV cache of a served model is sized for: ``8 192`` / ``8,192``."""
    return formatting.whole_number(sizing.REFERENCE_CONTEXT_TOKENS, ctx.locale)


@shortcode
def gpu_figure(ctx: ShortcodeContext, gpu: str, column: str) -> str:
    """What a table cell shows for ``gpu`` in ``column``: ``{{ gpu_figure gpu=h100-sxm column=train_8gpu }}``."""
    record = _gpu(ctx, gpu)
    return make_cell(_column(column), record, ctx.dataset.price(gpu), ctx.language).text


@shortcode
def ratio(ctx: ShortcodeContext, a: str, b: str, column: str, style: str = "number") -> str:
    """``a``'s figure divided by ``b``'s, from exact values: ``{{ ratio a=h100-sxm b=a100-sxm column=bf16 }}`` → ``3,2``.

    ``style=words`` rounds to the nearest whole number and spells it: ``trois`` / ``three``
    (for "about three times …").
    """
    if style not in ("number", "words"):
        raise ShortcodeError(f"unknown style `{style}`; use `number` or `words`")
    spec = _column(column)
    value_a = spec.value(_gpu(ctx, a), ctx.dataset.price(a))
    value_b = spec.value(_gpu(ctx, b), ctx.dataset.price(b))
    for value in (value_a, value_b):
        if value is not None and not isinstance(value, sizing.Absent) and sizing.spec_ratio(value, 1) is None:
            raise ShortcodeError(f"column `{column}` is not a number; use a figure such as bf16 or memory")
    result = sizing.spec_ratio(value_a, value_b)
    if result is None:
        # Name the GPU without the figure, and why (not published, not supported, no offer…).
        name, absent = (a, value_a) if value_a is None or isinstance(value_a, sizing.Absent) else (b, value_b)
        why = "not published" if not isinstance(absent, sizing.Absent) else absent.value.replace("_", " ")
        raise ShortcodeError(f"`{name}` has no `{column}` figure ({why}): a ratio needs two published figures")
    if style == "words":
        return formatting.spelled_out(round(result), ctx.locale)
    return formatting.ratio(float(result), ctx.locale)


@shortcode
def memory_range(ctx: ShortcodeContext, gpus: str) -> str:
    """The smallest to the largest memory among ``gpus``: ``{{ memory_range gpus="rtx-4090,rtx-5090" }}``
    → ``24 à 32 Go`` / ``24 to 32 GB``."""
    ids = [gpu.strip() for gpu in gpus.split(",") if gpu.strip()]
    if len(ids) < 2:
        raise ShortcodeError("`gpus` lists at least two GPU ids separated by commas")
    memories = sorted(_gpu(ctx, gpu_id).memory_gb for gpu_id in ids)
    low, high = memories[0], memories[-1]
    return ctx.ui("memory_range", low=formatting.plain_number(low, ctx.locale),
                  high=formatting.memory_gb(high, ctx.locale))


@shortcode
def full_training_bytes_per_param(ctx: ShortcodeContext) -> str:
    """Bytes per parameter of mixed-precision Adam training: ``16``."""
    return formatting.whole_number(sizing.FULL_TRAINING_BYTES_PER_PARAM, ctx.locale)


@shortcode
def full_training_memory(ctx: ShortcodeContext, params: int) -> str:
    """Memory to fully train ``params`` parameters (16 bytes each), rounded DOWN to one significant
    figure, for a sentence such as "needs more than …".

    ``{{ full_training_memory params=7000000000 }}`` → ``100 Go`` (7 × 10⁹ × 16 = 112 GB).
    """
    _whole_number("params", params, "7000000000")
    needed_gb = int(sizing.training_memory_bytes(params, "full") // sizing.GB)
    if needed_gb < 1:
        raise ShortcodeError("that model needs less than 1 GB; quote a larger model")
    step = 10 ** (len(str(needed_gb)) - 1)
    return formatting.memory_gb(needed_gb - needed_gb % step, ctx.locale)


def _memory_up(needed: Any, ctx: ShortcodeContext) -> str:
    """Bytes as whole GB, rounded UP: a need is never understated."""
    return formatting.memory_gb(math.ceil(needed / sizing.GB), ctx.locale)


@shortcode
def model_memory(ctx: ShortcodeContext, model: str, precision: str,
                 context: int | None = None) -> str:
    """Memory to serve ``model`` at ``precision`` with ``context`` tokens (weights + KV cache), rounded UP.

    ``{{ model_memory model=llama-3-1-70b precision=bf16 context=8192 }}``; ``precision=native``
    is the format the publisher ships (DeepSeek's FP8, gpt-oss's MXFP4).
    """
    llm = _llm(ctx, model)
    needed = sizing.serving_memory_bytes(model_shape(llm), _precision(precision), _context(llm, context))
    return _memory_up(needed, ctx)


@shortcode
def memory_share(ctx: ShortcodeContext, model: str, precision: str, gpu: str,
                 context: int | None = None) -> str:
    """The share of one ``gpu``'s memory that ``model`` needs (weights + KV cache), rounded UP:
    ``{{ memory_share model=gpt-oss-120b precision=native gpu=h100-sxm }}`` → ``82 %``."""
    llm, record = _llm(ctx, model), _gpu(ctx, gpu)
    needed = sizing.serving_memory_bytes(model_shape(llm), _precision(precision), _context(llm, context))
    share = math.ceil(needed * 100 / (sizing.exact(record.memory_gb) * sizing.GB))
    return formatting.percent(share / 100, ctx.locale)


@shortcode
def decode_upper_bound(ctx: ShortcodeContext, gpu: str, model: str, precision: str) -> str:
    """Upper bound of single-stream decoding speed: ``≤ 208 tokens/s``."""
    record, llm = _gpu(ctx, gpu), _llm(ctx, model)
    bound = sizing.decode_tokens_per_second_upper_bound(record.bandwidth_gbs, model_shape(llm), _precision(precision))
    if bound is None:
        return ctx.ui("not_published")
    return ctx.ui("tokens_per_second_upper_bound", value=formatting.whole_number(int(bound), ctx.locale))


@shortcode
def diffusion_memory(ctx: ShortcodeContext, model: str, precision: str) -> str:
    """The memory a diffusion model's publisher documents: ``{{ diffusion_memory model=sd-3-5-large precision=bf16 }}``."""
    models = ctx.dataset.diffusion_models
    if model not in models:
        hint = did_you_mean(model, models)
        raise ShortcodeError(f"unknown model `{model}`" + (f"; {hint}" if hint else "; use an id from data/models.yaml"))
    value = models[model].documented_memory_gb(_precision(precision, ("bf16", "fp8")))
    return ctx.ui("not_published") if value is None else formatting.memory_gb(value, ctx.locale)


def configuration_text(config: sizing.Configuration, ctx: ShortcodeContext) -> str:
    """``2 × H100 SXM, dès 5,76 $US/h``, or ``1 × RTX PRO 6000 (sans offre)`` for reference."""
    gpu = ctx.dataset.gpus[config.gpu_id].model
    if config.usd_per_hour is None:
        return ctx.ui("reference_configuration", count=config.gpu_count, gpu=gpu)
    return ctx.ui("recommended_configuration", count=config.gpu_count, gpu=gpu,
                  price=formatting.usd(float(config.usd_per_hour), ctx.locale))


def configuration_data(config: sizing.Configuration, model: str, precision: str) -> tuple[tuple[str, str], ...]:
    """What a recommendation states, for machines: ``data-gpu``, ``data-count``, ``data-model``, ``data-precision``."""
    return (("gpu", config.gpu_id), ("count", str(config.gpu_count)), ("model", model), ("precision", precision))


def _requirement_row(ctx: ShortcodeContext, llm: "LlmModel", precision: str, context: int,
                     specs: list[sizing.GpuSpec], label: str) -> tuple[BlockCell, ...]:
    """One model at one precision: its parameters, the memory it needs, the configuration to rent."""
    shape = model_shape(llm)
    needed = sizing.serving_memory_bytes(shape, precision, context)
    tokens = sizing.effective_context(shape, context)
    memory = _memory_up(needed, ctx)
    if tokens < context:
        memory = ctx.ui("memory_at_max_context", memory=memory, context=formatting.whole_number(tokens, ctx.locale))
    config = sizing.recommend_configuration(needed, specs)
    if config is None:  # nothing rentable holds it: the smallest configuration of any GPU, marked
        reference = [found for spec in specs
                     if (found := sizing.smallest_configuration(needed, spec, fast_link_only=True)) is not None]
        config = min(reference, key=lambda c: (c.gpu_count, c.gpu_id), default=None)
    stated = llm.native_precision.format if precision == "native" and llm.native_precision else precision
    recommended = (BlockCell(configuration_text(config, ctx), configuration_data(config, llm.id, stated))
                   if config is not None else BlockCell(ctx.ui("no_configuration")))
    return (BlockCell(label, page=("model", llm.id)), BlockCell(formatting.billions(llm.parameters, ctx.locale)),
            BlockCell(memory, (("bytes", str(math.ceil(needed))),)), recommended)


@block_shortcode
def llm_requirements_table(ctx: ShortcodeContext, models: str, precision: str,
                           context: int = sizing.REFERENCE_CONTEXT_TOKENS) -> "BlockTable":
    """A table of LLMs: parameters, memory needed at ``precision`` and ``context``, cheapest rental.

    ``{{ llm_requirements_table models="llama-3-1-8b,llama-3-1-70b" precision=bf16 context=8192 }}``.
    A model whose maximum context is shorter is sized at its maximum, and its cell says so. The
    rental is the cheapest configuration with a live offer whose GPUs share a fast link; when none
    holds the model, the smallest configuration of any GPU is shown for reference, marked.
    """
    _precision(precision)
    _whole_number("context", context, "8192")
    ids = [model.strip() for model in models.split(",") if model.strip()]
    if not ids:
        raise ShortcodeError("`models` lists model ids separated by commas")
    specs = gpu_specs(ctx.dataset.gpus, ctx.dataset.prices)
    rows = []
    for model in ids:
        llm = _llm(ctx, model)
        rows.append(_requirement_row(ctx, llm, precision, context, specs, llm.name))
        native = llm.native_precision
        if native is not None and native.format != precision:
            # A model published in another format gets a row for it: what its publisher ships.
            label = ctx.ui("model_in_native_format", model=llm.name, format=ctx.ui(f"precision_{native.format}"))
            rows.append(_requirement_row(ctx, llm, "native", context, specs, label))
    shown_context = formatting.whole_number(context, ctx.locale)
    precision_name = ctx.ui(f"precision_{precision}")
    headers = (ctx.ui("column_model"), ctx.ui("column_parameters"),
               ctx.ui("column_memory_needed", precision=precision_name, context=shown_context),
               ctx.ui("column_recommended"))
    return BlockTable(ctx.ui("llm_requirements_caption", precision=precision_name, context=shown_context),
                      headers, tuple(rows), (False, True, True, False))


def _constant_value(constant: sizing.Constant, ctx: ShortcodeContext) -> str:
    if constant.unit == "share":
        return formatting.percent(float(constant.value), ctx.locale)
    return ctx.ui(f"unit_{constant.unit}", value=formatting.decimal(constant.value, ctx.locale),
                  count=constant.value)


@block_shortcode
def sizing_constants(ctx: ShortcodeContext) -> "BlockTable":
    """Every constant of the memory model, its value and its source: ``{{ sizing_constants }}``."""
    rows = tuple(
        (BlockCell(ctx.ui(f"constant_{constant.key}")), BlockCell(_constant_value(constant, ctx)),
         BlockCell(constant.source_title or "", href=constant.source) if constant.source
         else BlockCell(ctx.ui("rule_of_this_site")))
        for constant in sizing.CONSTANTS)
    return BlockTable(ctx.ui("constants_caption"),
                      (ctx.ui("constants_column_name"), ctx.ui("constants_column_value"), ctx.ui("column_source")),
                      rows, (False, True, False))


GIB = 2**30


def _difference(ours: Fraction, published: Fraction, ctx: ShortcodeContext) -> str:
    """``identique`` / ``+10 % : plus prudent`` / ``−0,2 %``, ours against the published figure."""
    change = ours / published - 1
    if change == 0:
        return ctx.ui("ratio_same")
    shown = formatting.signed_percent(float(change), ctx.locale)
    return ctx.ui("anchor_more_conservative", difference=shown) if change > 0 else shown


def _budget_verdict(need: Fraction, memory_gb: Any, gpus: int, ctx: ShortcodeContext) -> tuple[str, str]:
    """What this site computes for a "runs on" claim: the share of memory needed, and whether the
    80 % budget holds it (if not, the site is more conservative than the source)."""
    share = need / (sizing.exact(memory_gb) * sizing.GB * gpus)
    shown = formatting.percent(math.ceil(share * 1000) / 1000, ctx.locale, digits=1)
    ours = ctx.ui("anchor_site_share", memory=_memory_up(need, ctx), share=shown)
    budget = formatting.percent(float(sizing.USABLE_MEMORY_SHARE), ctx.locale)
    verdict = ctx.ui("anchor_within_budget" if share <= sizing.USABLE_MEMORY_SHARE else "anchor_beyond_budget",
                     budget=budget)
    return ours, verdict


def anchor_row(anchor: Any, ctx: ShortcodeContext) -> tuple[BlockCell, ...]:
    """One published figure against this site's: (source, what it says, what we compute, difference)."""
    ui, locale = ctx.ui, ctx.locale
    if anchor.claim == "training_memory":
        published = sizing.exact(anchor.published_gb) * sizing.GB
        ours_bytes = sizing.training_memory_bytes(anchor.parameters, anchor.method)
        said = ui("anchor_training_memory", memory=formatting.memory_gb(anchor.published_gb, locale),
                  params=formatting.billions(anchor.parameters, locale), method=ui(f"method_{anchor.method}"))
        ours, verdict = _memory_up(ours_bytes, ctx), _difference(Fraction(ours_bytes), published, ctx)
    elif anchor.claim == "trains_on":
        need = sizing.training_memory_bytes(anchor.parameters, anchor.method)
        said = ui("anchor_trains_on", params=formatting.billions(anchor.parameters, locale),
                  method=ui(f"method_{anchor.method}"), memory=formatting.memory_gb(anchor.gpu_memory_gb, locale))
        ours, verdict = _budget_verdict(Fraction(need), anchor.gpu_memory_gb, 1, ctx)
    elif anchor.claim == "serves_on":
        llm = ctx.dataset.llm_models[anchor.model]
        need = sizing.serving_memory_bytes(model_shape(llm), anchor.precision)
        format_key = (llm.native_precision.format if anchor.precision == "native" and llm.native_precision
                      else "bf16" if anchor.precision == "native" else anchor.precision)
        said = ui("anchor_serves_on", model=llm.name, precision=ui(f"precision_{format_key}"), count=anchor.gpus,
                  memory=formatting.memory_gb(anchor.gpu_memory_gb, locale))
        ours, verdict = _budget_verdict(Fraction(need), anchor.gpu_memory_gb, anchor.gpus, ctx)
        ours = ui("anchor_with_context", figure=ours,
                  context=formatting.whole_number(sizing.effective_context(model_shape(llm), sizing.REFERENCE_CONTEXT_TOKENS), locale))
    elif anchor.claim == "kv_cache":
        shape = sizing.ModelShape(0, anchor.layers, anchor.kv_heads, anchor.head_dim, anchor.context_tokens)
        kv = sizing.kv_cache_bytes(shape, anchor.context_tokens)
        said = ui("anchor_kv_cache", bytes=formatting.whole_number(anchor.published_bytes, locale),
                  tokens=formatting.whole_number(anchor.context_tokens, locale))
        ours = ui("unit_bytes_total", value=formatting.whole_number(kv, locale))
        verdict = _difference(Fraction(kv), Fraction(anchor.published_bytes), ctx)
    else:  # weights, in the unit the source uses
        llm = ctx.dataset.llm_models[anchor.model]
        weights = sizing.weights_bytes(model_shape(llm), anchor.precision)
        format_key = (llm.native_precision.format if anchor.precision == "native" and llm.native_precision
                      else "bf16" if anchor.precision == "native" else anchor.precision)
        if anchor.published_gib is not None:
            size = ui("unit_gib", value=formatting.decimal(anchor.published_gib, locale))
            ours = ui("unit_gib", value=formatting.decimal(math.floor(weights * 100 / GIB) / 100, locale))
            verdict = _difference(weights / GIB, sizing.exact(anchor.published_gib), ctx)
        else:
            size = formatting.memory_gb(anchor.published_gb, locale)
            ours = formatting.memory_gb(Fraction(math.floor(weights * 10 / sizing.GB), 10), locale)
            verdict = _difference(weights / sizing.GB, sizing.exact(anchor.published_gb), ctx)
        said = ui("anchor_weights", model=llm.name, size=size, precision=ui(f"precision_{format_key}"))
    return (BlockCell(anchor.reference, href=anchor.source), BlockCell(said), BlockCell(ours), BlockCell(verdict))


@block_shortcode
def published_anchors(ctx: ShortcodeContext) -> "BlockTable":
    """Each published figure of ``data/anchors.yaml`` against what this site computes: ``{{ published_anchors }}``."""
    return BlockTable(ctx.ui("anchors_caption"),
                      (ctx.ui("column_source"), ctx.ui("anchors_column_published"), ctx.ui("anchors_column_site"),
                       ctx.ui("anchors_column_difference")),
                      tuple(anchor_row(anchor, ctx) for anchor in ctx.dataset.anchors))
