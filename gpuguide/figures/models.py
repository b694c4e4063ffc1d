"""What a model page shows, and the models' index: every figure from the figures library, every word
from the UI strings.

A language model's page: its published figures, the memory it needs per weight format (weights,
the KV cache of each serving preset, their sums), the cheapest configuration per format and
preset, every GPU type's configuration for each preset (``plan_tables``), the published
measurements beside their bounds (``measured``) and what fine-tuning it needs. An image or video
model's page: the memory its publisher documents and the GPUs that have it. The tables are
``BlockTable``s, as block shortcodes return: the templates print them the way Markdown prints those.
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
    model_formats,
    model_plans,
    plan_data,
    plans_table,
    preset_label,
    preset_workload,
)
from gpuguide.figures.records import gpu_specs, model_shape
from gpuguide.figures.registry import BlockCell, BlockTable
from gpuguide.structure.data import Dataset, DiffusionModel, Gpu, LlmModel
from gpuguide.structure.language import Language

#: Fine-tuning methods, in the order the pages list them.
METHODS: tuple[sizing.Method, ...] = ("full", "lora", "qlora")


def memory_up(needed: float | Fraction, language: Language) -> str:
    """Bytes as whole GB, rounded UP: a training need is never understated."""
    return formatting.memory_gb(math.ceil(needed / sizing.GB), language.locale)


def _gb(value: Decimal, language: Language) -> str:
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
            cells.append(BlockCell(_gb(memory_need_gb(kv_bytes), language),
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
                 BlockCell(_gb(weights_gb, language), (("gb", str(weights_gb)),))]
        for preset in serving.PRESETS:
            kv_gb = memory_need_gb(serving.kv_cache_bytes(shape, preset.context_tokens, "bf16", preset.users))
            cells.append(BlockCell(_gb(weights_gb + kv_gb, language),
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
            best = planner.cheapest(list(model_plans(llm, workload, dataset)))
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


# --- Image and video models ----------------------------------------------------------------------

def diffusion_table(diffusion: DiffusionModel, dataset: Dataset, language: Language) -> BlockTable:
    """Every GPU with the memory the publisher documents, per documented precision, cheapest first."""
    ui, locale = language.ui, language.locale
    precisions = [precision for precision in ("bf16", "fp8") if diffusion.documented_memory_gb(precision) is not None]
    rows = []
    gpus = sorted(dataset.gpus.values(), key=lambda gpu: (
        (price := dataset.price(gpu.id)) is None, price.usd_per_gpu_hour if price else 0, gpu.id))
    for gpu in gpus:
        runs = [sizing.diffusion_fits(gpu.memory_gb, diffusion.documented_memory_gb(p)) for p in precisions]
        if not any(runs):
            continue
        price = dataset.price(gpu.id)
        rows.append((
            BlockCell(gpu.model, (("gpu", gpu.id),), page=("gpu", gpu.id)),
            BlockCell(formatting.memory_gb(gpu.memory_gb, locale)),
            *(BlockCell(ui("answer_yes" if fits else "answer_no")) for fits in runs),
            BlockCell(ui("price_per_hour", price=formatting.usd(price.usd_per_gpu_hour, locale)) if price
                      else ui("no_offer")),
        ))
    headers = (ui("column_gpu"), ui("column_memory"),
               *(ui("column_runs_at", precision=ui(f"precision_{p}")) for p in precisions), ui("column_price"))
    return BlockTable(ui("diffusion_gpus_caption", model=diffusion.name), headers, tuple(rows),
                      (False, True, *(False for _ in precisions), True))


def diffusion_memory_text(diffusion: DiffusionModel, language: Language) -> list[tuple[str, str]]:
    """(precision, documented memory) for each precision the publisher documents."""
    return [(language.ui(f"precision_{precision}"), formatting.memory_gb(memory, language.locale))
            for precision in ("bf16", "fp8") if (memory := diffusion.documented_memory_gb(precision)) is not None]


def generation_table(diffusion: DiffusionModel, dataset: Dataset, language: Language) -> BlockTable | None:
    """Published throughput of an image or video model (MLPerf, Offline): images per minute or videos
    per hour per GPU, and what a thousand images (or one video) cost at this site's price; None
    without a measurement."""
    ui, locale = language.ui, language.locale
    per, scale = (("minute", 60), 1000) if diffusion.kind == "image" else (("hour", 3600), 1)
    rows = []
    found = [m for m in measured.image_measurements(dataset, model=diffusion.id)
             if m.scenario == "offline" and m.samples_per_second]
    found.sort(key=lambda m: -(sizing.exact(m.samples_per_second or 0) / m.gpu_count))
    for m in found:
        gpu = dataset.gpus[m.gpu]
        per_gpu = sizing.exact(m.samples_per_second or 0) / m.gpu_count
        price = dataset.price(gpu.id)
        cost = (sizing.exact(price.usd_per_gpu_hour) / (per_gpu * 3600) * scale) if price else None
        rows.append((
            BlockCell(ui("measured_system", count=m.gpu_count, gpu=gpu.short_name),
                      (("gpu", gpu.id), ("count", str(m.gpu_count)), ("measurement", m.id)), page=("gpu", gpu.id),
                      detail=ui("measured_round", round=m.round, submitter=m.submitter.replace("_", " "))),
            BlockCell(formatting.decimal(formatting.significant(per_gpu * per[1], 3, "ROUND_HALF_EVEN"), locale),
                      (("samples-per-second", str(m.samples_per_second)),)),
            BlockCell(formatting.usd_rate(cost, locale) if cost is not None else ui("no_offer")),
            BlockCell(ui("source_link"), href=m.source),
        ))
    if not rows:
        return None
    headers = (ui("column_system"), ui(f"column_{diffusion.kind}s_per_{per[0]}_per_gpu"),
               ui(f"column_cost_per_{diffusion.kind}_unit"), ui("column_source"))
    return BlockTable(ui("generation_caption", model=diffusion.name), headers, tuple(rows), (False, True, True, False))


# --- What a GPU runs -----------------------------------------------------------------------------

def diffusion_on_gpu(gpu: Gpu, dataset: Dataset) -> list[DiffusionModel]:
    """The image and video models whose documented memory (at any documented precision) this GPU has."""
    return [model for model in dataset.diffusion_models.values()
            if any(sizing.diffusion_fits(gpu.memory_gb, model.documented_memory_gb(p)) for p in ("bf16", "fp8"))]


# --- The models' index ---------------------------------------------------------------------------

@dataclass(frozen=True)
class IndexRow:
    """A language model in the index: what it is, what it needs in its published format, what to rent."""

    model_id: str
    name: str
    developer: str
    parameters: str
    parameters_count: int
    published_format: str
    memory: str
    memory_gb: Decimal
    rental: str


def usable_share_text(language: Language) -> str:
    return formatting.percent(float(sizing.USABLE_MEMORY_SHARE), language.locale)


def llm_index(dataset: Dataset, language: Language) -> list[IndexRow]:
    """Every language model in its published format: parameters, memory for the chat preset (its
    weights and KV cache), the cheapest rental for it; smallest first."""
    rows = []
    chat = serving.preset("chat")
    for llm in dataset.llm_models.values():
        shape = model_shape(llm)
        workload = preset_workload(chat)
        need = memory_need_gb(serving.weights_bytes(shape, "native")) + memory_need_gb(
            serving.kv_cache_bytes(shape, chat.context_tokens, "bf16", chat.users))
        best = planner.cheapest(list(model_plans(llm, workload, dataset)))
        rental = (configuration_text(best, dataset.gpus[best.gpu_id], language) if best
                  else language.ui("no_configuration"))
        memory = _gb(need, language)
        context = serving.effective_context(shape, chat.context_tokens)
        if context < chat.context_tokens:
            memory = language.ui("memory_at_max_context", memory=memory,
                                 context=formatting.whole_number(context, language.locale))
        rows.append(IndexRow(llm.id, llm.name, llm.developer, formatting.billions(llm.parameters, language.locale),
                             llm.parameters, language.ui(f"precision_{serving.format_of(shape, 'native')}"),
                             memory, need, rental))
    return sorted(rows, key=lambda row: (row.parameters_count, row.name))
