"""What an inference engine can hold: the budget of one GPU, how tensor parallelism splits a model
across GPUs, and whether a workload fits. Pure functions, exact arithmetic.

The model, stated once (the methodology page prints it from these constants):

- **Budget.** An engine plans on a share of the memory the runtime reports, not of the vendor's
  figure in 10⁹ bytes: GPU memory comes in binary units (an "80 GB" H100 has 80 GiB), the driver
  keeps a little of it (``ServingGpu.runtime_memory_bytes``), vLLM takes ``ENGINE_MEMORY_SHARE``
  (90 %) of what is left (``--gpu-memory-utilization``), and from that share come its own fixed
  costs (``ENGINE_OVERHEAD_BYTES``: the CUDA or ROCm context, activations of the largest batch,
  CUDA graphs). What remains holds the weights and the KV cache (``serving``). (Training keeps its
  own, more conservative rule in ``sizing``: 80 % of the vendor's figure.)
- **Several GPUs** split a model by tensor parallelism, within one fast-link group: the weights
  divide, the KV cache divides by KV heads (a rank keeps at least one head; a latent cache is kept
  whole on every rank).

Sizes are in bytes (exact ``Fraction``) or parameters (``int``).
"""

from __future__ import annotations

import functools

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from gpuguide.figures.expression import Expr, at_most, var
from gpuguide.figures.serving import KV_CACHE_BYTES, ModelShape, Workload, kv_cache_bytes, weight_format, weights_bytes
from gpuguide.figures.sizing import Constant, Real, exact

GIB = 2**30

#: GPU memory is built in binary units: ROCm's GPU table lists the MI300X at 192 GiB, nvidia-smi
#: shows an "80 GB" A100 with 81,920 MiB. Where the runtime's own total is on record (a GPU's
#: ``runtime_memory_gib``: 81,559 MiB for an H100, 46,068 MiB for an L40S with ECC on), the budget
#: starts from it; otherwise from the vendor's figure read in GiB.
RUNTIME_MEMORY_SOURCE = "https://github.com/modal-labs/modal-client/pull/2797"

#: vLLM's ``--gpu-memory-utilization`` as the launch settings state it: the share of the reported
#: memory the engine may use (its default was 0.9 for years; recent releases take 0.92).
ENGINE_MEMORY_SHARE = Fraction(9, 10)
ENGINE_MEMORY_SHARE_SOURCE = "https://docs.vllm.ai/en/latest/configuration/engine_args.html"

#: What the engine spends of its share before the KV cache, besides the weights: vLLM's memory
#: profile of Llama 3 8B on an 80 GB GPU logs 1.79 GiB of non-PyTorch memory (CUDA context,
#: NCCL) and a 1.26 GiB activation peak: 3 GiB per GPU.
ENGINE_OVERHEAD_BYTES = 3 * GIB
ENGINE_OVERHEAD_SOURCE = "https://github.com/vllm-project/vllm/pull/10511"

#: The GPU counts of a serving configuration: tensor parallelism splits attention heads evenly.
GPU_COUNTS = (1, 2, 4, 8)


@dataclass(frozen=True)
class ServingGpu:
    """What serving figures need of a GPU type and its offer."""

    id: str
    memory_gb: Real
    bandwidth_gbs: Real | None = None  # None: not published
    # Dense TFLOPS per tensor path it has and its vendor publishes ("bf16", "fp8", "fp4"); kept as
    # sorted pairs, so that a GPU hashes and the plans of a build are computed once for all languages.
    tensor_tflops: Mapping[str, Real] | tuple[tuple[str, Real], ...] = ()
    fast_link_gpus: int = 1
    # None: no live offer; an expression in the planner's program, which reads prices as inputs.
    usd_per_gpu_hour: Real | Expr | None = None
    runtime_memory_gib: Real | None = None  # the total the runtime reports, where on record

    def __post_init__(self) -> None:
        if not isinstance(self.tensor_tflops, tuple):
            object.__setattr__(self, "tensor_tflops", tuple(sorted(self.tensor_tflops.items())))

    @property
    def rates(self) -> dict[str, Real]:
        """Dense TFLOPS by tensor path."""
        return dict(self.tensor_tflops)

    @functools.cached_property  # asked for by every plan of the GPU: computed once (as the budget)
    def runtime_memory_bytes(self) -> Fraction:
        """The memory the runtime reports: its recorded total, or the vendor's figure read in GiB.

        >>> ServingGpu("h100-sxm", 80, runtime_memory_gib=Fraction(81_559, 1024)).runtime_memory_bytes / GIB
        Fraction(81559, 1024)
        """
        return exact(self.runtime_memory_gib if self.runtime_memory_gib is not None else self.memory_gb) * GIB

    @functools.cached_property
    def engine_budget_bytes(self) -> Fraction:
        """What one GPU holds of weights and KV cache when an engine serves: the reported memory ×
        90 %, less the engine's fixed costs.

        >>> round(float(ServingGpu("a100-sxm", 80).engine_budget_bytes) / GIB, 2)
        69.0
        """
        return self.runtime_memory_bytes * ENGINE_MEMORY_SHARE - ENGINE_OVERHEAD_BYTES


