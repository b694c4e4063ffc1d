"""The methodology page's tables: every constant of the training and serving models with its source,
the weight formats, each published figure against this site's, and each measurement against its
bound. Block shortcodes (``{{ sizing_constants }}``…), registered in ``registry``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from gpuguide.errors import did_you_mean
from gpuguide.figures import engine_budget, formatting, measured, serving, sizing
from gpuguide.figures.diffusion_figures import generation_table
from gpuguide.figures.engine_budget import GIB, ServingGpu
from gpuguide.figures.plan_tables import memory_need_gb, memory_text
from gpuguide.figures.records import model_shape
from gpuguide.figures.registry import (BlockCell, BlockTable, ShortcodeContext, ShortcodeError, block_shortcode,
                                       known_llm)
from gpuguide.figures.serving import ModelShape, Workload


def _constant_value(constant: sizing.Constant, ctx: ShortcodeContext) -> str:
    if constant.unit == "rule":
        return ctx.ui(f"constant_{constant.key}_value")
    if constant.unit == "share":
        return formatting.percent(float(constant.value), ctx.locale)
    return ctx.ui(f"unit_{constant.unit}", value=formatting.decimal(constant.value, ctx.locale),
                  count=constant.value)


def _constants_table(constants: tuple[sizing.Constant, ...], caption: str, ctx: ShortcodeContext) -> BlockTable:
    rows = tuple(
        (BlockCell(ctx.ui(f"constant_{constant.key}")), BlockCell(_constant_value(constant, ctx)),
         BlockCell(constant.source_title or "", href=constant.source) if constant.source
         else BlockCell(ctx.ui("rule_of_this_site")))
        for constant in constants)
    return BlockTable(caption, (ctx.ui("constants_column_name"), ctx.ui("constants_column_value"),
                                ctx.ui("column_source")), rows, (False, True, False))


@block_shortcode
def sizing_constants(ctx: ShortcodeContext) -> BlockTable:
    """Every constant of the training memory model, its value and its source: ``{{ sizing_constants }}``."""
    return _constants_table(sizing.CONSTANTS, ctx.ui("constants_caption"), ctx)


@block_shortcode
def serving_constants(ctx: ShortcodeContext) -> BlockTable:
    """Every constant of the serving model, its value and its source: ``{{ serving_constants }}``."""
    return _constants_table(engine_budget.CONSTANTS, ctx.ui("serving_constants_caption"), ctx)


@block_shortcode
def weight_formats(ctx: ShortcodeContext) -> BlockTable:
    """Each weight format: bits per weight with its scales, what stays in 16 bits, its tensor path."""
    rows = []
    for fmt in serving.FORMATS.values():
        rows.append((
            BlockCell(ctx.ui(f"precision_{fmt.key}"), (("format", fmt.key),)),
            BlockCell(ctx.ui("unit_bits", value=formatting.decimal(fmt.bits_per_weight, ctx.locale),
                             count=fmt.bits_per_weight)),
            BlockCell(ctx.ui(f"format_kept_{fmt.key}")),
            BlockCell(ctx.ui(f"precision_{fmt.compute}")),
            BlockCell(fmt.source_title, href=fmt.source),
        ))
    headers = (ctx.ui("column_weights_format"), ctx.ui("column_bits_per_weight"), ctx.ui("column_kept_16_bits"),
               ctx.ui("column_tensor_path"), ctx.ui("column_source"))
    return BlockTable(ctx.ui("formats_caption"), headers, tuple(rows), (False, True, False, False, False))


@block_shortcode
def measured_against_bounds(ctx: ShortcodeContext) -> BlockTable:
    """Each published Offline measurement against the bound computed for it: ``{{ measured_against_bounds }}``."""
    ui, locale = ctx.ui, ctx.locale
    rows = []
    for found in measured.language_model_comparisons(ctx.dataset):
        m = found.measurement
        if m.scenario != "offline":
            continue
        gpu = ctx.dataset.gpus[m.gpu]
        llm = ctx.dataset.llm_models[found.benchmark.model]
        share = found.share_of_bound
        rows.append((
            BlockCell(llm.name, (("model", llm.id), ("measurement", m.id)), page=("model", llm.id)),
            BlockCell(ui("measured_system", count=m.gpu_count, gpu=gpu.short_name), page=("gpu", gpu.id),
                      detail=ui("measured_round", round=m.round, submitter=m.submitter.replace("_", " "))),
            BlockCell(ui(f"precision_{found.weights}")),
            BlockCell(ui("tokens_per_second", value=formatting.whole_number(math.floor(found.measured_tokens_per_second), locale))),
            BlockCell(ui("tokens_per_second_upper_bound", value=formatting.whole_number(
                math.floor(found.bound_tokens_per_second), locale)) if found.bound_tokens_per_second else ui("not_published")),
            BlockCell(formatting.percent(math.floor(share * 1000) / 1000, locale, 1) if share is not None
                      else ui("not_published")),
            BlockCell(ui("source_link"), href=m.source),
        ))
    headers = (ui("column_model"), ui("column_system"), ui("column_bound_format"), ui("column_measured"),
               ui("column_bound"), ui("column_share_of_bound"), ui("column_source"))
    return BlockTable(ui("measured_against_bounds_caption"), headers, tuple(rows),
                      (False, False, False, True, True, True, False))


# --- Published figures ---------------------------------------------------------------------------

def _difference(ours: Fraction, published: Fraction, ctx: ShortcodeContext) -> str:
    """``identique`` / ``+10 % : plus prudent`` / ``−0,2 %``, ours against the published figure."""
    change = ours / published - 1
    if change == 0:
        return ctx.ui("ratio_same")
    shown = formatting.signed_percent(float(change), ctx.locale)
    return ctx.ui("anchor_more_conservative", difference=shown) if change > 0 else shown


def _training_verdict(need: Fraction, memory_gb: Any, ctx: ShortcodeContext) -> tuple[str, str]:
    """A "trains on" claim: the share of one GPU's memory needed, and whether the 80 % budget holds it."""
    share = need / (sizing.exact(memory_gb) * sizing.GB)
    shown = formatting.percent(math.ceil(share * 1000) / 1000, ctx.locale, digits=1)
    ours = ctx.ui("anchor_site_share", memory=formatting.memory_gb(math.ceil(need / sizing.GB), ctx.locale), share=shown)
    budget = formatting.percent(float(sizing.USABLE_MEMORY_SHARE), ctx.locale)
    verdict = ctx.ui("anchor_within_budget" if share <= sizing.USABLE_MEMORY_SHARE else "anchor_beyond_budget",
                     budget=budget)
    return ours, verdict


