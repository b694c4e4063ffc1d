"""Columns about one model (``MODEL_COLUMNS``): a front-matter mapping names the column, the model
and the precision (``{id: decode_upper_bound, model: llama-3-1-8b, precision: bf16}``), and a factory
makes the ``columns.Column`` for that model: its decode speed bound, its price floor per million
tokens (from ``roofline``), its measured cost (``measured``), whether a diffusion model fits.
"""

from __future__ import annotations

from decimal import ROUND_FLOOR
from fractions import Fraction
from typing import Any, Callable

from gpuguide.figures import engine_budget, formatting, measured, roofline, serving, sizing
from gpuguide.figures.columns import Column, shown_rate, yes_no
from gpuguide.figures.records import model_shape, serving_gpu
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.gpu_specs import Gpu
from gpuguide.structure.prices import Price
from gpuguide.structure.language import Language


# --- formatters and the numbers they print -------------------------------------------------------

def _usd_floor(v: Any, language: Language) -> str:
    """A price floor, three significant digits rounded down: ``≥ 0,199 $US``."""
    return language.ui("usd_lower_bound", price=formatting.usd_rate(formatting.significant(Fraction(v), 3, ROUND_FLOOR),
                                                                     language.locale))


def _usd_rate_exact(v: Any, language: Language) -> str:
    return formatting.usd_rate(v, language.locale)


def _tokens_per_second(v: Any, language: Language) -> str:
    return language.ui("tokens_per_second_upper_bound", value=formatting.whole_number(int(v), language.locale))


def _shown_floor(exact: Fraction) -> Fraction:
    return Fraction(formatting.significant(exact, 3, ROUND_FLOOR))


def _shown_whole(exact: Fraction) -> Fraction:
    return Fraction(int(exact))


# --- the columns ---------------------------------------------------------------------------------

def _one_gpu_bounds(shape: serving.ModelShape, workload: serving.Workload, gpu: Gpu,
                    price: Price | None) -> roofline.Bounds | sizing.Absent | None:
    """The roofline of ``workload`` on one GPU, ``DOES_NOT_FIT`` when that GPU cannot hold it within
    the engine's budget: a speed for a model that does not load would mislead."""
    spec = serving_gpu(gpu, price)
    if not engine_budget.fits_engine(shape, workload, spec, 1):
        return sizing.DOES_NOT_FIT
    return roofline.decode_bounds(shape, workload, spec, 1)


def _decode_upper_bound(dataset: Dataset, model: str, precision: str) -> Column:
    """Per-user decoding speed bound on one GPU, chat preset (one user, 8,192 tokens)."""
    llm = dataset.llm_models[model]
    shape, chat = model_shape(llm), serving.preset("chat")
    workload = serving.Workload(chat.context_tokens, chat.users, precision)

    def value(gpu: Gpu, price: Price | None) -> Fraction | sizing.Absent | None:
        bounds = _one_gpu_bounds(shape, workload, gpu, price)
        return bounds.user_tokens_per_second if isinstance(bounds, roofline.Bounds) else bounds

    return Column(f"decode_upper_bound:{model}:{precision}",
                  lambda language: language.ui("column_decode_upper_bound", model=llm.name,
                                               precision=language.ui(f"precision_{serving.format_of(shape, precision)}")),
                  value, _tokens_per_second, shown=_shown_whole)


def _usd_per_million_tokens(dataset: Dataset, model: str, precision: str) -> Column:
    """The price floor per million output tokens on one GPU, batch preset (64 sequences of 4,096 tokens)."""
    llm = dataset.llm_models[model]
    shape, batch = model_shape(llm), serving.preset("batch")
    workload = serving.Workload(batch.context_tokens, batch.users, precision)

    def value(gpu: Gpu, price: Price | None) -> Fraction | sizing.Absent | None:
        bounds = _one_gpu_bounds(shape, workload, gpu, price)
        if not isinstance(bounds, roofline.Bounds):
            return bounds
        if price is None:
            return sizing.NO_OFFER
        return roofline.usd_per_million_tokens(price.usd_per_gpu_hour, bounds.total_tokens_per_second)

    return Column(f"usd_per_million_tokens:{model}:{precision}",
                  lambda language: language.ui("column_usd_per_million_tokens", model=llm.name,
                                               precision=language.ui(f"precision_{serving.format_of(shape, precision)}")),
                  value, _usd_floor, higher_is_better=False, shown=_shown_floor)


def _measured_usd_per_million_tokens(dataset: Dataset, model: str, precision: str) -> Column:
    """What a million output tokens cost at the measured throughput: the best published result for
    the model on this GPU (MLPerf, per GPU), at this site's price; ``NOT_MEASURED`` without one."""
    llm = dataset.llm_models[model]

    def value(gpu: Gpu, price: Price | None) -> Fraction | sizing.Absent | None:
        per_gpu = measured.best_tokens_per_gpu(dataset, model, gpu.id)
        if per_gpu is None:
            return sizing.NOT_MEASURED
        if price is None:
            return sizing.NO_OFFER
        return roofline.usd_per_million_tokens(price.usd_per_gpu_hour, per_gpu)

    return Column(f"measured_usd_per_million_tokens:{model}:{precision}",
                  lambda language: language.ui("column_measured_usd_per_million_tokens", model=llm.name),
                  value, _usd_rate_exact, higher_is_better=False, shown=shown_rate)


def _diffusion_fits(dataset: Dataset, model: str, precision: str) -> Column:
    diffusion = dataset.diffusion_models[model]
    need = diffusion.documented_memory_gb(precision)

    def value(gpu: Gpu, price: Price | None) -> bool | None:
        return sizing.diffusion_fits(gpu.memory_gb, need)

    return Column(f"diffusion_fits:{model}:{precision}",
                  lambda language: language.ui("column_diffusion_fits", model=diffusion.name,
                                               precision=language.ui(f"precision_{precision}")),
                  value, yes_no)


#: Columns about one model: id -> (factory, which dataset the model comes from, allowed precisions).
MODEL_COLUMNS: dict[str, tuple[Callable[[Dataset, str, str], Column], str, tuple[str, ...]]] = {
    "decode_upper_bound": (_decode_upper_bound, "llm_models", ("bf16", "fp8", "int4", "native")),
    "usd_per_million_tokens": (_usd_per_million_tokens, "llm_models", ("bf16", "fp8", "int4", "native")),
    "measured_usd_per_million_tokens": (_measured_usd_per_million_tokens, "llm_models", ("native",)),
    "diffusion_fits": (_diffusion_fits, "diffusion_models", ("bf16", "fp8")),
}
