"""What a page's planner receives (``templates/assets/planner.js``): the program to evaluate, what
each row is about, the words (UI strings, typeset, placeholders left for the script) and how this
language writes numbers, read off Babel so that the script prints exactly what the pages print.

A model page's planner answers one model on every GPU type: it runs the model's program once with
each GPU type's figures (its row's ``figures``). A GPU page's answers every model on one GPU type:
it runs the GPU pages' program, the same for every GPU type, with its GPU's ``figures``. Neither
holds a formula of its own.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from gpuguide.figures import formatting, planner, planner_program, serving
from gpuguide.figures.engine_budget import ProgramGpu
from gpuguide.figures.expression import Program, sharing, var
from gpuguide.figures.plan_tables import format_label, model_argument
from gpuguide.figures.records import model_shape, serving_gpu, serving_gpus
from gpuguide.figures.serving import ModelShape, Workload
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.gpu_specs import Gpu
from gpuguide.structure.model_specs import LlmModel
from gpuguide.structure.language import Language

#: The UI strings the script fills (with plural forms where they have them).
TEXTS = ("tokens_per_second_upper_bound", "seconds_lower_bound", "usd_lower_bound", "memory_of_budget",
         "price_per_hour", "no_offer", "no_offer_bid", "not_published", "not_held", "more_than_gpus", "plan_rent",
         "plan_no_offer", "plan_speed", "plan_memory", "plan_fast_link", "plan_no_fast_link", "plan_weight_only",
         "planner_cheapest", "planner_no_rental", "plan_configuration", "planner_served", "planner_not_served",
         "planner_loading", "planner_load_failed", "planner_model_page")

#: Where a model page's planner gets its program from: the model → its JSON data (or, from the
#: build's ``ProgramStore``, that data already written as JSON text).
ProgramSource = Callable[[ModelShape], Any]
#: The models a GPU page's program answers: (model id, its shape), in the data's order.
GpuModels = tuple[tuple[str, ModelShape], ...]
#: Where a GPU page's planner gets its program from: the models → its JSON.
GpuProgramSource = Callable[[GpuModels], Any]

#: The inputs' bounds: a context of at least one token, 1 to 1,024 users, a speed up to 10,000 tokens/s.
MAX_USERS = 1024
MAX_TARGET = 10_000


def number_format(language: Language) -> dict[str, Any]:
    """How the language writes the figures the planner prints, read off Babel's own output: the
    group and decimal separators, and what comes before and after a memory figure and a price."""
    locale = language.locale
    digits = formatting.decimal(Decimal("12345.678"), locale)  # "12 345,678" / "12,345.678"
    group, decimal = digits[2], digits[6]

    def around(text: str, number: str) -> list[str]:
        start = text.index(number)
        return [text[:start], text[start + len(number):]]

    sample = f"12{group}345{decimal}5"
    return {"group": group, "decimal": decimal,
            "gb": around(formatting.memory_gb(Decimal("12345.5"), locale), sample),
            "usd": around(formatting.usd(Decimal("12345.5"), locale), f"12{group}345{decimal}50")}


def texts(language: Language) -> dict[str, Any]:
    """Each UI string the script fills, typeset, its placeholders left in; plural forms as such."""
    found: dict[str, Any] = {}
    for key in TEXTS:
        value = language.strings[key]
        found[key] = ({category: language.typography(form) for category, form in value.items()}
                      if isinstance(value, dict) else language.ui(key))
    return found


def _inputs(llm: LlmModel, language: Language) -> dict[str, Any]:
    shape = model_shape(llm)
    formats = planner.formats_for(shape)
    return {"maxContext": shape.max_context_tokens, "maxUsers": MAX_USERS, "maxTarget": MAX_TARGET,
            "formats": [{"key": serving.format_of(shape, f), "label": format_label(llm, f, language),
                         "model": model_argument(llm, f, language)} for f in formats],
            "kv": [language.ui(f"precision_{kv}") for kv in planner.KV_FORMATS],
            "defaults": {"ctx": serving.preset("chat").context_tokens, "users": serving.preset("chat").users,
                         "w": serving.format_of(shape, "native"), "kv": planner.KV_FORMATS[0]}}


def model_program(shape: ModelShape) -> dict[str, Any]:
    """The planner's program for a model (``planner_program.program``), as the script receives it."""
    return planner_program.program(shape).as_json()


