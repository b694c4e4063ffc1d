"""What the pages show of serving plans: a workload's configurations GPU by GPU, the cheapest one per
format and preset, the launch command, and a GPU's reverse view (which models it serves).

Every figure comes from ``planner`` (``serving``, ``engine_budget`` and ``roofline`` below it);
every word from the UI strings. Rounding is one rule per quantity: memory rounded up to a tenth of
a GB, speed bounds down to whole tokens per second, the first token's floor and the price floor per
million tokens to three significant digits, up and down respectively (a bound never overstates).
"""

from __future__ import annotations

import functools
import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from fractions import Fraction


from gpuguide.figures import engine_budget, formatting, planner, serving
from gpuguide.figures.cheapest import cheapest_plan
from gpuguide.figures.planner import Plan
from gpuguide.figures.registry import BlockCell, BlockTable
from gpuguide.figures.records import model_shape, serving_gpus
from gpuguide.figures.engine_budget import ServingGpu
from gpuguide.figures.serving import ModelShape, Preset, Workload
from gpuguide.figures.sizing import GB
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.gpu_specs import Gpu
from gpuguide.structure.model_specs import LlmModel
from gpuguide.structure.language import Language


# --- One rule per quantity -----------------------------------------------------------------------

def memory_need_gb(need_bytes: Fraction | int) -> Decimal:
    """A memory need in GB, rounded UP to a tenth: a need is never understated.

    >>> memory_need_gb(16_060_522_496), memory_need_gb(10**9)
    (Decimal('16.1'), Decimal('1'))
    """
    return Decimal(math.ceil(Fraction(need_bytes) * 10 / GB)) / 10


def memory_text(need_bytes: Fraction | int, language: Language) -> str:
    return formatting.memory_gb(memory_need_gb(need_bytes), language.locale)


def tokens_text(value: Fraction, language: Language) -> str:
    """``≤ 208 tokens/s``: a speed bound, rounded down."""
    return language.ui("tokens_per_second_upper_bound", value=formatting.whole_number(math.floor(value), language.locale))


def first_token_text(seconds: Fraction | None, language: Language) -> str:
    """``≥ 0,134 s`` / ``≥ 0.134 s``: a floor, rounded up."""
    if seconds is None:
        return language.ui("not_published")
    return language.ui("seconds_lower_bound", value=formatting.decimal(formatting.significant(seconds, 3, ROUND_CEILING),
                                                                       language.locale))


def per_million_text(usd: Fraction | None, language: Language) -> str:
    """``≥ 0,199 $US`` / ``≥ $0.199``: a price floor per million output tokens, rounded down."""
    if usd is None:
        return language.ui("no_offer")
    return language.ui("usd_lower_bound", price=formatting.usd_rate(formatting.significant(usd, 3, ROUND_FLOOR), language.locale))


# --- Workloads -----------------------------------------------------------------------------------

def native_weights(llm: LlmModel) -> str:
    """The format the pages size a model in by default: the one its publisher ships."""
    return "native"


def preset_workload(preset: Preset, weights: str = "native", kv_cache: str = "bf16") -> Workload:
    return Workload(preset.context_tokens, preset.users, weights, kv_cache)


def preset_label(preset: Preset, shape: ModelShape, language: Language) -> str:
    """``Équipe : 10 utilisateurs × 32 768 jetons`` / ``Team: 10 users × 32,768 tokens``; a model with
    a shorter maximum context is sized at that maximum, and the label says so."""
    locale = language.locale
    context = serving.effective_context(shape, preset.context_tokens)
    label = language.ui(f"preset_{preset.key}", users=formatting.whole_number(preset.users, locale),
                        count=preset.users, context=formatting.whole_number(context, locale))
    return label if context == preset.context_tokens else language.ui("preset_at_max_context", preset=label)


@functools.lru_cache(maxsize=4096)
def cached_plans(shape: ModelShape, workload: Workload, gpus: tuple[ServingGpu, ...],
                 min_user_tokens_per_second: int | None = None) -> tuple[Plan, ...]:
    """``planner.plans`` for one model and workload, shared by the languages of a build."""
    return tuple(planner.plans(shape, workload, gpus, min_user_tokens_per_second))


def model_plans(llm: LlmModel, workload: Workload, dataset: Dataset,
                min_user_tokens_per_second: int | None = None) -> tuple[Plan, ...]:
    return cached_plans(model_shape(llm), workload, tuple(serving_gpus(dataset.gpus, dataset.prices)),
                        min_user_tokens_per_second)


