"""Throughput bounds of a serving configuration: speeds no engine can beat on that hardware.

A roofline, stated once (the methodology page prints it):

- **Decoding.** One step produces a token for every sequence in flight. It reads the weights once
  (the active ones, for a mixture of experts) and the KV cache of every sequence, against the
  memory bandwidth of the GPUs that share the work; it computes 2 × active parameters per token,
  against the dense tensor throughput of the format's fastest path. The step takes at least the
  longer of the two; per-user speed ≤ 1 ÷ step, total ≤ users ÷ step.
- **Several GPUs.** Tensor parallelism (a fast link) adds their bandwidth and throughput; over PCIe
  the layers are split between GPUs (pipeline parallelism), and one request's token goes through
  them one after the other: one GPU's pace for each user.
- **Time to first token** for a prompt of the whole context: 2 × active parameters × prompt
  tokens against the tensor throughput (attention's own work is left out, so it stays a floor).
- **Price per million output tokens** at that load: the hourly price ÷ (total tokens/s × 3,600),
  a floor, since real servers reach part of the bound.

What each bound leaves out (kernel overheads, attention compute, scheduling, communication) only
lowers real speeds: a measured result never exceeds them (the tests check every measurement).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

from gpuguide.figures import engine_budget, serving
from gpuguide.figures.engine_budget import ProgramGpu, ServingGpu
from gpuguide.figures.expression import first, maximum, minimum, select, symbolic
from gpuguide.figures.serving import ModelShape, Workload
from gpuguide.figures.sizing import GB, Real, exact

SECONDS_PER_HOUR = 3600

#: Tensor-core precisions from the fastest down: a format may use its own path or any slower one.
TENSOR_PATHS = ("fp4", "fp8", "bf16")


def tensor_tflops(gpu: ServingGpu | ProgramGpu, compute: str) -> Any:
    """The dense throughput a format whose fastest path is ``compute`` gets on ``gpu``: that path,
    or the next slower one the GPU has (FP8 weights on an A100 run at its BF16 rate).

    >>> a100 = ServingGpu("a100-sxm", 80, 2039, {"bf16": 312})
    >>> tensor_tflops(a100, "fp8"), tensor_tflops(ServingGpu("h100", 80, 3350, {"bf16": 989, "fp8": 1979}), "fp4")
    (Fraction(312, 1), Fraction(1979, 1))
    """
    if isinstance(gpu, ProgramGpu):
        return gpu.tflops(compute)
    rates = gpu.rates
    for path in TENSOR_PATHS[TENSOR_PATHS.index(compute):]:
        if path in rates:
            return exact(rates[path])
    return None


def runs_natively(gpu: ServingGpu | ProgramGpu, shape: ModelShape, weights: str) -> Any:
    """Whether the GPU has the tensor cores the format is made for (FP8 weights on an FP8 GPU);
    otherwise an engine runs them weight-only, dequantized to 16 bits: memory is saved, not time.
    A weight-only format (AWQ, GPTQ, NF4) is what it says everywhere, and not flagged."""
    made_for = serving.weight_format(serving.format_of(shape, weights)).made_for
    if made_for in (None, "bf16"):
        return True
    return gpu.has(made_for) if isinstance(gpu, ProgramGpu) else made_for in gpu.rates


@dataclass(frozen=True)
class Bounds:
    """Upper bounds of decoding speed at one load, and the floor of the first token's time (numbers,
    or expressions of the planner's inputs)."""

    user_tokens_per_second: Any
    total_tokens_per_second: Any
    first_token_seconds: Any  # None: the tensor throughput is not published
    limited_by: Literal["memory", "compute"] | None  # None: not known until the inputs are

    @property
    def compute_bound(self) -> bool:
        return self.limited_by == "compute"


@dataclass(frozen=True)
class DecodeLoad:
    """What one decoding step of a workload asks of each configuration of ``gpu_count`` GPUs,
    whatever the GPU: the bytes it reads, the work it computes."""

    weights_read: Any  # the weights one step reads
    bytes_read: Any  # weights and every GPU's share of the KV cache, over all GPUs
    one_user_bytes_read: Any  # weights and one sequence's KV cache
    compute: str  # the format's fastest tensor path
    flops_per_token: int  # 2 × active parameters
    prompt_flops: Any  # a prompt of the whole context


@functools.lru_cache(maxsize=8192)
def decode_load(shape: ModelShape, workload: Workload, gpu_count: int) -> DecodeLoad:
    """The GPU-independent part of ``decode_bounds``, computed once for every GPU type a plan
    compares (a page's plans ask it of each of them)."""
    weights_read = serving.weights_read_per_token_bytes(shape, workload.weights)
    one_kv = serving.kv_cache_bytes(shape, workload.context_tokens, workload.kv_cache)
    all_kv = one_kv * workload.users
    # Every GPU reads its share of the weights and of the KV cache (a latent cache whole, on each).
    kv_read = all_kv * engine_budget.kv_share_per_gpu(shape, gpu_count) * gpu_count
    active = shape.active_parameters or shape.parameters
    compute = serving.weight_format(serving.format_of(shape, workload.weights)).compute
    prompt = serving.effective_context(shape, workload.context_tokens)
    return DecodeLoad(weights_read, weights_read + kv_read, weights_read + one_kv, compute, 2 * active,
                      Fraction(2 * active) * prompt)


