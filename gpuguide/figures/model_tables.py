"""A language model's page, its tables and lists: the memory it needs per weight format (weights,
the KV cache of each serving preset, their sums), every GPU type's configuration for each preset
(``preset_sections``, over ``plan_tables``), the cheapest configuration per format and preset and
their launch commands, the published measurements beside their bounds (``measured``), what
fine-tuning it needs, and its published figures (``facts``). Every figure from the figures library,
every word from the UI strings. The tables are ``BlockTable``s, as block shortcodes return: the
templates print them the way Markdown prints those.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from gpuguide.figures import formatting, measured, planner, serving, sizing
from gpuguide.figures.plan_tables import (
    cheapest_table,
    configuration_text,
    format_label,
    launch_command,
    memory_need_gb,
    model_cheapest,
    model_formats,
    model_plans,
    plan_data,
    plans_table,
    preset_label,
    preset_workload,
)
from gpuguide.figures.records import gpu_specs, model_shape
from gpuguide.figures.registry import BlockCell, BlockTable
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.language import Language
from gpuguide.structure.model_specs import LlmModel

#: Fine-tuning methods, in the order the pages list them.
METHODS: tuple[sizing.Method, ...] = ("full", "lora", "qlora")


def memory_up(needed: float | Fraction, language: Language) -> str:
    """Bytes as whole GB, rounded UP: a training need is never understated."""
    return formatting.memory_gb(math.ceil(needed / sizing.GB), language.locale)


def memory_gb_text(value: Decimal, language: Language) -> str:
    """A memory need already in GB (as ``memory_need_gb`` rounds it), as the language writes it."""
    return formatting.memory_gb(value, language.locale)


# --- Language models: memory ---------------------------------------------------------------------

def kv_table(llm: LlmModel, language: Language) -> BlockTable:
    """Per serving preset: the KV cache of all its sequences, in BF16 and in FP8."""
    ui, shape = language.ui, model_shape(llm)
    rows = []
    for preset in serving.PRESETS:
        cells = [BlockCell(preset_label(preset, shape, language), (("preset", preset.key),))]
        for kv in ("bf16", "fp8"):
            kv_bytes = serving.kv_cache_bytes(shape, preset.context_tokens, kv, preset.users)
            cells.append(BlockCell(memory_gb_text(memory_need_gb(kv_bytes), language),
                                   (("kv-cache", kv), ("gb", str(memory_need_gb(kv_bytes))))))
        rows.append(tuple(cells))
    per_token = serving.kv_cache_bytes(shape, 1, "bf16")
    headers = (ui("column_preset"), ui("column_kv_cache", format=ui("precision_bf16")),
               ui("column_kv_cache", format=ui("precision_fp8")))
    caption = ui("model_kv_caption", model=llm.name,
                 per_token=formatting.whole_number(per_token, language.locale))
    return BlockTable(caption, headers, tuple(rows), (False, True, True))


def memory_table(llm: LlmModel, language: Language) -> BlockTable:
    """Per weight format: the weights, then weights + the KV cache (BF16) of each preset. A total
    is the sum of the two figures shown (each rounded up to a tenth of a GB), so the table adds up."""
    ui, shape = language.ui, model_shape(llm)
    rows = []
    for weights in model_formats(llm):
        weights_gb = memory_need_gb(serving.weights_bytes(shape, weights))
        cells = [BlockCell(format_label(llm, weights, language), (("weights", serving.format_of(shape, weights)),)),
                 BlockCell(memory_gb_text(weights_gb, language), (("gb", str(weights_gb)),))]
        for preset in serving.PRESETS:
            kv_gb = memory_need_gb(serving.kv_cache_bytes(shape, preset.context_tokens, "bf16", preset.users))
            cells.append(BlockCell(memory_gb_text(weights_gb + kv_gb, language),
                                   (("gb", str(weights_gb + kv_gb)), ("preset", preset.key))))
        rows.append(tuple(cells))
    headers = (ui("column_weights_format"), ui("column_weights"),
               *(ui("column_with_preset", preset=preset_label(preset, shape, language)) for preset in serving.PRESETS))
    return BlockTable(ui("model_memory_caption", model=llm.name), headers, tuple(rows),
                      (False, True, True, True, True))


# --- Language models: serving --------------------------------------------------------------------

@dataclass(frozen=True)
class PresetSection:
    """One preset's table of every GPU type, in the model's published format, with the launch
    command of the cheapest configuration."""

    key: str
    label: str
    table: BlockTable
    cheapest: str | None  # the sentence naming it; None: nothing rentable holds the workload
    cheapest_data: tuple[tuple[str, str], ...]
    command: str | None


def preset_sections(llm: LlmModel, dataset: Dataset, language: Language) -> list[PresetSection]:
    shape, sections = model_shape(llm), []
    for preset in serving.PRESETS:
        workload = preset_workload(preset)
        label = preset_label(preset, shape, language)
        caption = language.ui("model_plans_caption", model=llm.name, preset=label,
                              format=format_label(llm, "native", language))
        found = list(model_plans(llm, workload, dataset))
        best = planner.cheapest(found)
        sentence = None
        if best is not None:
            gpu = dataset.gpus[best.gpu_id]
            sentence = language.ui("model_cheapest", model=llm.name, preset=label,
                                   configuration=configuration_text(best, gpu, language))
        sections.append(PresetSection(preset.key, label, plans_table(llm, workload, dataset, language, caption),
                                      sentence, plan_data(best, llm, workload) if best else (),
                                      launch_command(llm, workload, best, language) if best else None))
    return sections


def cheapest_per_format(llm: LlmModel, dataset: Dataset, language: Language) -> BlockTable:
    return cheapest_table(llm, dataset, language, model_formats(llm))


def cheapest_commands(llm: LlmModel, dataset: Dataset, language: Language) -> list[tuple[str, str]]:
    """The launch command of each configuration the cheapest-configuration table names, labelled
    ``FP8 · Team``: without the planner's script, every one of them still starts as it was sized."""
    shape, commands = model_shape(llm), []
    for weights in model_formats(llm):
        for preset in serving.PRESETS:
            workload = preset_workload(preset, weights)
            best = model_cheapest(llm, workload, dataset)
            if best is not None:
                label = language.ui("launch_command_for", format=format_label(llm, weights, language),
                                    preset=preset_label(preset, shape, language))
                commands.append((label, launch_command(llm, workload, best, language)))
    return commands