class ProgramGpu:
    """A GPU type as the planner's program reads it: each of its figures an input
    (``planner_program.gpu_inputs`` gives a GPU type's values), so that one program answers for
    every GPU type, and a GPU's figures or price edited leave the programs as they were. A figure
    that is not published is a missing input (the script's null); the flags beside them
    (``offer``, ``rated:<path>``, 0 or 1) say which, where the answer takes another branch for it."""

    fast_link_gpus = var("link")
    usd_per_gpu_hour = var("price")
    bandwidth_gbs = var("bandwidth")
    engine_budget_bytes = var("budget")
    offered = var("offer")  # 1: a live offer (``price`` is its hourly price), 0: none
    priced = var("priced")  # 1: a live offer and a published bandwidth: a price per million to sort on
    sort_bandwidth = var("sort_bandwidth")  # the bandwidth, 0 when not published
    order = var("order")  # its place in the data

    @staticmethod
    def tflops(compute: str) -> Expr:
        """The dense throughput a format whose fastest path is ``compute`` gets (``roofline.tensor_tflops``)."""
        return var(f"tflops:{compute}")

    @staticmethod
    def rated(compute: str) -> Expr:
        """1 when ``tflops(compute)`` is published, else 0."""
        return var(f"rated:{compute}")

    @staticmethod
    def has(path: str) -> Expr:
        """Whether the GPU has the tensor cores of ``path`` (``roofline.runs_natively``)."""
        return at_most(1, var(f"has:{path}"))


def tensor_parallel_allowed(shape: ModelShape, gpu_count: int) -> bool:
    """Whether ``gpu_count`` GPUs can split the model: the count divides the attention heads, and
    the KV heads divide evenly among them (or each is replicated evenly).

    >>> qwen_7b = ModelShape(7_620_000_000, 28, 4, 128, 131_072, attention_heads=28)
    >>> [tensor_parallel_allowed(qwen_7b, n) for n in (1, 2, 4, 8)]
    [True, True, True, False]
    """
    if gpu_count == 1:
        return True
    heads = shape.attention_heads or shape.kv_heads
    if heads % gpu_count:
        return False
    if shape.kv_compressed_dim is not None:
        return True
    return shape.kv_heads % gpu_count == 0 or gpu_count % shape.kv_heads == 0


def kv_share_per_gpu(shape: ModelShape, gpu_count: int) -> Fraction:
    """The share of the whole KV cache each of ``gpu_count`` GPUs keeps.

    >>> [kv_share_per_gpu(ModelShape(1, 1, 8, 128, 1), n) for n in (1, 4, 16)]
    [Fraction(1, 1), Fraction(1, 4), Fraction(1, 8)]
    """
    if shape.kv_compressed_dim is not None:
        return Fraction(1)  # one latent per token, not per head: every rank keeps it whole
    return Fraction(max(shape.kv_heads // gpu_count, 1), shape.kv_heads)


def memory_per_gpu_bytes(shape: ModelShape, workload: Workload, gpu_count: int) -> Any:
    """Weights and KV cache one of ``gpu_count`` GPUs holds for ``workload`` (tensor parallelism).

    >>> llama_70b = ModelShape(70_553_706_496, 80, 8, 128, 131_072, vocab_size=128_256, hidden_size=8192)
    >>> round(float(memory_per_gpu_bytes(llama_70b, Workload(32_768, 10, "fp8"), 1)) / 1e9, 1)  # 72.6 + 107.4 GB
    180.0
    """
    weights = weights_bytes(shape, workload.weights) / gpu_count
    kv = kv_cache_bytes(shape, workload.context_tokens, workload.kv_cache, workload.users)
    return weights + kv * kv_share_per_gpu(shape, gpu_count)


def fits_engine(shape: ModelShape, workload: Workload, gpu: ServingGpu, gpu_count: int) -> bool:
    """Whether ``gpu_count`` GPUs of ``gpu``'s type hold ``workload`` within the engine's budget."""
    return memory_per_gpu_bytes(shape, workload, gpu_count) <= gpu.engine_budget_bytes


def serving_capacity_params(gpu: ServingGpu, weights: str, gpu_count: int = 1) -> int:
    """Largest model whose weights in ``weights`` fit the engine budget of ``gpu_count`` GPUs, before
    any KV cache (which comes on top).

    >>> [serving_capacity_params(ServingGpu("a100-sxm", 80), f) // 10**9 for f in ("bf16", "fp8", "int4")]
    [37, 74, 142]
    """
    return math.floor(gpu.engine_budget_bytes * gpu_count / (weight_format(weights).bits_per_weight / 8))


#: Every constant of the serving model, in the order the methodology page lists them.
CONSTANTS: tuple[Constant, ...] = (
    Constant("runtime_memory", 1, "rule", RUNTIME_MEMORY_SOURCE,
             "nvidia-smi totals of each GPU type (Modal, modal-client pull request 2797)"),
    Constant("engine_memory_share", ENGINE_MEMORY_SHARE, "share", ENGINE_MEMORY_SHARE_SOURCE,
             "vLLM engine arguments, --gpu-memory-utilization"),
    Constant("engine_overhead", Fraction(ENGINE_OVERHEAD_BYTES, GIB), "gib", ENGINE_OVERHEAD_SOURCE,
             "vLLM pull request 10511, memory profile of Llama 3 8B"),
    Constant("kv_cache_bf16", KV_CACHE_BYTES["bf16"], "bytes", "https://arxiv.org/abs/2309.06180",
             "vLLM / PagedAttention (Kwon et al., SOSP 2023), section 2"),
    Constant("kv_cache_fp8", KV_CACHE_BYTES["fp8"], "bytes",
             "https://docs.vllm.ai/en/latest/features/quantization/quantized_kvcache.html",
             "vLLM documentation, quantized KV cache"),
)
