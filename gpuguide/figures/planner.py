"""The serving planner: for a workload, each GPU type's smallest configuration that holds it, its
bounds and price, the launch settings an engine needs, and why the other GPU types lose.

Pure functions over ``serving`` (memory) and ``roofline`` (speed): the model pages' tables, the
GPU pages' reverse view and the planner's precomputed grid all come from ``plan_gpu``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from collections.abc import Iterable
from typing import Literal

from gpuguide.figures import roofline, serving
from gpuguide.figures.roofline import Bounds
from gpuguide.figures.serving import ModelShape, ServingGpu, Workload
from gpuguide.figures.sizing import Real, exact

#: Why a GPU type is not the one to rent: it cannot hold the workload within 8 GPUs (``memory``),
#: only with more GPUs than share a fast link (``fast_link``), its bound is below the per-user
#: speed asked for (``speed``), or it has no live offer (``no_offer``).
Reason = Literal["memory", "fast_link", "speed", "no_offer"]
REASONS: tuple[Reason, ...] = ("no_offer", "speed", "fast_link", "memory")


@dataclass(frozen=True)
class Plan:
    """One GPU type's answer to a workload."""

    gpu_id: str
    gpu_count: int | None  # the smallest configuration shown; None: none within 8 GPUs holds it
    reason: Reason | None  # None: a configuration to rent
    memory_per_gpu_bytes: Fraction  # what each GPU holds (at 8 GPUs when nothing fits)
    budget_per_gpu_bytes: Fraction
    bounds: Bounds | None  # None: bandwidth not published, or nothing fits
    usd_per_hour: Fraction | None  # the configuration's price; None: no offer
    usd_per_million_tokens: Fraction | None
    native: bool  # the GPU has the format's tensor path (else weight-only: no speed-up)

    @property
    def rentable(self) -> bool:
        return self.reason is None


def _counts(shape: ModelShape) -> list[int]:
    return [count for count in serving.GPU_COUNTS if serving.tensor_parallel_allowed(shape, count)]


def plan_gpu(shape: ModelShape, workload: Workload, gpu: ServingGpu,
             min_user_tokens_per_second: Real | None = None) -> Plan:
    """The fewest GPUs of ``gpu``'s type, within its fast-link group, that hold ``workload`` (and
    whose per-user bound reaches ``min_user_tokens_per_second``, when given).

    >>> llama_8b = ModelShape(8_030_261_248, 32, 8, 128, 131_072, attention_heads=32, vocab_size=128_256,
    ...                       hidden_size=4096)
    >>> l4 = ServingGpu("l4", 24, 300, {"bf16": 121, "fp8": 242.5}, 1, None)
    >>> p = plan_gpu(llama_8b, Workload(8192, 1, "bf16"), l4)
    >>> p.gpu_count, p.reason, int(p.bounds.user_tokens_per_second)
    (1, 'no_offer', 18)
    >>> plan_gpu(llama_8b, Workload(32_768, 10, "bf16"), l4).reason  # 43 GB of KV cache: one L4 cannot
    'fast_link'
    """
    budget = gpu.engine_budget_bytes
    counts = _counts(shape)
    fitting = [n for n in counts if serving.memory_per_gpu_bytes(shape, workload, n) <= budget]
    native = roofline.runs_natively(gpu, shape, workload.weights)
    if not fitting:
        largest = counts[-1]
        return Plan(gpu.id, None, "memory", serving.memory_per_gpu_bytes(shape, workload, largest), budget,
                    None, None, None, native)
    linked = [n for n in fitting if n == 1 or n <= gpu.fast_link_gpus]
    if not linked:
        count = fitting[0]
        return _plan(shape, workload, gpu, count, "fast_link", budget, native, fast_link=False)
    if min_user_tokens_per_second is not None:
        target = exact(min_user_tokens_per_second)
        fast = [n for n in linked if (b := roofline.decode_bounds(shape, workload, gpu, n)) is not None
                and b.user_tokens_per_second >= target]
        if not fast:
            return _plan(shape, workload, gpu, linked[-1], "speed", budget, native)
        linked = fast
    return _plan(shape, workload, gpu, linked[0], None if gpu.usd_per_gpu_hour is not None else "no_offer",
                 budget, native)


