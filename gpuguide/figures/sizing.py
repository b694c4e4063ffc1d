"""Sizing: the training memory model, capacities, the smallest and the cheapest configurations that
hold a need, and whether a diffusion model fits; with the vocabulary every figure uses (``exact``,
``Absent``). Pure functions, exact arithmetic. (Rounding for display is in ``rounding``; the other
figures computed from GPU specifications, in ``spec_figures``.)

The training model, stated once (the methodology page prints it, from these constants):

- **Budget.** A training job plans on ``USABLE_MEMORY_SHARE`` (80 %) of each GPU's memory as its
  vendor states it (10⁹ bytes): the reference page's conservative rule, which leaves the rest to the
  runtime, the allocator and the activations of moderate batches. With several GPUs the budgets add
  up (the model's states are sharded across them). Serving has its own budget, the one inference
  engines allocate (``engine_budget``).
- **Need.** Parameters × bytes per parameter of the method (``TRAINING_BYTES_PER_PARAM``: full
  training, LoRA, QLoRA).
- **Capacity.** The largest model a configuration trains is budget × N ÷ bytes per parameter,
  rounded down to a readable figure (``rounding.round_down_readable``).

Units: memory in GB as vendors count it (10⁹ bytes); sizes in bytes (``Fraction``) or parameters
(``int``). All arithmetic is exact: a capacity that lands exactly on a rounding boundary must fall
on the right side of it, which binary floats cannot promise.

A figure the vendor does not publish is ``None`` and gives ``None`` ("not published"); a feature the
GPU does not have is ``NOT_SUPPORTED`` ("not supported"): the two are never confused.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass
from fractions import Fraction
from decimal import Decimal
from typing import Iterable, Literal

GB = 10**9

#: A figure as the data gives it (YAML numbers) or as sizing computes it (exact fractions).
Real = int | float | Fraction | Decimal


class Absent(enum.Enum):
    """Why a figure is missing, when it is not simply unpublished (``None``)."""

    NOT_SUPPORTED = "not_supported"  # the GPU lacks the feature (no FP8 tensor cores, no RT cores)
    NO_OFFER = "no_offer"  # a price-based figure for a GPU without a live offer
    DOES_NOT_FIT = "does_not_fit"  # a figure about a model the GPU cannot hold (a decode ceiling)
    NOT_MEASURED = "not_measured"  # no published measurement of that model on that GPU


NOT_SUPPORTED = Absent.NOT_SUPPORTED
NO_OFFER = Absent.NO_OFFER
DOES_NOT_FIT = Absent.DOES_NOT_FIT
NOT_MEASURED = Absent.NOT_MEASURED

#: Share of GPU memory a workload may plan on (the reference page's 80 %).
USABLE_MEMORY_SHARE = Fraction(4, 5)

#: GPU counts of a configuration: powers of two, as tensor parallelism splits attention heads evenly.
GPU_COUNTS = (1, 2, 4, 8)

#: Mixed-precision training with Adam: BF16 weights (2) and gradients (2), FP32 master weights (4)
#: and Adam's two moments (4 + 4) = 16 bytes per parameter, activations excluded.
#: Source: Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
#: Models", SC 2020, section 3.1 (https://arxiv.org/abs/1910.02054): "16Ψ bytes", 120 GB for 7.5B.
FULL_TRAINING_BYTES_PER_PARAM = 16

#: LoRA: frozen BF16 weights (2 bytes) plus the low-rank adapters with their gradients and Adam
#: states, taken as 10 % of the weights' memory (0.2 byte per parameter): 2.2 bytes per parameter.
#: Source: Hu et al., "LoRA: Low-Rank Adaptation of Large Language Models", ICLR 2022, section 4
#: (https://arxiv.org/abs/2106.09685): only the low-rank matrices are trained.
LORA_BYTES_PER_PARAM = Fraction(11, 5)

#: QLoRA: 4-bit NormalFloat weights with double quantisation (4.127 bits, 0.516 byte per parameter)
#: plus BF16 adapters, their optimizer states and paged buffers: 0.65 byte per parameter.
#: Source: Dettmers et al., "QLoRA: Efficient Finetuning of Quantized LLMs", NeurIPS 2023, sections 3
#: and 4 (https://arxiv.org/abs/2305.14314): a 65B model fine-tuned on one 48 GB GPU.
QLORA_BYTES_PER_PARAM = Fraction(13, 20)

Method = Literal["full", "lora", "qlora"]

#: Bytes per parameter of each fine-tuning method, weights and optimizer states, activations excluded.
TRAINING_BYTES_PER_PARAM: dict[str, Fraction] = {
    "full": Fraction(FULL_TRAINING_BYTES_PER_PARAM), "lora": LORA_BYTES_PER_PARAM, "qlora": QLORA_BYTES_PER_PARAM}


@dataclass(frozen=True)
class Constant:
    """One assumption of the memory model, as the methodology page states it."""

    key: str  # names its UI label: ``constant_<key>``
    value: Fraction | int  # for a ``rule``, unused: the page words it (``constant_<key>_value``)
    unit: Literal["share", "bytes_per_param", "bytes", "tokens", "bits", "gib", "rule"]
    source: str | None  # the document it comes from; None: a rule of this site, explained on the page
    source_title: str | None = None


#: Every constant of the training model, in the order the methodology page lists them.
CONSTANTS: tuple[Constant, ...] = (
    Constant("usable_memory_share", USABLE_MEMORY_SHARE, "share", None),
    Constant("full_training", FULL_TRAINING_BYTES_PER_PARAM, "bytes_per_param",
             "https://arxiv.org/abs/1910.02054", "ZeRO (Rajbhandari et al., SC 2020), section 3.1"),
    Constant("lora", LORA_BYTES_PER_PARAM, "bytes_per_param",
             "https://arxiv.org/abs/2106.09685", "LoRA (Hu et al., ICLR 2022), section 4"),
    Constant("qlora", QLORA_BYTES_PER_PARAM, "bytes_per_param",
             "https://arxiv.org/abs/2305.14314", "QLoRA (Dettmers et al., NeurIPS 2023), sections 3 and 4"),
)


def exact(value: Real | str) -> Fraction:
    """A spec value as an exact fraction: ``exact(141.0) == Fraction(141)``, ``exact(0.1) == Fraction(1, 10)``.

    Going through ``str`` keeps the decimal the editor wrote, not its binary approximation.

    >>> exact(0.1)
    Fraction(1, 10)
    """
    if isinstance(value, Fraction):
        return value
    return _exact_float(value) if isinstance(value, float) else Fraction(value)


@functools.lru_cache(maxsize=65536)
def _exact_float(value: float) -> Fraction:
    # Spec values repeat on every page: parse each one once (Fractions are immutable).
    return Fraction(str(value))


# --- Budget and capacity -------------------------------------------------------------------------

def usable_memory_bytes(memory_gb: Real, gpu_count: int = 1) -> Fraction:
    """Bytes a workload may plan on across ``gpu_count`` GPUs: memory × 10⁹ × 80 % × count.

    >>> usable_memory_bytes(80)
    Fraction(64000000000, 1)
    """
    if gpu_count < 1:
        raise ValueError("gpu_count must be at least 1")
    return exact(memory_gb) * GB * USABLE_MEMORY_SHARE * gpu_count


def capacity_params(memory_gb: Real | None, bytes_per_param: Real, gpu_count: int = 1) -> int | None:
    """Largest model (whole parameters, unrounded) whose state fits in the budget of ``gpu_count`` GPUs.

    ⌊memory × 10⁹ × 80 % × count ÷ bytes per parameter⌋. None when memory is not published.

    >>> capacity_params(80, 16), capacity_params(80, 16, 8)
    (4000000000, 32000000000)
    """
    if memory_gb is None:
        return None
    return int(usable_memory_bytes(memory_gb, gpu_count) // exact(bytes_per_param))


def training_capacity_params(memory_gb: Real | None, method: Method, gpu_count: int = 1) -> int | None:
    """Largest model that trains with ``method`` (full, lora, qlora) on ``gpu_count`` GPUs, unrounded.

    Full training: 16 bytes per parameter (ZeRO); with several GPUs the model states are sharded
    across them (FSDP, ZeRO-3). LoRA: 2.2; QLoRA: 0.65. Activations excluded.

    >>> [training_capacity_params(24, m) // 10**6 for m in ("full", "lora", "qlora")]
    [1200, 8727, 29538]
    """
    return capacity_params(memory_gb, TRAINING_BYTES_PER_PARAM[method], gpu_count)


# --- Training ------------------------------------------------------------------------------------

def training_memory_bytes(parameters: int, method: Method) -> Fraction:
    """Memory to train ``parameters`` with ``method``: parameters × bytes per parameter, activations excluded.

    >>> training_memory_bytes(7_500_000_000, "full") / GB  # ZeRO's worked example: 120 GB
    Fraction(120, 1)
    """
    return parameters * TRAINING_BYTES_PER_PARAM[method]


# --- Configurations ------------------------------------------------------------------------------

@dataclass(frozen=True)
class GpuSpec:
    """What the memory model needs of a GPU type and its offer."""

    id: str
    memory_gb: Real
    bandwidth_gbs: Real | None = None
    fast_link_gpus: int = 1  # how many of them share a fast link (NVLink, Infinity Fabric); 1: PCIe only
    usd_per_gpu_hour: Real | None = None  # best live offer; None: no offer


@dataclass(frozen=True)
class Configuration:
    """``gpu_count`` GPUs of type ``gpu_id``; ``usd_per_hour`` in total, None without a live offer."""

    gpu_id: str
    gpu_count: int
    usd_per_hour: Fraction | None
    fast_link: bool  # the GPUs share a fast link (always true for one GPU)


def fits(need_bytes: Real, memory_gb: Real, gpu_count: int = 1) -> bool:
    """Whether ``need_bytes`` fits in the budget of ``gpu_count`` GPUs of ``memory_gb``.

    >>> fits(64 * GB, 80), fits(64 * GB + 1, 80)
    (True, False)
    """
    return exact(need_bytes) <= usable_memory_bytes(memory_gb, gpu_count)


def smallest_configuration(need_bytes: Real, gpu: GpuSpec, gpu_counts: Iterable[int] = GPU_COUNTS,
                           fast_link_only: bool = False) -> Configuration | None:
    """The fewest GPUs of ``gpu``'s type whose budgets hold ``need_bytes``; None if none of ``gpu_counts`` do.

    With ``fast_link_only``, only counts whose GPUs share a fast link; otherwise a larger count is
    returned with ``fast_link=False`` (the page marks it).

    >>> smallest_configuration(150 * GB, GpuSpec("a100-pcie", 80, fast_link_gpus=2, usd_per_gpu_hour=1.79))
    Configuration(gpu_id='a100-pcie', gpu_count=4, usd_per_hour=Fraction(179, 25), fast_link=False)
    >>> smallest_configuration(150 * GB, GpuSpec("a100-pcie", 80, fast_link_gpus=2), fast_link_only=True) is None
    True
    """
    for count in sorted(gpu_counts):
        fast = count == 1 or count <= gpu.fast_link_gpus
        if fast_link_only and not fast:
            return None
        if fits(need_bytes, gpu.memory_gb, count):
            price = None if gpu.usd_per_gpu_hour is None else exact(gpu.usd_per_gpu_hour) * count
            return Configuration(gpu.id, count, price, fast)
    return None


def recommend_configuration(need_bytes: Real, gpus: Iterable[GpuSpec],
                            gpu_counts: Iterable[int] = GPU_COUNTS) -> Configuration | None:
    """The cheapest rentable configuration that holds ``need_bytes``: a buyer can follow it.

    Candidates: GPU types with a live offer, in counts whose GPUs share a fast link. Cheapest per
    hour first; at equal price, fewer GPUs, then more memory bandwidth, then a larger fast-link
    group, then the id (so the answer is the same on every run). None when nothing rentable fits.

    >>> gpus = [GpuSpec("a100-pcie", 80, 1935, 2, 1.79), GpuSpec("a100-sxm", 80, 2039, 8, 1.79)]
    >>> recommend_configuration(207 * GB, gpus)  # 4 × A100 PCIe would need NVLink across four cards
    Configuration(gpu_id='a100-sxm', gpu_count=4, usd_per_hour=Fraction(179, 25), fast_link=True)
    >>> recommend_configuration(60 * GB, gpus).gpu_id  # same price, one GPU: the faster memory wins
    'a100-sxm'
    """
    best: tuple[tuple, Configuration] | None = None
    counts = tuple(gpu_counts)
    for gpu in gpus:
        if gpu.usd_per_gpu_hour is None:
            continue
        config = smallest_configuration(need_bytes, gpu, counts, fast_link_only=True)
        if config is None or config.usd_per_hour is None:
            continue
        bandwidth = exact(gpu.bandwidth_gbs) if gpu.bandwidth_gbs is not None else Fraction(0)
        key = (config.usd_per_hour, config.gpu_count, -bandwidth, -gpu.fast_link_gpus, gpu.id)
        if best is None or key < best[0]:
            best = (key, config)
    return None if best is None else best[1]


# --- Image and video generation ------------------------------------------------------------------

def diffusion_fits(memory_gb: Real | None, documented_need_gb: Real | None) -> bool | None:
    """Whether a diffusion model runs on a GPU: memory ≥ the memory its publisher documents.

    The documented figure is used as-is, without the 80 % rule: it is a measured peak or the
    publisher's stated requirement, which already includes the framework's overheads (applying
    80 % on top would count them twice). None when either figure is not published.

    >>> diffusion_fits(24, 18), diffusion_fits(16, 18), diffusion_fits(24, None)
    (True, False, None)
    """
    if memory_gb is None or documented_need_gb is None:
        return None
    return exact(memory_gb) >= exact(documented_need_gb)