@functools.lru_cache(maxsize=4096)
def cached_cheapest(shape: ModelShape, workload: Workload, gpus: tuple[ServingGpu, ...],
                    min_user_tokens_per_second: int | None = None) -> Plan | None:
    """``cheapest.cheapest_plan``, shared by the tables and languages of a build that ask it."""
    return cheapest_plan(shape, workload, gpus, min_user_tokens_per_second)


def model_cheapest(llm: LlmModel, workload: Workload, dataset: Dataset,
                   min_user_tokens_per_second: int | None = None) -> Plan | None:
    """The first of ``model_plans``, found without the others (``cheapest``)."""
    return cached_cheapest(model_shape(llm), workload, tuple(serving_gpus(dataset.gpus, dataset.prices)),
                           min_user_tokens_per_second)


# --- Tables --------------------------------------------------------------------------------------

def configuration_text(plan: Plan, gpu: Gpu, language: Language) -> str:
    """``2 × H100 SXM · 5,76 $US/h · ≥ 0,199 $US/M jetons`` for a configuration to rent."""
    assert plan.gpu_count is not None and plan.usd_per_hour is not None
    return language.ui("plan_configuration", count=plan.gpu_count, gpu=gpu.short_name,
                       price=formatting.usd(plan.usd_per_hour, language.locale),
                       per_million=per_million_text(plan.usd_per_million_tokens, language))


def plan_data(plan: Plan, llm: LlmModel, workload: Workload) -> tuple[tuple[str, str], ...]:
    """What a row states, for machines and tests: the exact figures behind the rounded ones."""
    data = [("gpu", plan.gpu_id), ("count", str(plan.gpu_count or "")), ("model", llm.id),
            ("weights", serving.format_of(model_shape(llm), workload.weights)), ("kv-cache", workload.kv_cache),
            ("context", str(serving.effective_context(model_shape(llm), workload.context_tokens))),
            ("users", str(workload.users)), ("reason", plan.reason or "rent")]
    if plan.bounds is not None:
        data += [("user-tokens-per-second", str(float(plan.bounds.user_tokens_per_second))),
                 ("total-tokens-per-second", str(float(plan.bounds.total_tokens_per_second)))]
    if plan.usd_per_hour is not None:
        data.append(("usd-per-hour", str(plan.usd_per_hour)))
    return tuple(data)


def status_text(plan: Plan, gpu: Gpu, language: Language) -> str:
    """Why a configuration is not the one to rent, or that it is."""
    if plan.reason is None:
        return language.ui("plan_rent")
    if plan.reason == "fast_link":
        if gpu.interconnect.gpus == 1:
            return language.ui("plan_no_fast_link", count=plan.gpu_count or 0)
        return language.ui("plan_fast_link", count=plan.gpu_count or 0, link=gpu.interconnect.gpus)
    return language.ui(f"plan_{plan.reason}")


def plans_table(llm: LlmModel, workload: Workload, dataset: Dataset, language: Language, caption: str,
                min_user_tokens_per_second: int | None = None) -> BlockTable:
    """Every GPU type's configuration for ``workload``, the cheapest rentable first."""
    ui = language.ui
    rows = []
    for plan in model_plans(llm, workload, dataset, min_user_tokens_per_second):
        gpu = dataset.gpus[plan.gpu_id]
        bounds = plan.bounds
        figures = plan.shown  # rounded once, by the planner, as its script rounds them
        memory = ui("memory_of_budget", memory=formatting.memory_gb(_decimal(figures.used_gb), language.locale),
                    budget=formatting.memory_gb(_decimal(figures.budget_gb), language.locale))
        weight_only = not plan.native and plan.gpu_count is not None
        rows.append((
            BlockCell(gpu.short_name, plan_data(plan, llm, workload), page=("gpu", gpu.id),
                      detail=ui("plan_weight_only") if weight_only else None),
            BlockCell(formatting.whole_number(plan.gpu_count, language.locale) if plan.gpu_count
                      else ui("more_than_gpus", count=max(engine_budget.GPU_COUNTS))),
            BlockCell(memory),
            BlockCell(tokens_text(figures.user_tokens_per_second, language) if bounds else _missing(plan, language)),
            BlockCell(tokens_text(figures.total_tokens_per_second, language) if bounds else _missing(plan, language)),
            BlockCell(first_token_text(figures.first_token_seconds, language) if bounds else _missing(plan, language)),
            _price_cell(plan, dataset, language),
            BlockCell(per_million_text(figures.usd_per_million_tokens if plan.usd_per_hour is not None else None,
                                       language) if bounds else _missing(plan, language)),
            BlockCell(status_text(plan, gpu, language)),
        ))
    headers = (ui("column_gpu"), ui("column_gpu_count"), ui("column_memory_per_gpu"), ui("column_user_speed"),
               ui("column_total_speed"), ui("column_first_token"), ui("column_price"), ui("column_per_million"),
               ui("column_plan_status"))
    return BlockTable(caption, headers, tuple(rows), (False, True, True, True, True, True, True, True, False))


