"""What the memory model reads of the data: a model's shape, a GPU's spec and offer, its throughputs.

The sizing functions take plain values (``serving.ModelShape``, ``sizing.GpuSpec``); these build
them from the validated records, so ``structure`` never depends on ``figures``.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any, Callable, Mapping, TypeVar

from gpuguide.figures import sizing
from gpuguide.figures.engine_budget import ServingGpu
from gpuguide.figures.serving import ModelShape
from gpuguide.structure.gpu_specs import Gpu
from gpuguide.structure.model_specs import LlmModel
from gpuguide.structure.prices import Price

R = TypeVar("R")


_ABSENT = object()


def by_records(function: Callable[..., R]) -> Callable[..., R]:
    """``function`` of one or two validated records (frozen, never edited in place), memoised on
    the records' identity: the pages ask for a model's shape and a GPU's serving figures thousands
    of times per build (a shape made again: 6 µs; found here: 0.5 µs). Each entry keeps its records
    alive, so no other object can take their ids while it lives; the memo is emptied past 4,096
    entries (the dev server loads new records at each data edit)."""
    memo: dict[tuple[int, int], tuple[tuple[Any, Any], R]] = {}

    @functools.wraps(function)
    def memoised(record: Any, other: Any = _ABSENT) -> R:
        key = (id(record), id(other))
        found = memo.get(key)
        if found is not None:
            return found[1]
        if len(memo) > 4096:
            memo.clear()
        made = function(record) if other is _ABSENT else function(record, other)
        memo[key] = ((record, other), made)
        return made
    return memoised


@by_records
def model_shape(llm: LlmModel) -> ModelShape:
    """What the serving model needs of a language model."""
    native = llm.native_precision
    return ModelShape(
        llm.parameters, llm.layers, llm.kv_heads, llm.head_dim, llm.max_context_tokens, llm.active_parameters,
        llm.kv_compressed_dim, llm.window_tokens, llm.window_layers or 0,
        native.format if native else None, native.quantized_parameters if native else None,
        llm.attention_heads, llm.vocab_size, llm.hidden_size, llm.tied_embeddings)


@by_records
def serving_gpu(gpu: Gpu, price: Price | None) -> ServingGpu:
    """What the throughput bounds need of a GPU type: its dense tensor rates per path it has."""
    rates = {path: value for path, value in (("bf16", gpu.bf16_tflops), ("fp8", gpu.fp8_tflops),
                                             ("fp4", gpu.fp4_tflops))
             if isinstance(value, (int, float))}
    return ServingGpu(gpu.id, gpu.memory_gb, gpu.bandwidth_gbs, rates, gpu.interconnect.gpus,
                      price.usd_per_gpu_hour if price else None, gpu.runtime_memory_gib)


def serving_gpus(gpus: Mapping[str, Gpu], prices: Mapping[str, Price]) -> list[ServingGpu]:
    """Every GPU type with its offer, in file order."""
    return [serving_gpu(gpu, prices.get(gpu_id)) for gpu_id, gpu in gpus.items()]


def gpu_spec(gpu: Gpu, price: Price | None) -> sizing.GpuSpec:
    """What the memory model needs of a GPU type and its live offer."""
    return sizing.GpuSpec(gpu.id, gpu.memory_gb, gpu.bandwidth_gbs, gpu.interconnect.gpus,
                          price.usd_per_gpu_hour if price else None)


def gpu_specs(gpus: Mapping[str, Gpu], prices: Mapping[str, Price]) -> list[sizing.GpuSpec]:
    """Every GPU type with its offer, in file order (a page that lists them all reads them all)."""
    return [gpu_spec(gpu, prices.get(gpu_id)) for gpu_id, gpu in gpus.items()]


def throughput(gpu: Gpu, field: str) -> float | Fraction | sizing.Absent | None:
    """A throughput field as sizing reads it: a number, ``NOT_SUPPORTED``, or None (not published).

    FP64 given only as a share of FP32 (``fp64_ratio_of_fp32``) is that share of the FP32 figure.
    """
    value = getattr(gpu, field)
    if value == "not supported":
        return sizing.NOT_SUPPORTED
    if field == "fp64_tflops" and gpu.fp64_is_derived and gpu.fp32_tflops:
        return sizing.exact(gpu.fp32_tflops) * Fraction(gpu.fp64_ratio_of_fp32 or "0")
    return value
