"""What a model page shows, and the models' index: every figure from the figures library, every word
from the UI strings.

A language model's page: an intro computed from what sets the model apart (``intro``), its
published figures, the memory it needs per weight format (weights, the KV cache of each serving
preset, their sums), the cheapest configuration per format and preset, every GPU type's
configuration for each preset (``plan_tables``), the published measurements beside their bounds
(``measured``), what fine-tuning it needs, and how it differs from the models of its family or of
its layers and KV cache (``relatives``). An image or video model's page: the memory its publisher
documents, or else its weights estimated from its parameter count, and the GPUs that have it. The
index groups the language models by size (``llm_index_groups``). The tables are ``BlockTable``s, as
block shortcodes return: the templates print them the way Markdown prints those.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from babel.dates import format_date
from babel.lists import format_list

from gpuguide.figures import formatting, measured, planner, serving, sizing
from gpuguide.figures.plan_tables import (
    cheapest_table,
    configuration_text,
    format_label,
    launch_command,
    memory_need_gb,
    memory_text,
    model_formats,
    model_plans,
    plan_data,
    plans_table,
    preset_label,
    preset_workload,
)
from gpuguide.figures.planner import Plan
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


# --- Language models: what sets one apart --------------------------------------------------------

#: The models' index groups language models by total parameters, between these bounds (a bound
#: belongs to the group below it): up to 10B, 10B to 40B, 40B to 100B, over 100B.
SIZE_BOUNDS: tuple[int, ...] = (10 * 10**9, 40 * 10**9, 100 * 10**9)


def size_group(parameters: int) -> int:
    """The index group of a model of ``parameters`` in total: 0 for the smallest.

    >>> [size_group(n) for n in (8_030_261_248, 10**10, 32_762_123_264, 70_553_706_496, 671 * 10**9)]
    [0, 0, 1, 2, 3]
    """
    return sum(parameters > bound for bound in SIZE_BOUNDS)


def size_group_key(group: int) -> str:
    """The group's id in pages: ``up-to-10b``, ``10b-to-40b``, ``over-100b``.

    >>> [size_group_key(group) for group in range(len(SIZE_BOUNDS) + 1)]
    ['up-to-10b', '10b-to-40b', '40b-to-100b', 'over-100b']
    """
    bounds = [f"{bound // 10**9}b" for bound in SIZE_BOUNDS]
    if group == 0:
        return f"up-to-{bounds[0]}"
    return f"over-{bounds[-1]}" if group == len(bounds) else f"{bounds[group - 1]}-to-{bounds[group]}"


#: Every size group's id in pages, smallest first.
SIZE_GROUP_KEYS: tuple[str, ...] = tuple(size_group_key(group) for group in range(len(SIZE_BOUNDS) + 1))


def size_group_label(group: int, language: Language, prefix: str = "size_group") -> str:
    """``10B to 40B`` / ``de 10 Md à 40 Md``, as a sentence names the group; with ``prefix``
    ``models_group``, the index's heading: ``10B to 40B parameters``."""
    def text(bound: int) -> str:
        return formatting.billions(bound, language.locale)
    if group == 0:
        return language.ui(f"{prefix}_up_to", upper=text(SIZE_BOUNDS[0]))
    if group == len(SIZE_BOUNDS):
        return language.ui(f"{prefix}_over", lower=text(SIZE_BOUNDS[-1]))
    return language.ui(f"{prefix}_between", lower=text(SIZE_BOUNDS[group - 1]), upper=text(SIZE_BOUNDS[group]))


def same_layers_and_kv_cache(a: LlmModel, b: LlmModel) -> bool:
    """The same layers and width, the same KV cache per token (key/value heads, head size, latent or
    windowed attention), both dense or both mixtures of experts: the same KV cache for every
    workload, and weights that differ only by the vocabulary, the query heads and the experts."""
    def key(llm: LlmModel) -> tuple[object, ...]:
        return (llm.layers, llm.hidden_size, llm.kv_heads, llm.head_dim, llm.kv_compressed_dim,
                llm.window_tokens, llm.window_layers, llm.active_parameters is None)
    return key(a) == key(b)


def same_figures(a: LlmModel, b: LlmModel) -> bool:
    """Every figure the memory model computes is the same for both (their shapes are equal): the
    weights, the KV cache, every configuration; only names, sources and measurements may differ."""
    return model_shape(a) == model_shape(b)


