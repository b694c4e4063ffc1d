"""A language model page's opening paragraphs (``intro``), computed from what sets the model apart:
what it is, what it takes to serve, and where it stands among its relatives (``model_relatives``)
and in MLPerf's measurements (``measured``).
"""

from __future__ import annotations

import math
from fractions import Fraction

from babel.lists import format_list

from gpuguide.figures import formatting, measured, serving
from gpuguide.figures.model_relatives import (
    chat_need,
    measured_count,
    related_models,
    rental_short,
    same_figures,
    same_layers_and_kv_cache,
)
from gpuguide.figures.model_tables import memory_gb_text
from gpuguide.figures.plan_tables import (
    configuration_text,
    format_label,
    memory_need_gb,
    memory_text,
    model_formats,
    model_cheapest,
    preset_workload,
)
from gpuguide.figures.planner import Plan
from gpuguide.figures.records import model_shape
from gpuguide.figures.size_groups import size_group, size_group_label
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.language import Language
from gpuguide.structure.model_specs import LlmModel


def _cheapest_plan(llm: LlmModel, dataset: Dataset, preset_key: str, weights: str = "native") -> Plan | None:
    return model_cheapest(llm, preset_workload(serving.preset(preset_key), weights), dataset)


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
        what.append(ui("model_intro_bf16", bf16=memory_gb_text(weights["bf16"], language), fp8=memory_gb_text(weights["fp8"], language),
                       int4=memory_gb_text(weights["int4"], language)))
    else:
        share = serving.weights_bytes(shape, "native") / serving.weights_bytes(shape, "bf16")
        what.append(ui("model_intro_native", format=ui(f"precision_{native}"), native=memory_gb_text(weights["native"], language),
                       bf16=memory_gb_text(weights["bf16"], language), share=formatting.percent(float(share), locale)))
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
    memory = memory_gb_text(need.memory_gb, language)
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
            rentals.append(ui("format_rental", format=label, rental=rental_short(plan, dataset, language)))
        else:
            same.append(label)
    if rentals:
        takes.append(ui("model_intro_quantized", rentals=format_list(rentals, locale=locale)))
    elif same:
        takes.append(ui("model_intro_quantized_same", formats=format_list(same, style="or", locale=locale)))
    team = serving.preset("team")
    team_context = serving.effective_context(shape, team.context_tokens)
    team_memory = memory_gb_text(memory_need_gb(serving.weights_bytes(shape, "native")) + memory_need_gb(
        serving.kv_cache_bytes(shape, team.context_tokens, "bf16", team.users)), language)
    team_plan = _cheapest_plan(llm, dataset, "team")
    values = {"users": number(team.users, locale), "count": team.users, "context": number(team_context, locale),
              "memory": team_memory}
    if team_plan is not None:
        takes.append(ui("model_intro_team", rental=rental_short(team_plan, dataset, language), **values))
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
                   and (count := measured_count(other, dataset))]
        if proxies:
            other, count = max(proxies, key=lambda found: (found[1], found[0].id))
            sentences.append(ui("model_intro_measured_relative", model_name=other.name, count=count,
                                results=formatting.whole_number(count, locale)))
    return sentences