def planner_answer(llm: LlmModel, workload: Workload, dataset: Dataset, language: Language,
                   min_user_tokens_per_second: int | None = None) -> tuple[str, str | None]:
    """The planner's answer for a workload, as its script writes it: the sentence and the launch
    command (None when nothing rentable holds it)."""
    best = model_cheapest(llm, workload, dataset, min_user_tokens_per_second)
    if best is None:
        return language.ui("planner_no_rental", model=llm.name), None
    configuration = configuration_text(best, dataset.gpus[best.gpu_id], language)
    return (language.ui("planner_cheapest", model=llm.name, configuration=configuration),
            launch_command(llm, workload, best, language))


def _price_cell(plan: Plan, dataset: Dataset, language: Language) -> BlockCell:
    """The configuration's hourly price; without an offer, a bid for the GPU (the marketplace takes
    them); nothing to price when no configuration holds the workload."""
    if plan.gpu_count is None:
        return BlockCell(language.ui("not_held"))
    if plan.usd_per_hour is not None:
        return BlockCell(language.ui("price_per_hour", price=formatting.usd(plan.usd_per_hour, language.locale)))
    bid = dataset.bid_url(language.code, plan.gpu_id)
    return BlockCell(language.ui("no_offer_bid"), href=bid) if bid else BlockCell(language.ui("no_offer"))


def _missing(plan: Plan, language: Language) -> str:
    return language.ui("not_held") if plan.gpu_count is None else language.ui("not_published")


def model_argument(llm: LlmModel, weights: str, language: Language) -> str:
    """What ``vllm serve`` starts for ``weights``: the published checkpoint, or a placeholder for a
    checkpoint quantized for that format (``<4-bit (AWQ, GPTQ) checkpoint of …>``), never the
    publisher's checkpoint in a format it does not load in."""
    shape = model_shape(llm)
    if planner.serves_published_checkpoint(shape, weights):
        return llm.repository_name
    return language.ui("launch_checkpoint", format=language.ui(f"precision_{serving.format_of(shape, weights)}"),
                       repository=llm.repository_name)


def launch_command(llm: LlmModel, workload: Workload, plan: Plan, language: Language) -> str:
    """The vLLM command that starts ``plan``'s configuration as it was sized."""
    assert plan.gpu_count is not None
    arguments = planner.vllm_arguments(model_shape(llm), workload, plan.gpu_count)
    return f"vllm serve {model_argument(llm, workload.weights, language)} {planner.command_arguments(arguments)}"


def _decimal(value: Fraction) -> Decimal:
    """A figure already rounded to a tenth (or to whole units) as Babel formats it."""
    return Decimal(value.numerator) / Decimal(value.denominator)


def cheapest_table(llm: LlmModel, dataset: Dataset, language: Language, formats: tuple[str, ...]) -> BlockTable:
    """Per weight format (rows) and preset (columns): the cheapest configuration to rent."""
    ui, shape = language.ui, model_shape(llm)
    rows = []
    for weights in formats:
        cells = []
        for preset in serving.PRESETS:
            workload = preset_workload(preset, weights)
            plan = model_cheapest(llm, workload, dataset)
            if plan is None:
                cells.append(BlockCell(ui("no_configuration")))
                continue
            gpu = dataset.gpus[plan.gpu_id]
            # The configuration on its line, its price under it: narrow columns keep two presets in view on a phone.
            assert plan.usd_per_hour is not None
            detail = ui("plan_price_detail", price=formatting.usd(plan.usd_per_hour, language.locale),
                        per_million=per_million_text(plan.usd_per_million_tokens, language))
            if not plan.native:
                detail = ui("plan_detail_weight_only", detail=detail)
            cells.append(BlockCell(ui("plan_gpus", count=plan.gpu_count, gpu=gpu.short_name),
                                   plan_data(plan, llm, workload), page=("gpu", gpu.id), detail=detail))
        rows.append((BlockCell(format_label(llm, weights, language),
                               (("weights", serving.format_of(shape, weights)),)), *cells))
    # Short headers keep two workloads in view on a phone; the caption states each one.
    headers = (ui("column_weights_format"), *(ui(f"preset_short_{preset.key}") for preset in serving.PRESETS))
    workloads = formatting.listing([preset_label(preset, shape, language) for preset in serving.PRESETS],
                                   language.locale, "unit")
    return BlockTable(ui("cheapest_caption", model=llm.name, workloads=workloads), headers, tuple(rows),
                      (False, False, False, False))