@dataclass(frozen=True)
class Relative:
    """A model of the same family or of the same layers and KV cache, with what it changes."""

    model: LlmModel
    relation: str  # "famille Qwen3", "same layers and KV cache"…
    differences: tuple[str, ...]  # each a phrase; one that says so when none differs


def related_models(llm: LlmModel, dataset: Dataset) -> list[LlmModel]:
    """The other language models of its family or of the same layers and KV cache, smallest first
    (then by name), the order of the models' index."""
    found = [other for other in dataset.llm_models.values() if other.id != llm.id and (
        (llm.family is not None and other.family == llm.family) or same_layers_and_kv_cache(llm, other))]
    return sorted(found, key=lambda other: (other.parameters, other.name))


@dataclass(frozen=True)
class ChatNeed:
    """What the chat preset takes of a model in its published format: memory, and what to rent."""

    context_tokens: int  # the preset's context, or the model's maximum if shorter
    memory_gb: Decimal  # weights + KV cache, each rounded up to a tenth of a GB
    plan: Plan | None  # the cheapest rentable configuration; None: none holds it


def chat_need(llm: LlmModel, dataset: Dataset) -> ChatNeed:
    """The chat preset in the published format: the index's memory column and the pages' comparisons."""
    shape, chat = model_shape(llm), serving.preset("chat")
    memory = memory_need_gb(serving.weights_bytes(shape, "native")) + memory_need_gb(
        serving.kv_cache_bytes(shape, chat.context_tokens, "bf16", chat.users))
    best = planner.cheapest(list(model_plans(llm, preset_workload(chat), dataset)))
    return ChatNeed(serving.effective_context(shape, chat.context_tokens), memory, best)


def _rental_short(plan: Plan | None, dataset: Dataset, language: Language) -> str:
    """``2 × A100 SXM at $3.58/h``, or that nothing rentable holds it."""
    if plan is None or plan.usd_per_hour is None:
        return language.ui("rental_none_short")
    return language.ui("rental_short", count=plan.gpu_count, gpu=dataset.gpus[plan.gpu_id].short_name,
                       price=formatting.usd(plan.usd_per_hour, language.locale))


def _measured_count(llm: LlmModel, dataset: Dataset) -> int:
    return len(measured.language_model_comparisons(dataset, model=llm.id))