def _plan(shape: ModelShape, workload: Workload, gpu: ServingGpu, count: int, reason: Reason | None,
          budget: Fraction, native: bool, fast_link: bool = True) -> Plan:
    bounds = roofline.decode_bounds(shape, workload, gpu, count, fast_link)
    price = exact(gpu.usd_per_gpu_hour) * count if gpu.usd_per_gpu_hour is not None else None
    per_million = roofline.usd_per_million_tokens(price, bounds.total_tokens_per_second if bounds else None)
    return Plan(gpu.id, count, reason, serving.memory_per_gpu_bytes(shape, workload, count), budget, bounds,
                price, per_million, native)


def plans(shape: ModelShape, workload: Workload, gpus: Iterable[ServingGpu],
          min_user_tokens_per_second: Real | None = None) -> list[Plan]:
    """Every GPU type's plan, the cheapest rentable first (by hourly price, then price per million
    tokens, fewer GPUs, more bandwidth, the id), then those without an offer, then the ones that
    lose on speed, on the fast link, on memory.

    >>> llama_8b = ModelShape(8_030_261_248, 32, 8, 128, 131_072, attention_heads=32, vocab_size=128_256,
    ...                       hidden_size=4096)
    >>> gpus = [ServingGpu("h100-sxm", 80, 3350, {"bf16": 989}, 8, 2.88), ServingGpu("a100-sxm", 80, 2039, {"bf16": 312}, 8, 1.79)]
    >>> [(p.gpu_id, p.gpu_count) for p in plans(llama_8b, Workload(8192, 1, "bf16"), gpus)]
    [('a100-sxm', 1), ('h100-sxm', 1)]
    """
    by_id = {gpu.id: gpu for gpu in gpus}
    found = [plan_gpu(shape, workload, gpu, min_user_tokens_per_second) for gpu in by_id.values()]

    def key(plan: Plan) -> tuple:
        gpu = by_id[plan.gpu_id]
        bandwidth = -exact(gpu.bandwidth_gbs) if gpu.bandwidth_gbs is not None else Fraction(0)
        group = 0 if plan.reason is None else 1 + REASONS.index(plan.reason)
        per_million = plan.usd_per_million_tokens if plan.usd_per_million_tokens is not None else Fraction(10**9)
        return (group, plan.usd_per_hour or 0, per_million, plan.gpu_count or 99, bandwidth, plan.gpu_id)

    return sorted(found, key=key)


def cheapest(found: list[Plan]) -> Plan | None:
    """The configuration to rent: the first rentable plan, if any."""
    return next((plan for plan in found if plan.rentable), None)


# --- Launch settings -----------------------------------------------------------------------------

#: The vLLM arguments a configuration states, in the order its command line gives them.
VLLM_ARGUMENTS = ("--tensor-parallel-size", "--max-model-len", "--kv-cache-dtype", "--gpu-memory-utilization",
                  "--max-num-seqs")


def vllm_arguments(shape: ModelShape, workload: Workload, gpu_count: int) -> tuple[tuple[str, str], ...]:
    """The vLLM settings that start this configuration as it was sized: the GPUs it splits over, the
    context and sequences its KV cache was sized for, its cache format, the memory share the
    budget counted on; ``--quantization fp8`` quantizes a 16-bit checkpoint when it loads.

    >>> shape = ModelShape(70_553_706_496, 80, 8, 128, 131_072, attention_heads=64)
    >>> vllm_arguments(shape, Workload(32_768, 10, "fp8", "fp8"), 2)  # doctest: +NORMALIZE_WHITESPACE
    (('--tensor-parallel-size', '2'), ('--max-model-len', '32768'), ('--kv-cache-dtype', 'fp8'),
     ('--gpu-memory-utilization', '0.9'), ('--max-num-seqs', '10'), ('--quantization', 'fp8'))
    """
    share = serving.ENGINE_MEMORY_SHARE
    arguments: list[tuple[str, str]] = [
        ("--tensor-parallel-size", str(gpu_count)),
        ("--max-model-len", str(serving.effective_context(shape, workload.context_tokens))),
        ("--kv-cache-dtype", "fp8" if workload.kv_cache == "fp8" else "auto"),
        ("--gpu-memory-utilization", str(share.numerator / share.denominator)),
        ("--max-num-seqs", str(workload.users)),
    ]
    if serving.format_of(shape, workload.weights) == "fp8" and shape.native_format != "fp8":
        arguments.append(("--quantization", "fp8"))
    return tuple(arguments)
