"""Figures quoted in prose: the functions behind the inline shortcodes (and the guide's requirements
table), each computed by the figures library so prose never drifts from tables.

An editor writes ``{{ name key=value … }}`` in Markdown (``markdown.shortcodes`` parses it): the
function ``name`` below runs with those arguments, converted to its annotated types, and returns
the text (inline shortcodes) or a table (block shortcodes, alone in their paragraph). A value it
cannot use raises ``ShortcodeError`` with what would work; the parser reports it at its line.
"""

from __future__ import annotations

import math

from gpuguide.errors import did_you_mean
from gpuguide.figures import engine_budget, formatting, roofline, serving, sizing, spec_figures
from gpuguide.figures.columns import COLUMNS, Column
from gpuguide.figures.page_tables import make_cell
from gpuguide.figures.plan_tables import (
    configuration_text,
    memory_need_gb,
    memory_text,
    model_cheapest,
    model_plans,
    per_million_text,
    plan_data,
    tokens_text,
)
from gpuguide.figures.records import model_shape, serving_gpu
from gpuguide.figures.registry import (
    BlockCell,
    BlockTable,
    ShortcodeContext,
    ShortcodeError,
    block_shortcode,
    known_gpu,
    known_llm,
    shortcode,
)
from gpuguide.figures.serving import Workload
from gpuguide.structure.model_specs import LlmModel


def _column(column: str) -> Column:
    if column not in COLUMNS:
        hint = did_you_mean(column, COLUMNS)
        raise ShortcodeError(f"unknown column `{column}`" + (f"; {hint}" if hint else ""))
    return COLUMNS[column]


#: The weight formats a shortcode may name: those of ``serving.FORMATS`` and a model's own.
PRECISIONS = (*serving.SERVING_FORMATS, "native")


def _precision(precision: str, allowed: tuple[str, ...] = PRECISIONS) -> str:
    if precision not in allowed:
        raise ShortcodeError(f"unknown precision `{precision}`; use one of: {', '.join(allowed)}")
    return precision


def _kv(kv: str) -> str:
    if kv not in serving.KV_CACHE_BYTES:
        raise ShortcodeError(f"unknown KV cache format `{kv}`; use one of: {', '.join(serving.KV_CACHE_BYTES)}")
    return kv


def _context(llm: LlmModel, context: int | None) -> int:
    """A context a shortcode may size: positive, and within the model's maximum context. Not given:
    the chat preset's, never beyond the model's maximum."""
    if context is None:
        return min(serving.preset("chat").context_tokens, llm.max_context_tokens)
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


def _workload(llm: LlmModel, precision: str, context: int | None, users: int, kv: str) -> Workload:
    return Workload(_context(llm, context), _whole_number("users", users, "10"), _precision(precision), _kv(kv))


@shortcode
def usable_memory_share(ctx: ShortcodeContext) -> str:
    """The share of GPU memory training counts on: ``80 %`` / ``80%``."""
    return formatting.percent(float(sizing.USABLE_MEMORY_SHARE), ctx.locale)


@shortcode
def engine_memory_share(ctx: ShortcodeContext) -> str:
    """The share of the reported memory a serving engine takes (vLLM's default): ``90 %`` / ``90%``."""
    return formatting.percent(float(engine_budget.ENGINE_MEMORY_SHARE), ctx.locale)


@shortcode
def preset(ctx: ShortcodeContext, key: str) -> str:
    """A serving preset's workload: ``{{ preset key=team }}`` → ``10 utilisateurs × 32 768 jetons``."""
    known = {p.key: p for p in serving.PRESETS}
    if key not in known:
        raise ShortcodeError(f"unknown preset `{key}`; use one of: {', '.join(known)}")
    chosen = known[key]
    return ctx.ui("workload_text", users=formatting.whole_number(chosen.users, ctx.locale), count=chosen.users,
                  context=formatting.whole_number(chosen.context_tokens, ctx.locale))


@shortcode
def gpu_figure(ctx: ShortcodeContext, gpu: str, column: str) -> str:
    """What a table cell shows for ``gpu`` in ``column``: ``{{ gpu_figure gpu=h100-sxm column=train_8gpu }}``."""
    record = known_gpu(ctx, gpu)
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
    value_a = spec.value(known_gpu(ctx, a), ctx.dataset.price(a))
    value_b = spec.value(known_gpu(ctx, b), ctx.dataset.price(b))
    for value in (value_a, value_b):
        if value is not None and not isinstance(value, sizing.Absent) and spec_figures.spec_ratio(value, 1) is None:
            raise ShortcodeError(f"column `{column}` is not a number; use a figure such as bf16 or memory")
    result = spec_figures.spec_ratio(value_a, value_b)
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
    memories = sorted(known_gpu(ctx, gpu_id).memory_gb for gpu_id in ids)
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