def differences(llm: LlmModel, other: LlmModel, dataset: Dataset, language: Language) -> tuple[str, ...]:
    """What ``other`` changes against ``llm``, fact by fact, each phrase naming both values; only the
    facts that differ (the licence and the release date where both are on record)."""
    ui, locale = language.ui, language.locale
    found = []
    billions = formatting.billions
    if other.parameters != llm.parameters:
        theirs, ours = billions(other.parameters, locale), billions(llm.parameters, locale)
        if theirs == ours:  # "32.8B instead of 32.8B" says nothing: the exact counts do
            found.append(ui("difference_parameters_exact", theirs=formatting.whole_number(other.parameters, locale),
                            ours=formatting.whole_number(llm.parameters, locale)))
        else:
            found.append(ui("difference_parameters", theirs=theirs, ours=ours))
    if other.active_parameters and not llm.active_parameters:
        found.append(ui("difference_moe", active=billions(other.active_parameters, locale)))
    elif llm.active_parameters and not other.active_parameters:
        found.append(ui("difference_dense", active=billions(llm.active_parameters, locale)))
    elif other.active_parameters and llm.active_parameters and other.active_parameters != llm.active_parameters:
        found.append(ui("difference_active", theirs=billions(other.active_parameters, locale),
                        ours=billions(llm.active_parameters, locale)))
    if same_layers_and_kv_cache(llm, other):  # then these details are what changes the parameter count
        if other.attention_heads != llm.attention_heads:
            found.append(ui("difference_attention_heads", theirs=formatting.whole_number(other.attention_heads, locale),
                            ours=formatting.whole_number(llm.attention_heads, locale)))
        if other.vocab_size != llm.vocab_size:
            found.append(ui("difference_vocabulary", theirs=formatting.whole_number(other.vocab_size, locale),
                            ours=formatting.whole_number(llm.vocab_size, locale)))
    if other.max_context_tokens != llm.max_context_tokens:
        found.append(ui("difference_context", theirs=formatting.whole_number(other.max_context_tokens, locale),
                        ours=formatting.whole_number(llm.max_context_tokens, locale)))
    ours_shape, theirs_shape = model_shape(llm), model_shape(other)
    ours_format, theirs_format = serving.format_of(ours_shape, "native"), serving.format_of(theirs_shape, "native")
    if ours_format != theirs_format:
        found.append(ui("difference_format", theirs=ui(f"precision_{theirs_format}"),
                        ours=ui(f"precision_{ours_format}")))
    ours_kv, theirs_kv = serving.kv_cache_bytes(ours_shape, 1, "bf16"), serving.kv_cache_bytes(theirs_shape, 1, "bf16")
    if ours_kv != theirs_kv:
        found.append(ui("difference_kv_cache", theirs=formatting.whole_number(theirs_kv, locale),
                        ours=formatting.whole_number(ours_kv, locale)))
    if llm.license and other.license and llm.license != other.license:
        found.append(ui("difference_license", theirs=other.license, ours=llm.license))
    if llm.release_date and other.release_date and llm.release_date != other.release_date:
        found.append(ui("difference_release", theirs=format_date(other.release_date, format="long", locale=locale),
                        ours=format_date(llm.release_date, format="long", locale=locale)))
    ours_chat, theirs_chat = chat_need(llm, dataset), chat_need(other, dataset)
    if ours_chat.memory_gb != theirs_chat.memory_gb:
        found.append(ui("difference_chat_memory", theirs=_gb(theirs_chat.memory_gb, language),
                        ours=_gb(ours_chat.memory_gb, language)))
    ours_rental = _rental_short(ours_chat.plan, dataset, language)
    theirs_rental = _rental_short(theirs_chat.plan, dataset, language)
    if ours_rental != theirs_rental:
        found.append(ui("difference_rental", theirs=theirs_rental, ours=ours_rental))
    ours_measured, theirs_measured = _measured_count(llm, dataset), _measured_count(other, dataset)
    if ours_measured != theirs_measured:
        key = ("difference_measured_none_here" if not ours_measured else
               "difference_measured_none_there" if not theirs_measured else "difference_measured")
        found.append(ui(key, count=theirs_measured if theirs_measured else ours_measured,
                        theirs=formatting.whole_number(theirs_measured, locale),
                        ours=formatting.whole_number(ours_measured, locale)))
    if same_figures(llm, other):  # then only the licence, the date or the measurements can differ
        found.insert(0, ui("difference_same_figures"))
    elif not found:
        found.append(ui("difference_same_chat"))
    return tuple(found)


def relatives(llm: LlmModel, dataset: Dataset, language: Language) -> list[Relative]:
    """``related_models`` with how each is related and what it changes: the "how it differs" section."""
    ui, found = language.ui, []
    for other in related_models(llm, dataset):
        family = llm.family is not None and other.family == llm.family
        architecture = same_layers_and_kv_cache(llm, other)
        relation = (ui("relation_family_and_architecture", family=llm.family) if family and architecture
                    else ui("relation_family", family=llm.family) if family else ui("relation_architecture"))
        found.append(Relative(other, relation, differences(llm, other, dataset, language)))
    return found


def _cheapest_plan(llm: LlmModel, dataset: Dataset, preset_key: str, weights: str = "native") -> Plan | None:
    return planner.cheapest(list(model_plans(llm, preset_workload(serving.preset(preset_key), weights), dataset)))