def _serving_verdict(shape: ModelShape, workload: Workload, memory_gb: Any, gpus: int,
                     ctx: ShortcodeContext) -> tuple[str, str]:
    """A "serves on" claim: what each GPU holds, against the serving budget of such a GPU."""
    spec = ServingGpu("claim", memory_gb)
    need = engine_budget.memory_per_gpu_bytes(shape, workload, gpus)
    share = need / spec.runtime_memory_bytes
    shown = formatting.percent(math.ceil(share * 1000) / 1000, ctx.locale, digits=1)
    ours = ctx.ui("anchor_site_share", memory=memory_text(need, ctx.language), share=shown)
    fits = need <= spec.engine_budget_bytes
    return ours, ctx.ui("anchor_fits_engine" if fits else "anchor_beyond_engine")


def _format_key(llm: Any, precision: str) -> str:
    return serving.format_of(model_shape(llm), precision)


def anchor_row(anchor: Any, ctx: ShortcodeContext) -> tuple[BlockCell, ...]:
    """One published figure against this site's: (source, what it says, what we compute, difference)."""
    ui, locale = ctx.ui, ctx.locale
    if anchor.claim == "training_memory":
        published = sizing.exact(anchor.published_gb) * sizing.GB
        ours_bytes = sizing.training_memory_bytes(anchor.parameters, anchor.method)
        said = ui("anchor_training_memory", memory=formatting.memory_gb(anchor.published_gb, locale),
                  params=formatting.billions(anchor.parameters, locale), method=ui(f"method_{anchor.method}"))
        ours = formatting.memory_gb(math.ceil(ours_bytes / sizing.GB), locale)
        verdict = _difference(Fraction(ours_bytes), published, ctx)
    elif anchor.claim == "trains_on":
        need = sizing.training_memory_bytes(anchor.parameters, anchor.method)
        said = ui("anchor_trains_on", params=formatting.billions(anchor.parameters, locale),
                  method=ui(f"method_{anchor.method}"), memory=formatting.memory_gb(anchor.gpu_memory_gb, locale))
        ours, verdict = _training_verdict(Fraction(need), anchor.gpu_memory_gb, ctx)
    elif anchor.claim == "serves_on":
        llm = ctx.dataset.llm_models[anchor.model]
        chat = serving.preset("chat")
        workload = Workload(chat.context_tokens, chat.users, anchor.precision)
        said = ui("anchor_serves_on", model=llm.name, precision=ui(f"precision_{_format_key(llm, anchor.precision)}"),
                  count=anchor.gpus, memory=formatting.memory_gb(anchor.gpu_memory_gb, locale))
        ours, verdict = _serving_verdict(model_shape(llm), workload, anchor.gpu_memory_gb, anchor.gpus, ctx)
        ours = ui("anchor_with_context", figure=ours, context=formatting.whole_number(
            serving.effective_context(model_shape(llm), chat.context_tokens), locale))
    elif anchor.claim == "kv_cache":
        shape = ModelShape(0, anchor.layers, anchor.kv_heads, anchor.head_dim, anchor.context_tokens)
        kv = serving.kv_cache_bytes(shape, anchor.context_tokens)
        said = ui("anchor_kv_cache", bytes=formatting.whole_number(anchor.published_bytes, locale),
                  tokens=formatting.whole_number(anchor.context_tokens, locale))
        ours = ui("unit_bytes_total", value=formatting.whole_number(kv, locale))
        verdict = _difference(Fraction(kv), Fraction(anchor.published_bytes), ctx)
    else:  # weights and checkpoints, in the unit the source uses
        llm = ctx.dataset.llm_models[anchor.model]
        weights = serving.weights_bytes(model_shape(llm), anchor.precision)
        if anchor.published_gib is not None:
            size = ui("unit_gib", value=formatting.decimal(anchor.published_gib, locale))
            ours = ui("unit_gib", value=formatting.decimal(math.floor(weights * 100 / GIB) / 100, locale))
            verdict = _difference(weights / GIB, sizing.exact(anchor.published_gib), ctx)
        elif anchor.published_bytes is not None:
            size = ui("unit_bytes_total", value=formatting.whole_number(anchor.published_bytes, locale))
            ours = ui("unit_bytes_total", value=formatting.whole_number(math.ceil(weights), locale))
            verdict = _difference(Fraction(weights), Fraction(anchor.published_bytes), ctx)
        else:
            size = formatting.memory_gb(anchor.published_gb, locale)
            ours = formatting.memory_gb(memory_need_gb(weights), locale)
            verdict = _difference(weights / sizing.GB, sizing.exact(anchor.published_gb), ctx)
        key = "anchor_checkpoint" if anchor.claim == "checkpoint" else "anchor_weights"
        said = ui(key, model=llm.name, size=size, precision=ui(f"precision_{_format_key(llm, anchor.precision)}"),
                  repository=anchor.repository or "")
    return (BlockCell(anchor.reference, href=anchor.source), BlockCell(said), BlockCell(ours), BlockCell(verdict))