@shortcode
def model_memory(ctx: ShortcodeContext, model: str, precision: str, context: int | None = None, users: int = 1,
                 kv: str = "bf16") -> str:
    """Memory to serve ``model`` in ``precision`` to ``users`` sequences of ``context`` tokens: weights
    and KV cache, to a tenth of a GB rounded up (the sum of the two as the model's page shows them).

    ``{{ model_memory model=llama-3-3-70b precision=fp8 context=32768 users=10 }}``; ``precision=native``
    is the format the publisher ships (DeepSeek's FP8, gpt-oss's MXFP4).
    """
    llm = known_llm(ctx, model)
    shape, workload = model_shape(llm), _workload(llm, precision, context, users, kv)
    weights = serving.weights_bytes(shape, workload.weights)
    kv_bytes = serving.kv_cache_bytes(shape, workload.context_tokens, workload.kv_cache, workload.users)
    return formatting.memory_gb(memory_need_gb(weights) + memory_need_gb(kv_bytes), ctx.locale)


@shortcode
def weights_memory(ctx: ShortcodeContext, model: str, precision: str) -> str:
    """Memory of ``model``'s weights in ``precision``, to a tenth of a GB rounded up."""
    llm = known_llm(ctx, model)
    return memory_text(serving.weights_bytes(model_shape(llm), _precision(precision)), ctx.language)


@shortcode
def memory_share(ctx: ShortcodeContext, model: str, precision: str, gpu: str, context: int | None = None,
                 users: int = 1) -> str:
    """The share of one ``gpu``'s reported memory that ``model`` takes (weights + KV cache), rounded UP:
    ``{{ memory_share model=gpt-oss-120b precision=native gpu=h100-sxm }}`` → ``83 %``."""
    llm, record = known_llm(ctx, model), known_gpu(ctx, gpu)
    workload = _workload(llm, precision, context, users, "bf16")
    needed = engine_budget.memory_per_gpu_bytes(model_shape(llm), workload, 1)
    spec = serving_gpu(record, ctx.dataset.price(gpu))
    return formatting.percent(math.ceil(needed * 100 / spec.runtime_memory_bytes) / 100, ctx.locale)


def _one_gpu_bounds(ctx: ShortcodeContext, gpu: str, model: str, precision: str, context: int | None, users: int,
                    kv: str) -> roofline.Bounds | None | str:
    llm, record = known_llm(ctx, model), known_gpu(ctx, gpu)
    shape, workload = model_shape(llm), _workload(llm, precision, context, users, kv)
    spec = serving_gpu(record, ctx.dataset.price(gpu))
    if not engine_budget.fits_engine(shape, workload, spec, 1):
        return ctx.ui("does_not_fit")
    return roofline.decode_bounds(shape, workload, spec, 1)


@shortcode
def decode_upper_bound(ctx: ShortcodeContext, gpu: str, model: str, precision: str, context: int | None = None,
                       users: int = 1, kv: str = "bf16") -> str:
    """Per-user decoding speed no engine exceeds on one ``gpu`` serving ``users`` sequences of
    ``context`` tokens: ``≤ 208 tokens/s``; "does not fit" when one GPU cannot hold them."""
    bounds = _one_gpu_bounds(ctx, gpu, model, precision, context, users, kv)
    if isinstance(bounds, str):
        return bounds
    return ctx.ui("not_published") if bounds is None else tokens_text(bounds.user_tokens_per_second, ctx.language)


@shortcode
def total_throughput_bound(ctx: ShortcodeContext, gpu: str, model: str, precision: str, context: int | None = None,
                           users: int = 1, kv: str = "bf16") -> str:
    """Output tokens per second, all users together, that one ``gpu`` cannot exceed at that load."""
    bounds = _one_gpu_bounds(ctx, gpu, model, precision, context, users, kv)
    if isinstance(bounds, str):
        return bounds
    return ctx.ui("not_published") if bounds is None else tokens_text(bounds.total_tokens_per_second, ctx.language)


@shortcode
def price_per_million_tokens(ctx: ShortcodeContext, gpu: str, model: str, precision: str, context: int | None = None,
                             users: int = 1, kv: str = "bf16") -> str:
    """The floor of what a million output tokens cost on one ``gpu`` at that load: ``≥ $0.199``."""
    bounds = _one_gpu_bounds(ctx, gpu, model, precision, context, users, kv)
    if isinstance(bounds, str):
        return bounds
    price = ctx.dataset.price(gpu)
    if price is None:
        return ctx.ui("no_offer")
    if bounds is None:
        return ctx.ui("not_published")
    return per_million_text(roofline.usd_per_million_tokens(price.usd_per_gpu_hour, bounds.total_tokens_per_second),
                            ctx.language)