def intro(llm: LlmModel, dataset: Dataset, language: Language) -> list[list[str]]:
    """The page's opening paragraphs, from what sets the model apart: what it is (dense or mixture of
    experts, its size group, its published format, its context and attention, the KV cache of a full
    context), then what it takes (a chat's memory, rental and speed, the quantized formats' rentals,
    a team's), and the models every figure of the page also holds for."""
    ui, locale, shape = language.ui, language.locale, model_shape(llm)
    billions, number = formatting.billions, formatting.whole_number
    group = size_group_label(size_group(llm.parameters), language)
    if llm.active_parameters:
        what = [ui("model_intro_moe", model=llm.name, developer=llm.developer, group=group,
                   parameters=billions(llm.parameters, locale), active=billions(llm.active_parameters, locale))]
    else:
        what = [ui("model_intro_dense", model=llm.name, developer=llm.developer, group=group,
                   parameters=billions(llm.parameters, locale))]
    weights = {key: memory_need_gb(serving.weights_bytes(shape, key)) for key in ("native", "bf16", "fp8", "int4")}
    native = serving.format_of(shape, "native")
    if native == "bf16":
        what.append(ui("model_intro_bf16", bf16=_gb(weights["bf16"], language), fp8=_gb(weights["fp8"], language),
                       int4=_gb(weights["int4"], language)))
    else:
        share = serving.weights_bytes(shape, "native") / serving.weights_bytes(shape, "bf16")
        what.append(ui("model_intro_native", format=ui(f"precision_{native}"), native=_gb(weights["native"], language),
                       bf16=_gb(weights["bf16"], language), share=formatting.percent(float(share), locale)))
    longest = max(preset.context_tokens for preset in serving.PRESETS)
    what.append(ui("model_intro_context_short" if llm.max_context_tokens < longest else "model_intro_context",
                   context=number(llm.max_context_tokens, locale)))
    per_token = number(serving.kv_cache_bytes(shape, 1, "bf16"), locale)
    if llm.kv_compressed_dim:
        full = 2 * llm.kv_heads * llm.head_dim
        what.append(ui("model_intro_latent", bytes=per_token, kv_heads=number(llm.kv_heads, locale),
                       ratio=formatting.ratio(full / llm.kv_compressed_dim, locale)))
    elif llm.window_tokens and llm.window_layers:
        whole = llm.layers - llm.window_layers
        what.append(ui("model_intro_window", window_layers=number(llm.window_layers, locale),
                       layers=number(llm.layers, locale), window=number(llm.window_tokens, locale),
                       whole=number(whole, locale), count=whole))
    elif llm.kv_heads == llm.attention_heads:
        what.append(ui("model_intro_mha", heads=number(llm.attention_heads, locale), bytes=per_token))
    else:
        what.append(ui("model_intro_gqa", heads=number(llm.attention_heads, locale),
                       kv_heads=number(llm.kv_heads, locale), bytes=per_token))
    full_kv = serving.kv_cache_bytes(shape, llm.max_context_tokens, "bf16")
    share = full_kv / serving.weights_bytes(shape, "native")
    if share < Fraction(1, 100):
        what.append(ui("model_intro_full_context_little", kv=memory_text(full_kv, language),
                       share=formatting.percent(0.01, locale)))
    elif share < 1:
        what.append(ui("model_intro_full_context_share", kv=memory_text(full_kv, language),
                       share=formatting.percent(float(share), locale, 0 if share >= Fraction(1, 10) else 1)))
    else:
        what.append(ui("model_intro_full_context_times", kv=memory_text(full_kv, language),
                       ratio=formatting.ratio(float(share), locale)))

    takes = []
    need = chat_need(llm, dataset)
    memory = _gb(need.memory_gb, language)
    if need.plan is not None:
        takes.append(ui("model_intro_chat", context=number(need.context_tokens, locale), memory=memory,
                        configuration=configuration_text(need.plan, dataset.gpus[need.plan.gpu_id], language)))
        if need.plan.bounds is not None:
            takes.append(ui("model_intro_chat_speed", speed=language.ui("tokens_per_second", value=number(
                math.floor(need.plan.bounds.user_tokens_per_second), locale))))
    else:
        takes.append(ui("model_intro_chat_none", context=number(need.context_tokens, locale), memory=memory))
    smaller = [key for key in model_formats(llm) if serving.format_of(shape, key) != native
               and serving.weights_bytes(shape, key) < serving.weights_bytes(shape, "native")]
    rentals, same = [], []
    for key in smaller:  # what quantizing saves on a chat's rental
        plan = _cheapest_plan(llm, dataset, "chat", key)
        if plan is None or plan.usd_per_hour is None:
            continue
        label = format_label(llm, key, language)
        if need.plan is None or need.plan.usd_per_hour is None or plan.usd_per_hour < need.plan.usd_per_hour:
            rentals.append(ui("format_rental", format=label, rental=_rental_short(plan, dataset, language)))
        else:
            same.append(label)
    if rentals:
        takes.append(ui("model_intro_quantized", rentals=format_list(rentals, locale=locale)))
    elif same:
        takes.append(ui("model_intro_quantized_same", formats=format_list(same, style="or", locale=locale)))
    team = serving.preset("team")
    team_context = serving.effective_context(shape, team.context_tokens)
    team_memory = _gb(memory_need_gb(serving.weights_bytes(shape, "native")) + memory_need_gb(
        serving.kv_cache_bytes(shape, team.context_tokens, "bf16", team.users)), language)
    team_plan = _cheapest_plan(llm, dataset, "team")
    values = {"users": number(team.users, locale), "count": team.users, "context": number(team_context, locale),
              "memory": team_memory}
    if team_plan is not None:
        takes.append(ui("model_intro_team", rental=_rental_short(team_plan, dataset, language), **values))
    else:
        takes.append(ui("model_intro_team_none", **values))
    related = related_models(llm, dataset)
    twins = [other.name for other in related if same_figures(llm, other)]
    if twins:
        takes.append(ui("model_intro_same_figures", models=format_list(twins, locale=locale), count=len(twins)))
    return [what, takes, _standing(llm, related, dataset, language)]