def model_planner(llm: LlmModel, dataset: Dataset, language: Language, gpu_pages: dict[str, str | None],
                  programs: ProgramSource = model_program) -> dict[str, Any]:
    """The planner of a model page: every GPU type's answer for the workload a reader asks, the
    program from ``programs`` (the build keeps them across builds: they read only the model), run
    once for each GPU type with its figures (``planner_program.gpu_inputs``)."""
    shape = model_shape(llm)
    rows = [{"id": gpu.id, "name": gpu.short_name, "url": gpu_pages.get(gpu.id), "link": gpu.interconnect.gpus,
             "bid": dataset.bid_url(language.code, gpu.id), "figures": planner_program.gpu_inputs(spec, order)}
            for order, (gpu, spec) in enumerate(zip(dataset.gpus.values(), serving_gpus(dataset.gpus, dataset.prices)))]
    return {"kind": "model", "program": programs(shape),
            "rows": rows, "repository": llm.repository_name,
            "model": llm.name, "inputs": _inputs(llm, language), "texts": texts(language),
            "number": number_format(language), "lang": language.code}


def chooser_planner(llm: LlmModel, dataset: Dataset, language: Language, gpu_pages: dict[str, str | None],
                    model_pages: dict[str, str | None], programs: ProgramSource = model_program) -> dict[str, Any]:
    """The planner of a use-case page: opened on ``llm``, with a choice of every language model that
    has a page. The script reads another model's program off that model's page (its planner's data),
    so no model's program is written twice."""
    initial = model_planner(llm, dataset, language, gpu_pages, programs)
    choices = [{"id": model.id, "name": model.name, "url": url}
               for model in dataset.llm_models.values() if (url := model_pages.get(model.id))]
    return {**initial, "kind": "choose", "modelId": llm.id, "models": choices}


def gpu_program_models(dataset: Dataset) -> GpuModels:
    """What the GPU pages' program is made of: every language model's shape."""
    return tuple((llm.id, model_shape(llm)) for llm in dataset.llm_models.values())


def gpu_program_json(models: GpuModels) -> dict[str, Any]:
    """``gpu_program`` as the script receives it (the default ``GpuProgramSource``)."""
    return gpu_program(models).as_json()


@functools.lru_cache(maxsize=256)
def gpu_program(models: GpuModels) -> Program:
    """Every language model of ``models`` in its published format, on any GPU type: its figures
    are inputs (``planner_program.gpu_inputs``), so that one program serves every GPU page, built
    once for the site (``planner.gpu_answer`` per model)."""
    context, users, kv = var("context"), var("users"), var("kv")
    rows = []
    with sharing():
        for order, (model_id, shape) in enumerate(models):
            # A context beyond a model's maximum is sized at that maximum, as the pages do.
            row = planner.gpu_answer(shape, [Workload(context, users, "native", kv)], 0, ProgramGpu(), order, 0)
            rows.append({"model": model_id, "code": row["code"], "count": row["count"],
                         "user_tokens_per_second": row["user_tokens_per_second"],
                         "usd_per_million_tokens": row["usd_per_million_tokens"],
                         "context": serving.effective_context(shape, context)})
        return Program({"rows": rows})


def gpu_planner(gpu: Gpu, dataset: Dataset, language: Language, model_pages: dict[str, str | None],
                programs: GpuProgramSource = gpu_program_json) -> dict[str, Any]:
    """The reverse view of a GPU page: for a context and a number of users, each model it serves;
    the program from ``programs`` (the build keeps it across builds), run with the GPU's figures."""
    rows = [{"id": llm.id, "name": llm.name, "url": model_pages.get(llm.id),
             "format": language.ui(f"precision_{serving.format_of(model_shape(llm), 'native')}")}
            for llm in dataset.llm_models.values()]
    figures = planner_program.gpu_inputs(serving_gpu(gpu, dataset.price(gpu.id)), list(dataset.gpus).index(gpu.id))
    return {"kind": "gpu", "program": programs(gpu_program_models(dataset)), "figures": figures, "rows": rows,
            "gpu": gpu.short_name,
            "link": gpu.interconnect.gpus, "inputs": {"maxContext": max(m.max_context_tokens for m in
                                                                       dataset.llm_models.values()),
                                                     "maxUsers": MAX_USERS, "maxTarget": 0, "formats": [],
                                                     "kv": [language.ui(f"precision_{kv}") for kv in planner.KV_FORMATS],
                                                     "defaults": {"ctx": serving.preset("chat").context_tokens,
                                                                  "users": serving.preset("chat").users,
                                                                  "kv": planner.KV_FORMATS[0]}},
            "texts": texts(language), "number": number_format(language), "lang": language.code}