@shortcode
def diffusion_memory(ctx: ShortcodeContext, model: str, precision: str) -> str:
    """The memory a diffusion model's publisher documents: ``{{ diffusion_memory model=sd-3-5-large precision=bf16 }}``."""
    models = ctx.dataset.diffusion_models
    if model not in models:
        hint = did_you_mean(model, models)
        raise ShortcodeError(f"unknown model `{model}`" + (f"; {hint}" if hint else "; use an id from data/models.yaml"))
    value = models[model].documented_memory_gb(_precision(precision, ("bf16", "fp8")))
    return ctx.ui("not_published") if value is None else formatting.memory_gb(value, ctx.locale)


@block_shortcode
def llm_requirements_table(ctx: ShortcodeContext, models: str, precision: str, context: int = 8192,
                           users: int = 1, kv: str = "bf16") -> BlockTable:
    """A table of LLMs: parameters, memory needed in ``precision`` for ``users`` sequences of
    ``context`` tokens, and the cheapest configuration to rent (the planner's first).

    ``{{ llm_requirements_table models="llama-3-1-8b,llama-3-1-70b" precision=bf16 context=8192 }}``.
    A model whose maximum context is shorter is sized at its maximum, and its cell says so; a model
    published in another format gets a row in that format too.
    """
    _precision(precision)
    _kv(kv)
    _whole_number("context", context, "8192")
    _whole_number("users", users, "10")
    ids = [model.strip() for model in models.split(",") if model.strip()]
    if not ids:
        raise ShortcodeError("`models` lists model ids separated by commas")
    rows = []
    for model in ids:
        llm = known_llm(ctx, model)
        rows.append(_requirement_row(ctx, llm, Workload(context, users, precision, kv), llm.name))
        native = llm.native_precision
        if native is not None and native.format != precision:
            label = ctx.ui("model_in_native_format", model=llm.name, format=ctx.ui(f"precision_{native.format}"))
            rows.append(_requirement_row(ctx, llm, Workload(context, users, "native", kv), label))
    shown_context = formatting.whole_number(context, ctx.locale)
    precision_name = ctx.ui(f"precision_{precision}")
    workload = ctx.ui("workload_text", users=formatting.whole_number(users, ctx.locale), count=users,
                      context=shown_context)
    headers = (ctx.ui("column_model"), ctx.ui("column_parameters"),
               ctx.ui("column_memory_needed"),  # the format and the workload: in the caption
               ctx.ui("column_recommended"))
    return BlockTable(ctx.ui("llm_requirements_caption", precision=precision_name, workload=workload),
                      headers, tuple(rows), (False, True, True, False))


def _requirement_row(ctx: ShortcodeContext, llm: LlmModel, workload: Workload, label: str) -> tuple[BlockCell, ...]:
    """One model in one format: its parameters, the memory it needs, the configuration to rent."""
    shape = model_shape(llm)
    tokens = serving.effective_context(shape, workload.context_tokens)
    weights = serving.weights_bytes(shape, workload.weights)
    kv_bytes = serving.kv_cache_bytes(shape, tokens, workload.kv_cache, workload.users)
    memory = formatting.memory_gb(memory_need_gb(weights) + memory_need_gb(kv_bytes), ctx.locale)
    if tokens < workload.context_tokens:
        memory = ctx.ui("memory_at_max_context", memory=memory, context=formatting.whole_number(tokens, ctx.locale))
    sized = Workload(tokens, workload.users, workload.weights, workload.kv_cache)
    plan = model_cheapest(llm, sized, ctx.dataset)
    if plan is not None:
        recommended = BlockCell(configuration_text(plan, ctx.dataset.gpus[plan.gpu_id], ctx.language),
                                plan_data(plan, llm, sized))
    else:  # nothing rentable holds it: the smallest fast-linked configuration of any GPU, for reference
        reference = min((p for p in model_plans(llm, sized, ctx.dataset) if p.reason == "no_offer"), key=lambda p: (p.gpu_count, p.gpu_id),
                        default=None)
        recommended = (BlockCell(ctx.ui("reference_configuration", count=reference.gpu_count,
                                        gpu=ctx.dataset.gpus[reference.gpu_id].short_name),
                                 plan_data(reference, llm, sized))
                       if reference is not None else BlockCell(ctx.ui("no_configuration")))
    return (BlockCell(label, page=("model", llm.id)), BlockCell(formatting.billions(llm.parameters, ctx.locale)),
            BlockCell(memory, (("bytes", str(math.ceil(weights + kv_bytes))),)), recommended)