@block_shortcode
def published_anchors(ctx: ShortcodeContext) -> BlockTable:
    """Each published figure of ``data/anchors.yaml`` against what this site computes: ``{{ published_anchors }}``."""
    return BlockTable(ctx.ui("anchors_caption"),
                      (ctx.ui("column_source"), ctx.ui("anchors_column_published"), ctx.ui("anchors_column_site"),
                       ctx.ui("anchors_column_difference")),
                      tuple(anchor_row(anchor, ctx) for anchor in ctx.dataset.anchors))


@block_shortcode
def measured_results(ctx: ShortcodeContext, model: str, scenario: str = "offline") -> BlockTable:
    """The published results for ``model`` in ``scenario``, cheapest per million tokens first, each
    with its bound: ``{{ measured_results model=llama-2-70b }}``."""
    llm = known_llm(ctx, model)
    if scenario not in ("offline", "server", "interactive"):
        raise ShortcodeError(f"unknown scenario `{scenario}`; use offline, server or interactive")
    ui, locale = ctx.ui, ctx.locale
    found = [c for c in measured.language_model_comparisons(ctx.dataset, model=llm.id)
             if c.measurement.scenario == scenario]
    found.sort(key=lambda c: (c.usd_per_million_tokens is None, c.usd_per_million_tokens or 0, c.measurement.id))
    rows = []
    for c in found:
        m, gpu = c.measurement, ctx.dataset.gpus[c.measurement.gpu]
        price = ctx.dataset.price(gpu.id)
        share = c.share_of_bound
        rows.append((
            BlockCell(ui("measured_system", count=m.gpu_count, gpu=gpu.short_name), (("gpu", gpu.id),
                      ("count", str(m.gpu_count)), ("measurement", m.id)), page=("gpu", gpu.id),
                      detail=ui("measured_round", round=m.round, submitter=m.submitter.replace("_", " "))),
            BlockCell(ui(f"precision_{c.weights}")),
            BlockCell(ui("tokens_per_second", value=formatting.whole_number(math.floor(c.measured_tokens_per_second), locale))),
            BlockCell(ui("tokens_per_second_upper_bound", value=formatting.whole_number(
                math.floor(c.bound_tokens_per_second), locale)) if c.bound_tokens_per_second else ui("not_published")),
            BlockCell(formatting.percent(math.floor(share * 1000) / 1000, locale, 1) if share is not None
                      else ui("not_published")),
            BlockCell(ui("price_per_hour", price=formatting.usd(sizing.exact(price.usd_per_gpu_hour) * m.gpu_count, locale))
                      if price else ui("no_offer")),
            BlockCell(formatting.usd_rate(c.usd_per_million_tokens, locale) if c.usd_per_million_tokens is not None
                      else ui("no_offer"), (("usd-per-million", str(float(c.usd_per_million_tokens or 0))),)),
            BlockCell(ui("source_link"), href=m.source),
        ))
    headers = (ui("column_system"), ui("column_bound_format"), ui("column_measured"), ui("column_bound"),
               ui("column_share_of_bound"), ui("column_price"), ui("column_measured_per_million"), ui("column_source"))
    return BlockTable(ui("measured_results_caption", model=llm.name, scenario=ui(f"scenario_{scenario}")), headers,
                      tuple(rows), (False, False, True, True, True, True, True, False))


@block_shortcode
def measured_generation(ctx: ShortcodeContext, model: str) -> BlockTable:
    """An image or video model's published throughput per GPU and its cost: ``{{ measured_generation model=sdxl }}``."""
    models = ctx.dataset.diffusion_models
    if model not in models:
        hint = did_you_mean(model, models)
        raise ShortcodeError(f"unknown model `{model}`" + (f"; {hint}" if hint else "; use an image or video model of data/models.yaml"))
    table = generation_table(models[model], ctx.dataset, ctx.language)
    if table is None:
        raise ShortcodeError(f"data/measurements.yaml has no Offline result for `{model}`")
    return table