def _standing(llm: LlmModel, related: list[LlmModel], dataset: Dataset, language: Language) -> list[str]:
    """Where the model stands among the others: its family on this site, and what MLPerf measured
    of it (or of a model of the same layers and KV cache, where it has no result of its own)."""
    ui, locale = language.ui, language.locale
    sentences = []
    family = [other for other in related if llm.family is not None and other.family == llm.family]
    if family:
        smallest, largest = family[0], family[-1]  # related_models sorts by size
        sentences.append(ui("model_intro_family", family=llm.family, count=len(family), model_name=smallest.name,
                            smallest=formatting.billions(smallest.parameters, locale),
                            largest=formatting.billions(largest.parameters, locale)))
    results = measured.language_model_comparisons(dataset, model=llm.id)
    if results:
        best = max(results, key=lambda found: (found.per_gpu_tokens_per_second, found.measurement.id))
        m = best.measurement
        share = best.share_of_bound
        sentences.append(ui("model_intro_measured", count=len(results),
                            results=formatting.whole_number(len(results), locale),
                            system=ui("measured_system", count=m.gpu_count, gpu=dataset.gpus[m.gpu].short_name),
                            scenario=ui(f"scenario_{m.scenario}"),
                            speed=ui("tokens_per_second", value=formatting.whole_number(
                                math.floor(best.measured_tokens_per_second), locale)),
                            share=formatting.percent(math.floor(share * 100) / 100, locale) if share is not None
                            else ui("not_published")))
    else:
        proxies = [(other, count) for other in related if same_layers_and_kv_cache(llm, other)
                   and (count := _measured_count(other, dataset))]
        if proxies:
            other, count = max(proxies, key=lambda found: (found[1], found[0].id))
            sentences.append(ui("model_intro_measured_relative", model_name=other.name, count=count,
                                results=formatting.whole_number(count, locale)))
    return sentences


# --- Image and video models ----------------------------------------------------------------------

#: The bytes a diffusion model's weight takes, per precision, where only its parameter count is known.
DIFFUSION_BYTES_PER_PARAMETER = {"bf16": 2, "fp8": 1}


def estimated_weights_gb(parameters: int, precision: str) -> Decimal:
    """A diffusion model's weights from its parameter count: 2 bytes each in BF16, 1 in FP8, rounded
    up to a tenth of a GB. A floor of what it needs: the text encoders, the VAE and the activations
    of a generation come on top.

    >>> estimated_weights_gb(12_000_000_000, "bf16"), estimated_weights_gb(12_000_000_000, "fp8")
    (Decimal('24'), Decimal('12'))
    """
    return memory_need_gb(parameters * DIFFUSION_BYTES_PER_PARAMETER[precision])


@dataclass(frozen=True)
class DiffusionNeed:
    """The memory an image or video model needs at one precision: its publisher's figure, or, where
    the publisher documents none, its weights estimated from its parameters."""

    precision: str  # "bf16", "fp8"
    memory_gb: Decimal
    estimated: bool

    def fits(self, gpu: Gpu) -> bool:
        """A documented figure is the publisher's (a GPU with that much memory runs it); an estimate
        counts the weights alone, so a GPU must have more than that."""
        memory = Decimal(str(gpu.memory_gb))
        return memory > self.memory_gb if self.estimated else memory >= self.memory_gb


def diffusion_needs(diffusion: DiffusionModel) -> list[DiffusionNeed]:
    """Per precision, the documented memory; without any, the weights from the parameter count (none
    without it either)."""
    documented = [DiffusionNeed(precision, Decimal(str(memory)), False) for precision in ("bf16", "fp8")
                  if (memory := diffusion.documented_memory_gb(precision)) is not None]
    if documented or diffusion.parameters is None:
        return documented
    return [DiffusionNeed(precision, estimated_weights_gb(diffusion.parameters, precision), True)
            for precision in ("bf16", "fp8")]


