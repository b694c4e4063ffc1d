"""How a language model differs from its relatives: the models of its family or of the same layers
and KV cache (``related_models``), what each changes, fact by fact (``relatives``), and what the
chat preset takes of a model in its published format (``chat_need``), which those comparisons, the
intro (``model_intro``) and the models' index (``model_index``) share.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from babel.dates import format_date

from gpuguide.figures import formatting, measured, serving
from gpuguide.figures.model_tables import memory_gb_text
from gpuguide.figures.plan_tables import memory_need_gb, model_cheapest, preset_workload
from gpuguide.figures.planner import Plan
from gpuguide.figures.records import model_shape
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.language import Language
from gpuguide.structure.model_specs import LlmModel


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
    best = model_cheapest(llm, preset_workload(chat), dataset)
    return ChatNeed(serving.effective_context(shape, chat.context_tokens), memory, best)


def rental_short(plan: Plan | None, dataset: Dataset, language: Language) -> str:
    """``2 × A100 SXM at $3.58/h``, or that nothing rentable holds it."""
    if plan is None or plan.usd_per_hour is None:
        return language.ui("rental_none_short")
    return language.ui("rental_short", count=plan.gpu_count, gpu=dataset.gpus[plan.gpu_id].short_name,
                       price=formatting.usd(plan.usd_per_hour, language.locale))


def measured_count(llm: LlmModel, dataset: Dataset) -> int:
    """How many published measurements of the model ``measured`` compares with their bounds."""
    return len(measured.language_model_measurements(dataset, model=llm.id))


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
        found.append(ui("difference_chat_memory", theirs=memory_gb_text(theirs_chat.memory_gb, language),
                        ours=memory_gb_text(ours_chat.memory_gb, language)))
    ours_rental = rental_short(ours_chat.plan, dataset, language)
    theirs_rental = rental_short(theirs_chat.plan, dataset, language)
    if ours_rental != theirs_rental:
        found.append(ui("difference_rental", theirs=theirs_rental, ours=ours_rental))
    ours_measured, theirs_measured = measured_count(llm, dataset), measured_count(other, dataset)
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
