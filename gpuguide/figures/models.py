"""What a model page shows, and what a GPU page says of the models: every figure from ``sizing``,
every word from the UI strings.

A language model's page: the memory it needs per precision (weights, and weights + KV cache at the
reference context and at its maximum context), every GPU type's smallest configuration that holds
it with the link it needs, its price per hour, decode ceiling and tokens per dollar, the cheapest
one to rent, and what fine-tuning it needs. An image or video model's page: the memory its
publisher documents and the GPUs that have it. The tables are ``BlockTable``s, as block shortcodes
return: the templates print them the way Markdown prints those.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from babel.lists import format_list

from gpuguide.figures import formatting, sizing
from gpuguide.figures.columns import interconnect_text
from gpuguide.figures.prose import (
    BlockCell,
    BlockTable,
    ShortcodeContext,
    configuration_data,
    configuration_text,
)
from gpuguide.figures.records import gpu_spec, gpu_specs, model_shape
from gpuguide.structure.data import Dataset, DiffusionModel, Gpu, LlmModel
from gpuguide.structure.language import Language

#: Fine-tuning methods, in the order the pages list them.
METHODS: tuple[sizing.Method, ...] = ("full", "lora", "qlora")


def memory_up(needed: Fraction | int, language: Language) -> str:
    """Bytes as whole GB, rounded UP: a need is never understated."""
    return formatting.memory_gb(math.ceil(Fraction(needed) / sizing.GB), language.locale)


def serving_precisions(llm: LlmModel) -> tuple[str, ...]:
    """The precisions a model's page sizes it in: BF16, FP8, 4-bit, and its published format when
    that is none of them (gpt-oss's MXFP4) or only part of the weights use it."""
    native = llm.native_precision
    if native is not None and (native.format not in sizing.SERVING_PRECISIONS or native.quantized_parameters):
        return (*sizing.SERVING_PRECISIONS, "native")
    return sizing.SERVING_PRECISIONS


def precision_label(llm: LlmModel, precision: str, language: Language) -> str:
    """``BF16``, or ``MXFP4 (format publié)`` for the format the publisher ships."""
    native = llm.native_precision
    published = native.format if native is not None else "bf16"
    name = language.ui(f"precision_{published if precision == 'native' else precision}")
    is_published = precision == "native" or (precision == published and "native" not in serving_precisions(llm))
    return language.ui("precision_published", precision=name) if is_published else name


def precision_key(llm: LlmModel, precision: str) -> str:
    """The format a precision stands for, for machines: ``native`` → ``mxfp4``."""
    native = llm.native_precision
    return (native.format if native is not None else "bf16") if precision == "native" else precision


def reference_context(llm: LlmModel) -> int:
    """The context the pages size serving with: the reference context, at most the model's own."""
    return sizing.effective_context(model_shape(llm), sizing.REFERENCE_CONTEXT_TOKENS)


# --- Language models -----------------------------------------------------------------------------

def memory_table(llm: LlmModel, language: Language) -> BlockTable:
    """Per precision: weights; weights + KV cache at the reference context; at the maximum context."""
    shape, locale, ui = model_shape(llm), language.locale, language.ui
    reference, longest = reference_context(llm), llm.max_context_tokens
    rows = []
    for precision in serving_precisions(llm):
        weights = sizing.weights_bytes(shape, precision)
        at_reference = sizing.serving_memory_bytes(shape, precision, reference)
        at_longest = sizing.serving_memory_bytes(shape, precision, longest)
        rows.append((
            BlockCell(precision_label(llm, precision, language), (("precision", precision_key(llm, precision)),)),
            BlockCell(memory_up(weights, language), (("bytes", str(math.ceil(weights))),)),
            BlockCell(memory_up(at_reference, language), (("bytes", str(math.ceil(at_reference))),)),
            BlockCell(memory_up(at_longest, language), (("bytes", str(math.ceil(at_longest))),)),
        ))
    headers = (ui("column_precision"), ui("column_weights"),
               ui("column_memory_at_context", context=formatting.whole_number(reference, locale)),
               ui("column_memory_at_context", context=formatting.whole_number(longest, locale)))
    return BlockTable(ui("model_memory_caption", model=llm.name), headers, tuple(rows), (False, True, True, True))


def kv_cache_sentence(llm: LlmModel, language: Language) -> str:
    """How much the KV cache of one sequence takes, at the reference and at the maximum context."""
    shape, locale = model_shape(llm), language.locale
    reference, longest = reference_context(llm), llm.max_context_tokens
    return language.ui("model_kv_cache", model=llm.name,
                       reference=memory_up(sizing.kv_cache_bytes(shape, reference), language),
                       reference_tokens=formatting.whole_number(reference, locale),
                       longest=memory_up(sizing.kv_cache_bytes(shape, longest), language),
                       longest_tokens=formatting.whole_number(longest, locale))


@dataclass(frozen=True)
class ConfigurationFigures:
    """One configuration of one GPU type for a model at a precision, with what it gives."""

    config: sizing.Configuration
    decode: Fraction | None  # tokens/s ceiling of one stream; None: bandwidth not published
    tokens_per_usd: Fraction | None  # tokens per dollar ceiling; None: no offer or no decode ceiling


def configuration_figures(llm: LlmModel, precision: str, dataset: Dataset) -> list[ConfigurationFigures]:
    """Every GPU type's smallest configuration (1, 2, 4 or 8 GPUs) that serves ``llm`` at
    ``precision`` with the reference context, cheapest first (``sizing.configurations``)."""
    shape = model_shape(llm)
    need = sizing.serving_memory_bytes(shape, precision, reference_context(llm))
    figures = []
    for config in sizing.configurations(need, gpu_specs(dataset.gpus, dataset.prices)):
        gpu = dataset.gpus[config.gpu_id]
        decode = sizing.decode_tokens_per_second_upper_bound(gpu.bandwidth_gbs, shape, precision, config.gpu_count)
        figures.append(ConfigurationFigures(config, decode, sizing.tokens_per_usd_upper_bound(decode, config.usd_per_hour)))
    return figures


def recommended(llm: LlmModel, precision: str, dataset: Dataset) -> sizing.Configuration | None:
    """The cheapest rentable configuration whose GPUs share a fast link (what the guide's tables recommend)."""
    need = sizing.serving_memory_bytes(model_shape(llm), precision, reference_context(llm))
    return sizing.recommend_configuration(need, gpu_specs(dataset.gpus, dataset.prices))


def _decode_text(value: Fraction | None, language: Language) -> str:
    if value is None:
        return language.ui("not_published")
    return language.ui("tokens_per_second_upper_bound", value=formatting.whole_number(int(value), language.locale))


def tokens_per_usd_text(found: ConfigurationFigures, language: Language) -> str:
    """``≤ 32 500 tokens/$``; "no offer" without a price, "not published" without a decode ceiling."""
    if found.config.usd_per_hour is None:
        return language.ui("no_offer")
    if found.tokens_per_usd is None:
        return language.ui("not_published")
    return language.ui("tokens_per_usd_upper_bound", value=formatting.whole_number(
        sizing.round_down_significant(found.tokens_per_usd, 3), language.locale))


def count_text(config: sizing.Configuration, language: Language) -> str:
    """``1``, ``2``, ``4 (via PCIe)``: how many GPUs, and whether they talk over PCIe."""
    text = formatting.whole_number(config.gpu_count, language.locale)
    return text if config.fast_link else language.ui("over_pcie", figure=text)


def configurations_table(llm: LlmModel, precision: str, dataset: Dataset, language: Language) -> BlockTable:
    """The configurations that serve ``llm`` at ``precision``, cheapest first."""
    ui, locale = language.ui, language.locale
    rows = []
    for found in configuration_figures(llm, precision, dataset):
        config = found.config
        gpu = dataset.gpus[config.gpu_id]
        price = (ui("price_per_hour", price=formatting.usd(float(config.usd_per_hour), locale))
                 if config.usd_per_hour is not None else ui("no_offer"))
        link = interconnect_text(gpu, language) if config.gpu_count > 1 else ui("single_gpu")
        rows.append((
            # Not a recommendation (those carry data-precision): every GPU type's smallest configuration.
            BlockCell(gpu.model, (("gpu", gpu.id), ("count", str(config.gpu_count)),
                                  ("fast-link", "true" if config.fast_link else "false")), page=("gpu", gpu.id)),
            BlockCell(count_text(config, language)),
            BlockCell(link),
            BlockCell(price, (("usd-per-hour", str(config.usd_per_hour or "")),)),
            BlockCell(_decode_text(found.decode, language)),
            BlockCell(tokens_per_usd_text(found, language)),
        ))
    name = precision_label(llm, precision, language)
    headers = (ui("column_gpu"), ui("column_gpu_count"), ui("column_interconnect"), ui("column_price"),
               ui("column_decode_ceiling"), ui("column_tokens_per_usd_short"))
    return BlockTable(ui("model_configurations_caption", model=llm.name, precision=name), headers, tuple(rows),
                      (False, True, False, True, True, True))


def recommendation_data(llm: LlmModel, precision: str, dataset: Dataset) -> tuple[tuple[str, str], ...]:
    """What the recommendation sentence states, for machines (``data-*``), as the guide's tables do."""
    config = recommended(llm, precision, dataset)
    return configuration_data(config, llm.id, precision_key(llm, precision)) if config is not None else ()


def recommendation_text(llm: LlmModel, precision: str, dataset: Dataset, language: Language) -> str:
    """The cheapest configuration to rent, its price and decode ceiling, in one sentence."""
    ui, locale = language.ui, language.locale
    config = recommended(llm, precision, dataset)
    name = precision_label(llm, precision, language)
    if config is None:
        return ui("model_no_rental", model=llm.name, precision=name)
    gpu = dataset.gpus[config.gpu_id]
    decode = sizing.decode_tokens_per_second_upper_bound(gpu.bandwidth_gbs, model_shape(llm), precision, config.gpu_count)
    assert config.usd_per_hour is not None  # recommendations have a live offer
    found = ConfigurationFigures(config, decode, sizing.tokens_per_usd_upper_bound(decode, config.usd_per_hour))
    return ui("model_recommendation", model=llm.name, precision=name, count=config.gpu_count, gpu=gpu.model,
              price=formatting.usd(float(config.usd_per_hour), locale), decode=_decode_text(decode, language),
              tokens=tokens_per_usd_text(found, language))


def fine_tuning_table(llm: LlmModel, dataset: Dataset, language: Language) -> BlockTable:
    """Full training, LoRA and QLoRA: memory per parameter, memory needed, the configuration to rent."""
    ui, locale = language.ui, language.locale
    context = ShortcodeContext(dataset, language)
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
            BlockCell(configuration_text(config, context),
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


# --- What a GPU runs -----------------------------------------------------------------------------

def models_on_gpu_table(gpu: Gpu, dataset: Dataset, language: Language) -> BlockTable:
    """For each language model: how many of this GPU serve it, per precision (or "more than 8")."""
    ui = language.ui
    spec = gpu_spec(gpu, dataset.price(gpu.id))
    rows = []
    for llm in dataset.llm_models.values():
        shape, context = model_shape(llm), reference_context(llm)
        cells = []
        for precision in sizing.SERVING_PRECISIONS:
            config = sizing.smallest_configuration(sizing.serving_memory_bytes(shape, precision, context), spec)
            cells.append(BlockCell(count_text(config, language), (("count", str(config.gpu_count)),))
                         if config is not None else BlockCell(ui("more_than_gpus", count=max(sizing.GPU_COUNTS))))
        rows.append((BlockCell(llm.name, (("model", llm.id),), page=("model", llm.id)), *cells))
    headers = (ui("column_model"), *(ui("column_gpus_needed", precision=ui(f"precision_{p}"))
                                     for p in sizing.SERVING_PRECISIONS))
    caption = ui("gpu_models_caption", gpu=gpu.model,
                 context=formatting.whole_number(sizing.REFERENCE_CONTEXT_TOKENS, language.locale))
    return BlockTable(caption, headers, tuple(rows), (False, True, True, True))


def diffusion_on_gpu(gpu: Gpu, dataset: Dataset) -> list[DiffusionModel]:
    """The image and video models whose documented memory (at any documented precision) this GPU has."""
    return [model for model in dataset.diffusion_models.values()
            if any(sizing.diffusion_fits(gpu.memory_gb, model.documented_memory_gb(p)) for p in ("bf16", "fp8"))]


# --- The models' index ---------------------------------------------------------------------------

@dataclass(frozen=True)
class IndexRow:
    """A language model in the index: what it is, what it needs in BF16, what to rent."""

    model_id: str
    name: str
    developer: str
    parameters: str
    memory: str
    rental: str


def reference_context_text(language: Language) -> str:
    return formatting.whole_number(sizing.REFERENCE_CONTEXT_TOKENS, language.locale)


def usable_share_text(language: Language) -> str:
    return formatting.percent(float(sizing.USABLE_MEMORY_SHARE), language.locale)


def gpu_counts_text(language: Language) -> str:
    """``1, 2, 4 ou 8`` / ``1, 2, 4 or 8``: the configurations the pages consider."""
    return format_list([formatting.whole_number(count, language.locale) for count in sizing.GPU_COUNTS], style="or",
                       locale=language.locale)


def llm_index(dataset: Dataset, language: Language) -> list[IndexRow]:
    """Every language model: parameters, memory in BF16 at the reference context, the cheapest rental."""
    rows = []
    context = ShortcodeContext(dataset, language)
    for llm in dataset.llm_models.values():
        need = sizing.serving_memory_bytes(model_shape(llm), "bf16", reference_context(llm))
        config = recommended(llm, "bf16", dataset)
        rows.append(IndexRow(llm.id, llm.name, llm.developer, formatting.billions(llm.parameters, language.locale),
                             memory_up(need, language),
                             configuration_text(config, context) if config else language.ui("no_configuration")))
    return rows