def _by_price(dataset: Dataset) -> list[Gpu]:
    """Every GPU, the cheapest offer first, those without one last."""
    return sorted(dataset.gpus.values(), key=lambda gpu: (
        (price := dataset.price(gpu.id)) is None, price.usd_per_gpu_hour if price else 0, gpu.id))


def diffusion_table(diffusion: DiffusionModel, dataset: Dataset, language: Language) -> BlockTable:
    """Every GPU with the memory the model needs at some precision (``diffusion_needs``), cheapest first."""
    ui, locale = language.ui, language.locale
    needs = diffusion_needs(diffusion)
    rows = []
    for gpu in _by_price(dataset):
        runs = [need.fits(gpu) for need in needs]
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
    estimated = any(need.estimated for need in needs)
    column = "column_holds_weights" if estimated else "column_runs_at"
    headers = (ui("column_gpu"), ui("column_memory"),
               *(ui(column, precision=ui(f"precision_{need.precision}")) for need in needs), ui("column_price"))
    caption = ui("diffusion_gpus_estimated_caption" if estimated else "diffusion_gpus_caption", model=diffusion.name)
    return BlockTable(caption, headers, tuple(rows), (False, True, *(False for _ in needs), True))


def diffusion_facts(diffusion: DiffusionModel, language: Language) -> list[tuple[str, str]]:
    """(label, text): its publisher, its parameters where known, the memory it needs per precision
    (documented, or its weights estimated)."""
    ui, locale = language.ui, language.locale
    rows = [(ui("model_fact_developer"), diffusion.developer)]
    if diffusion.parameters is not None:
        rows.append((ui("model_fact_parameters"), formatting.billions(diffusion.parameters, locale)))
    for need in diffusion_needs(diffusion):
        label = "diffusion_estimated_memory" if need.estimated else "diffusion_documented_memory"
        rows.append((ui(label, precision=ui(f"precision_{need.precision}")),
                     formatting.memory_gb(need.memory_gb, locale)))
    return rows


def diffusion_memory_text(diffusion: DiffusionModel, language: Language) -> list[tuple[str, str]]:
    """(precision, memory) for each precision the publisher documents, or else of the estimated weights."""
    return [(language.ui(f"precision_{need.precision}"), formatting.memory_gb(need.memory_gb, language.locale))
            for need in diffusion_needs(diffusion)]


def diffusion_cheapest(diffusion: DiffusionModel, dataset: Dataset, language: Language) -> list[tuple[str, str]]:
    """(GPU id, the sentence naming the cheapest GPU on offer with the memory the model needs), per
    precision, or once for the precisions the same GPU serves."""
    by_gpu: dict[str, list[DiffusionNeed]] = {}
    for need in diffusion_needs(diffusion):
        gpu = next((gpu for gpu in _by_price(dataset) if dataset.price(gpu.id) and need.fits(gpu)), None)
        if gpu is not None:
            by_gpu.setdefault(gpu.id, []).append(need)
    found = []
    for gpu_id, needs in by_gpu.items():
        price = dataset.price(gpu_id)
        assert price is not None
        precisions = format_list([language.ui(f"precision_{need.precision}") for need in needs], locale=language.locale)
        found.append((gpu_id, language.ui(
            "diffusion_cheapest_estimated" if needs[0].estimated else "diffusion_cheapest_documented",
            precision=precisions, gpu=dataset.gpus[gpu_id].model,
            price=formatting.usd(price.usd_per_gpu_hour, language.locale))))
    return found