# --- Language models: measurements ---------------------------------------------------------------

def measurements_table(llm: LlmModel, dataset: Dataset, language: Language) -> BlockTable | None:
    """Every published measurement of the model: the system, the measured throughput, the bound for
    the same GPUs, the share of it reached, and a million tokens' cost at that speed; None without any."""
    ui, locale = language.ui, language.locale
    rows = []
    for found in measured.language_model_comparisons(dataset, model=llm.id):
        m = found.measurement
        gpu = dataset.gpus[m.gpu]
        share = found.share_of_bound
        rows.append((
            BlockCell(ui("measured_system", count=m.gpu_count, gpu=gpu.short_name), (("gpu", gpu.id),
                      ("count", str(m.gpu_count)), ("measurement", m.id)), page=("gpu", gpu.id),
                      detail=ui("measured_round", round=m.round, submitter=m.submitter.replace("_", " "))),
            BlockCell(ui(f"scenario_{m.scenario}")),
            BlockCell(ui("tokens_per_second", value=formatting.whole_number(math.floor(found.measured_tokens_per_second), locale)),
                      (("tokens-per-second", str(m.tokens_per_second)),)),
            BlockCell(ui("tokens_per_second_upper_bound", value=formatting.whole_number(
                math.floor(found.bound_tokens_per_second), locale)) if found.bound_tokens_per_second else ui("not_published"),
                      (("bound", str(float(found.bound_tokens_per_second or 0))),)),
            BlockCell(formatting.percent(math.floor(share * 1000) / 1000, locale, 1) if share is not None
                      else ui("not_published")),
            BlockCell(formatting.usd_rate(found.usd_per_million_tokens, locale) if found.usd_per_million_tokens
                      is not None else ui("no_offer")),
            BlockCell(ui("source_link"), href=m.source),
        ))
    if not rows:
        return None
    headers = (ui("column_system"), ui("column_scenario"), ui("column_measured"), ui("column_bound"),
               ui("column_share_of_bound"), ui("column_measured_per_million"), ui("column_source"))
    return BlockTable(ui("measurements_caption", model=llm.name), headers, tuple(rows),
                      (False, False, True, True, True, True, False))


