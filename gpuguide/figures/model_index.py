"""The models' index: every language model in its published format, with the memory the chat
preset takes and the cheapest rental for it (``llm_index``), grouped by size (``llm_index_groups``,
over ``size_groups``); and the share of a GPU's memory the sizing counts usable, as text.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from gpuguide.figures import formatting, serving, sizing
from gpuguide.figures.model_relatives import chat_need
from gpuguide.figures.model_tables import memory_gb_text
from gpuguide.figures.plan_tables import configuration_text
from gpuguide.figures.records import model_shape
from gpuguide.figures.size_groups import (
    SIZE_BOUNDS,
    size_group,
    size_group_key,
    size_group_label,
)
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.language import Language


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
        memory = memory_gb_text(need.memory_gb, language)
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
