"""What the memory model reads of the data: a model's shape, a GPU's spec and offer, its throughputs.

The sizing functions take plain values (``serving.ModelShape``, ``sizing.GpuSpec``); these build
them from the validated records, so ``structure`` never depends on ``figures``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping

from gpuguide.figures import sizing
from gpuguide.figures.engine_budget import ServingGpu
from gpuguide.figures.serving import ModelShape
from gpuguide.structure.gpu_specs import Gpu
from gpuguide.structure.model_specs import LlmModel
from gpuguide.structure.prices import Price


def model_shape(llm: LlmModel) -> ModelShape:
    """What the serving model needs of a language model."""
    native = llm.native_precision
    return ModelShape(
        llm.parameters, llm.layers, llm.kv_heads, llm.head_dim, llm.max_context_tokens, llm.active_parameters,
        llm.kv_compressed_dim, llm.window_tokens, llm.window_layers or 0,
        native.format if native else None, native.quantized_parameters if native else None,
        llm.attention_heads, llm.vocab_size, llm.hidden_size, llm.tied_embeddings)


#: ``serving_gpu``'s answers by the identity of its records (kept with them, so that an id is not
#: reused while its entry lives): the pages ask for every GPU's thousands of times per build, and
#: making them again was 0.15 ms for the 20 GPUs, a third of a second per price edit.
_SERVING: dict[tuple[int, int], tuple[Gpu, Price | None, ServingGpu]] = {}


def serving_gpu(gpu: Gpu, price: Price | None) -> ServingGpu:
    """What the throughput bounds need of a GPU type: its dense tensor rates per path it has."""
    found = _SERVING.get((id(gpu), id(price)))
    if found is not None and found[0] is gpu and found[1] is price:
        return found[2]
    if len(_SERVING) > 4096:  # the dev server loads new records at each data edit
        _SERVING.clear()
    made = _serving_gpu(gpu, price)
    _SERVING[(id(gpu), id(price))] = (gpu, price, made)
    return made


def _serving_gpu(gpu: Gpu, price: Price | None) -> ServingGpu:
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