def training_configuration_text(config: sizing.Configuration, dataset: Dataset, language: Language) -> str:
    """``2 × H100 SXM, dès 5,76 $US/h``, or ``1 × RTX PRO 6000 (sans offre)`` for reference."""
    gpu = dataset.gpus[config.gpu_id].model
    if config.usd_per_hour is None:
        return language.ui("reference_configuration", count=config.gpu_count, gpu=gpu)
    return language.ui("recommended_configuration", count=config.gpu_count, gpu=gpu,
                       price=formatting.usd(float(config.usd_per_hour), language.locale))


def fine_tuning_table(llm: LlmModel, dataset: Dataset, language: Language) -> BlockTable:
    """Full training, LoRA and QLoRA: memory per parameter, memory needed, the configuration to rent."""
    ui, locale = language.ui, language.locale
    specs = gpu_specs(dataset.gpus, dataset.prices)
    rows = []
    for method in METHODS:
        need = sizing.training_memory_bytes(llm.parameters, method)
        config = sizing.recommend_configuration(need, specs)
        if config is None:  # nothing rentable holds it: the smallest configuration of any GPU, marked
            reference = [found for spec in specs
                         if (found := sizing.smallest_configuration(need, spec, fast_link_only=True)) is not None]
            config = min(reference, key=lambda c: (c.gpu_count, c.gpu_id), default=None)
        per_param = sizing.TRAINING_BYTES_PER_PARAM[method]
        rows.append((
            # Bytes per parameter under the method's name: the phone keeps two figure columns in view.
            BlockCell(ui(f"method_{method}_name"), (("method", method),),
                      detail=ui("unit_bytes_per_param", value=formatting.decimal(per_param, locale), count=per_param)),
            BlockCell(memory_up(need, language), (("bytes", str(math.ceil(need))),)),
            BlockCell(training_configuration_text(config, dataset, language),
                      (("gpu", config.gpu_id), ("count", str(config.gpu_count)), ("model", llm.id), ("method", method)),
                      page=("gpu", config.gpu_id)) if config is not None else BlockCell(ui("no_configuration")),
        ))
    headers = (ui("column_method"), ui("column_memory_needed_training"), ui("column_recommended"))
    return BlockTable(ui("model_fine_tuning_caption", model=llm.name), headers, tuple(rows), (False, True, False))


def facts(llm: LlmModel, language: Language) -> list[tuple[str, str]]:
    """The model's figures as its publisher gives them: (label, text)."""
    ui, locale = language.ui, language.locale
    rows = [(ui("model_fact_developer"), llm.developer),
            (ui("model_fact_parameters"), formatting.billions(llm.parameters, locale))]
    if llm.active_parameters:
        rows.append((ui("model_fact_active_parameters"), formatting.billions(llm.active_parameters, locale)))
    rows += [(ui("model_fact_layers"), formatting.whole_number(llm.layers, locale)),
             (ui("model_fact_context"), ui("tokens", value=formatting.whole_number(llm.max_context_tokens, locale))),
             (ui("model_fact_format"), ui(f"precision_{llm.native_precision.format if llm.native_precision else 'bf16'}"))]
    return rows