def diffusion_intro(diffusion: DiffusionModel, dataset: Dataset, language: Language) -> list[list[str]]:
    """The page's opening sentences: what it generates and from how many parameters, the memory it
    needs (documented or estimated), how many of the site's GPU types have it, its measurements."""
    ui, locale = language.ui, language.locale
    kind = diffusion.kind
    if diffusion.parameters is not None:
        sentences = [ui(f"diffusion_intro_{kind}_parameters", model=diffusion.name, developer=diffusion.developer,
                        parameters=formatting.billions(diffusion.parameters, locale))]
    else:
        sentences = [ui(f"diffusion_intro_{kind}", model=diffusion.name, developer=diffusion.developer)]
    needs = diffusion_needs(diffusion)
    if not needs:
        return [[*sentences, ui("diffusion_intro_unknown")]]
    listed = format_list([ui("diffusion_need_item", memory=formatting.memory_gb(need.memory_gb, locale),
                             precision=ui(f"precision_{need.precision}")) for need in needs], locale=locale)
    sentences.append(ui("diffusion_intro_estimated" if needs[0].estimated else "diffusion_intro_documented",
                        needs=listed))
    smallest = min(needs, key=lambda need: need.memory_gb)
    holding = sum(smallest.fits(gpu) for gpu in dataset.gpus.values())
    precision = ui(f"precision_{smallest.precision}")
    if holding == len(dataset.gpus):
        sentences.append(ui("diffusion_intro_gpus_all", precision=precision))
    else:
        sentences.append(ui("diffusion_intro_gpus", count=holding, holding=formatting.whole_number(holding, locale),
                            total=formatting.whole_number(len(dataset.gpus), locale), precision=precision))
    results = len([m for m in measured.image_measurements(dataset, model=diffusion.id)])
    if results:
        sentences.append(ui("diffusion_intro_measured", count=results,
                            results=formatting.whole_number(results, locale)))
    return [sentences]


def diffusion_estimate_note(diffusion: DiffusionModel, language: Language) -> str | None:
    """How the weights were estimated, where they were; None for a documented figure."""
    needs = diffusion_needs(diffusion)
    if not needs or not needs[0].estimated or diffusion.parameters is None:
        return None
    return language.ui("diffusion_estimate_note", parameters=formatting.billions(diffusion.parameters, language.locale),
                       bf16_bytes=DIFFUSION_BYTES_PER_PARAMETER["bf16"], fp8_bytes=DIFFUSION_BYTES_PER_PARAMETER["fp8"])


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
    active: str | None  # mixture of experts: "37B active"
    published_format: str
    context: str
    context_tokens: int
    memory: str
    memory_gb: Decimal
    rental: str
    rental_usd_per_hour: Fraction | None  # None: nothing rentable holds it


@dataclass(frozen=True)
class IndexGroup:
    """The language models of one size group (``SIZE_BOUNDS``), smallest first, then by name."""

    key: str
    heading: str  # "10B to 40B parameters"
    label: str  # "10B to 40B", as a sentence names it
    rows: tuple[IndexRow, ...]


def usable_share_text(language: Language) -> str:
    return formatting.percent(float(sizing.USABLE_MEMORY_SHARE), language.locale)


def llm_index(dataset: Dataset, language: Language) -> list[IndexRow]:
    """Every language model in its published format: parameters, memory for the chat preset (its
    weights and KV cache), the cheapest rental for it; smallest first, then by name."""
    rows = []
    locale = language.locale
    for llm in dataset.llm_models.values():
        shape = model_shape(llm)
        need = chat_need(llm, dataset)
        best = need.plan
        rental = (configuration_text(best, dataset.gpus[best.gpu_id], language) if best
                  else language.ui("no_configuration"))
        memory = _gb(need.memory_gb, language)
        if need.context_tokens < serving.preset("chat").context_tokens:
            memory = language.ui("memory_at_max_context", memory=memory,
                                 context=formatting.whole_number(need.context_tokens, locale))
        active = (language.ui("index_active_parameters", active=formatting.billions(llm.active_parameters, locale))
                  if llm.active_parameters else None)
        rows.append(IndexRow(llm.id, llm.name, llm.developer, formatting.billions(llm.parameters, locale),
                             llm.parameters, active, language.ui(f"precision_{serving.format_of(shape, 'native')}"),
                             language.ui("tokens", value=formatting.whole_number(llm.max_context_tokens, locale)),
                             llm.max_context_tokens, memory, need.memory_gb, rental,
                             best.usd_per_hour if best else None))
    return sorted(rows, key=lambda row: (row.parameters_count, row.name))


def llm_index_groups(dataset: Dataset, language: Language) -> list[IndexGroup]:
    """``llm_index`` by size group, smallest group first; a group without a model is left out."""
    rows = llm_index(dataset, language)
    groups = []
    for group in range(len(SIZE_BOUNDS) + 1):
        members = tuple(row for row in rows if size_group(row.parameters_count) == group)
        if members:
            groups.append(IndexGroup(size_group_key(group), size_group_label(group, language, "models_group"),
                                     size_group_label(group, language), members))
    return groups