def format_label(llm: LlmModel, weights: str, language: Language) -> str:
    """``BF16``, ``4 bits (AWQ, GPTQ)``, or ``MXFP4 (format publié)`` for the publisher's format."""
    key = serving.format_of(model_shape(llm), weights)
    name = language.ui(f"precision_{key}")
    published = llm.native_precision.format if llm.native_precision else "bf16"
    return language.ui("precision_published", precision=name) if key == published else name


def model_formats(llm: LlmModel) -> tuple[str, ...]:
    """The formats a model's page sizes it in: BF16, FP8, 4-bit, and its published format when that
    is none of them or only part of its weights use it."""
    native = llm.native_precision
    if native is not None and (native.format not in serving.SERVING_FORMATS or native.quantized_parameters):
        return (*serving.SERVING_FORMATS, "native")
    return serving.SERVING_FORMATS


# --- A GPU's view --------------------------------------------------------------------------------

def models_on_gpu_table(gpu: Gpu, dataset: Dataset, language: Language) -> BlockTable:
    """For each language model, in its published format: how many of this GPU serve each preset,
    and the price floor per million tokens of the batch preset."""
    ui = language.ui
    spec = next(s for s in serving_gpus({gpu.id: gpu}, dataset.prices))
    rows = []
    for llm in dataset.llm_models.values():
        shape = model_shape(llm)
        cells = []
        for preset in serving.PRESETS:
            workload = preset_workload(preset)
            plan = planner.plan_gpu(shape, workload, spec, order=list(dataset.gpus).index(gpu.id))
            text = (formatting.whole_number(plan.gpu_count, language.locale) if plan.gpu_count
                    and plan.reason != "fast_link" else status_text(plan, gpu, language))
            cells.append(BlockCell(text, plan_data(plan, llm, workload)))
        batch = planner.plan_gpu(shape, preset_workload(serving.preset("batch")), spec,
                                 order=list(dataset.gpus).index(gpu.id))
        cells.append(BlockCell(per_million_text(batch.usd_per_million_tokens, language) if batch.bounds
                               and batch.reason in (None, "no_offer") else ui("not_held")))
        rows.append((BlockCell(llm.name, (("model", llm.id),), page=("model", llm.id),
                               detail=format_label(llm, "native", language)), *cells))
    # Short headers keep two figures in view on a phone; the caption states each workload.
    headers = (ui("column_model"), *(ui(f"preset_short_{preset.key}") for preset in serving.PRESETS),
               ui("column_per_million_batch"))
    workloads = formatting.listing([preset_label(preset, ModelShape(1, 1, 1, 1, 10**9), language)
                                    for preset in serving.PRESETS], language.locale, "unit")
    return BlockTable(ui("gpu_models_caption", gpu=gpu.short_name, workloads=workloads), headers, tuple(rows),
                      (False, True, True, True, True))


def models_for_workload_table(gpu: Gpu, workload: Workload, dataset: Dataset, language: Language) -> BlockTable:
    """For one workload, each language model in its published format on the fewest of this GPU that
    hold it: the GPU page's planner, as it reads before a reader sets a workload of their own."""
    ui = language.ui
    spec = serving_gpus({gpu.id: gpu}, dataset.prices)[0]
    rows = []
    for order, llm in enumerate(dataset.llm_models.values()):
        plan = planner.plan_gpu(model_shape(llm), Workload(workload.context_tokens, workload.users, "native",
                                                           workload.kv_cache), spec, order=order)
        fits = plan.reason in (None, "no_offer", "speed")
        count = (ui("plan_memory") if plan.reason == "memory" else
                 status_text(plan, gpu, language) if plan.reason == "fast_link" else
                 formatting.whole_number(plan.gpu_count or 0, language.locale))
        bounded = fits and plan.bounds is not None
        rows.append((
            BlockCell(llm.name, (("model", llm.id), ("reason", plan.reason or "rent")), page=("model", llm.id),
                      detail=ui(f"precision_{serving.format_of(model_shape(llm), 'native')}")),
            BlockCell(count),
            BlockCell(tokens_text(plan.shown.user_tokens_per_second, language) if bounded else ui("not_held")),
            BlockCell((per_million_text(plan.shown.usd_per_million_tokens, language)
                       if plan.usd_per_hour is not None else ui("no_offer")) if bounded else ui("not_held")),
        ))
    headers = (ui("column_model"), ui("column_gpus_of", gpu=gpu.short_name), ui("column_user_speed"),
               ui("column_per_million"))
    return BlockTable(ui("gpu_planner_caption", gpu=gpu.short_name), headers, tuple(rows), (False, True, True, True))