def decode_bounds(shape: ModelShape, workload: Workload, gpu: ServingGpu | ProgramGpu, gpu_count: int,
                  fast_link: Any = True) -> Bounds | None:
    """The roofline of ``workload`` on ``gpu_count`` GPUs of ``gpu``; None without published bandwidth.

    >>> llama_8b = ModelShape(8_030_261_248, 32, 8, 128, 131_072, vocab_size=128_256, hidden_size=4096)
    >>> h100 = ServingGpu("h100-sxm", 80, 3350, {"bf16": 989, "fp8": 1979})
    >>> b = decode_bounds(llama_8b, Workload(8192, 1, "bf16"), h100, 1)
    >>> int(b.user_tokens_per_second), b.limited_by, round(float(b.first_token_seconds), 3)
    (208, 'memory', 0.133)
    """
    if gpu.bandwidth_gbs is None:
        return None
    load = decode_load(shape, workload, gpu_count)
    # A ``ProgramGpu``'s figures are inputs: the program takes both branches where a figure may be
    # missing, and the script the one that holds.
    program = isinstance(gpu, ProgramGpu)
    bandwidth = (gpu.bandwidth_gbs if isinstance(gpu, ProgramGpu) else exact(gpu.bandwidth_gbs)) * GB
    memory_total = gpu_count * bandwidth * workload.users / load.bytes_read
    rate = tensor_tflops(gpu, load.compute)
    compute_total = gpu_count * rate * 10**12 / load.flops_per_token if program or rate else None
    if isinstance(gpu, ProgramGpu):  # with a published throughput, the lower of the two
        total = select(gpu.rated(load.compute), [memory_total, minimum(memory_total, compute_total)])
    else:
        total = minimum(memory_total, compute_total) if compute_total is not None else memory_total
    user = total / workload.users
    if fast_link is not True and gpu_count > 1:
        # Layers split over PCIe: a user's token crosses every GPU in turn, one GPU's pace.
        split_user = minimum(user, bandwidth / load.one_user_bytes_read)
        split_total = minimum(total, split_user * workload.users)
        if symbolic(fast_link):
            linked = first([fast_link]) + 1  # 1: linked, 0: split
            user, total = select(linked, [split_user, user]), select(linked, [split_total, total])
        elif not fast_link:
            user, total = split_user, split_total
    first_token = None
    if program or rate:  # the program's is missing where the throughput is
        first_token = maximum(load.prompt_flops / (gpu_count * rate * 10**12),
                              load.weights_read / (gpu_count * bandwidth))
    limited_by: Literal["memory", "compute"] | None = None
    if not symbolic(memory_total):
        limited_by = "compute" if compute_total is not None and compute_total < memory_total else "memory"
    return Bounds(user, total, first_token, limited_by)


def usd_per_million_tokens(usd_per_hour: Any, total_tokens_per_second: Any) -> Any:
    """The floor of what a million output tokens cost: hourly price ÷ (tokens/s × 3,600) × 10⁶.

    >>> usd_per_million_tokens(Fraction(288, 100), 4000)
    Fraction(1, 5)
    """
    if usd_per_hour is None or total_tokens_per_second is None:
        return None
    if not symbolic(total_tokens_per_second) and not total_tokens_per_second:
        return None
    price = usd_per_hour if symbolic(usd_per_hour) else exact(usd_per_hour)  # the planner's input, or a figure
    return price * 10**6 / (total_tokens_per_second * SECONDS_PER_HOUR)


@functools.lru_cache(maxsize=8192)  # each measurement's bound, asked by every page that compares it
def offline_tokens_per_second_upper_bound(shape: ModelShape, weights: str, kv_cache: str, gpu: ServingGpu,
                                          gpu_count: int, input_tokens: Real,
                                          output_tokens: Real | None) -> Fraction | None:
    """The most output tokens per second ``gpu_count`` GPUs can produce on a batch job whose requests
    average ``input_tokens`` in and ``output_tokens`` out (MLPerf's Offline scenario; a Server run
    produces no more): the decode roofline at the largest batch the whole memory holds, each
    sequence caching at least its prompt and half its output, and no more than the tensor
    throughput allows for prompts and outputs together. An unknown length counts as 0 (1 token
    cached at least): the bound only grows. None when the bandwidth or the tensor throughput is not
    published, or the weights do not fit.

    >>> llama_70b = ModelShape(68_976_648_192, 80, 8, 128, 4096, vocab_size=32_000, hidden_size=8192)
    >>> h100 = ServingGpu("h100-sxm", 80, 3350, {"bf16": 989, "fp8": 1979})
    >>> int(offline_tokens_per_second_upper_bound(llama_70b, "fp8", "fp8", h100, 8, 1024, 1024))
    57381
    """
    if gpu.bandwidth_gbs is None:
        return None
    kv_room = gpu.runtime_memory_bytes * gpu_count - serving.weights_bytes(shape, weights)
    if kv_room <= 0:
        return None
    cached = max(math.floor(exact(input_tokens) + exact(output_tokens or 0) / 2), 1)
    per_sequence = serving.kv_cache_bytes(shape, cached, kv_cache) * engine_budget.kv_share_per_gpu(shape, gpu_count) * gpu_count
    sequences = kv_room / per_sequence
    weights_read = serving.weights_read_per_token_bytes(shape, weights)
    memory_bound = gpu_count * exact(gpu.bandwidth_gbs) * GB * sequences / (weights_read + kv_room)
    rate = tensor_tflops(gpu, serving.weight_format(serving.format_of(shape, weights)).compute)
    if rate is None:
        # At the largest batch the memory holds, compute is what stops a batch job; without a
        # published tensor throughput the memory roofline alone is no bound worth printing
        # (Llama 3.1 8B on RTX PRO 6000s: 200 million tokens/s).
        return None
    active = shape.active_parameters or shape.parameters
    prompt_share = exact(input_tokens) / exact(output_tokens) if output_tokens else Fraction(0)
    compute_bound = gpu_count * rate * 10**12 / (2 * active * (1 + prompt_share))
    return min(memory_bound, compute_bound)
