"""Sizing: what a GPU can do, computed from its specifications. Pure functions: no I/O, no formatting.

All arithmetic is exact (``Fraction`` and integers): a capacity that lands exactly on a rounding
boundary must fall on the right side of it, which binary floats cannot promise.

Units: memory in GB as vendors count it (10**9 bytes); capacities in parameters (an ``int``).

Every function takes plain values (a GPU's ``memory_gb``, a model's ``layers``…), never the dataset's
objects, so a page passes exactly the figures it prints. A figure the vendor does not publish is
``None``; a function given one returns ``None`` ("not published") instead of failing or guessing.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from numbers import Real
from typing import Iterable, Literal, Mapping

GB = 10**9

#: Share of GPU memory a workload may plan on; the rest goes to the CUDA/ROCm context, the
#: framework's allocator, fragmentation and (for training) activations we do not model.
USABLE_MEMORY_SHARE = Fraction(4, 5)

#: Mixed-precision training with Adam: BF16 weights (2) and gradients (2), plus FP32 master
#: weights (4) and Adam's two moments (4 + 4) = 16 bytes per parameter, activations excluded.
#: Source: Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
#: Models", SC 2020, section 3.1 (https://arxiv.org/abs/1910.02054).
FULL_TRAINING_BYTES_PER_PARAM = 16


def exact(value: Real | str) -> Fraction:
    """A spec value as an exact fraction: ``exact(141.0) == Fraction(141)``, ``exact(0.1) == Fraction(1, 10)``.

    Going through ``str`` keeps the decimal the editor wrote, not its binary approximation.

    >>> exact(0.1)
    Fraction(1, 10)
    """
    return Fraction(str(value)) if isinstance(value, float) else Fraction(value)


def usable_memory_bytes(memory_gb: Real, gpu_count: int = 1) -> Fraction:
    """Bytes a workload may plan on across ``gpu_count`` GPUs: memory × 10⁹ × 80 % × count.

    >>> usable_memory_bytes(80)
    Fraction(64000000000, 1)
    """
    if gpu_count < 1:
        raise ValueError("gpu_count must be at least 1")
    return exact(memory_gb) * GB * USABLE_MEMORY_SHARE * gpu_count


def params_fitting(memory_gb: Real, bytes_per_param: Real, gpu_count: int = 1) -> int:
    """Whole parameters whose state (``bytes_per_param`` each) fits in usable memory, sharded over ``gpu_count``.

    With several GPUs the per-parameter state is assumed sharded across all of them
    (FSDP / ZeRO-3), so usable memory adds up.

    >>> params_fitting(80, 16)
    4000000000
    """
    return int(usable_memory_bytes(memory_gb, gpu_count) // exact(bytes_per_param))


def round_down_readable(params: int) -> int:
    """Round a parameter count DOWN to a precision a reader can take in at a glance.

    Within each unit (millions below 10⁹, billions above):

    ========================  ================================  ==========================
    value                     precision                         examples (seed figures)
    ========================  ================================  ==========================
    1 to 10 units             whole units                       9.6 B → 9 B, 4.7 B → 4 B
    10 to 100 units           multiples of 5 units              14.4 B → 10 B, 76.8 B → 75 B
    100 units and more        two significant digits            115.2 B → 110 B, 102.4 B → 100 B
    below one million         0 (the page prints "< 1 M")
    ========================  ================================  ==========================

    This ladder is the one that reproduces all 18 training figures of the reference page
    (``shared/seeds/000_baa267abb4623a1f.txt``); a coarser step between 10 and 100 (5 rather
    than 1) keeps figures such as "≈ 75 B" honest about the precision of a rule of thumb.

    >>> [round_down_readable(int(x * 1e9)) // 10**9 for x in (4.7, 9.6, 14.4, 37.6, 76.8, 115.2)]
    [4, 9, 10, 35, 75, 110]
    >>> round_down_readable(764_000_000)
    760000000
    """
    if params < 0:
        raise ValueError("params must not be negative")
    if params < 10**6:
        return 0
    unit = GB if params >= GB else 10**6
    if params >= 100 * unit:
        step = 10 ** (len(str(params)) - 2)
    elif params >= 10 * unit:
        step = 5 * unit
    else:
        step = unit
    return params - params % step


def full_training_params(memory_gb: Real, gpu_count: int = 1) -> int:
    """Largest model (parameters) that fully trains on ``gpu_count`` GPUs, rounded down for display.

    params = ⌊memory × 10⁹ × 80 % × gpu_count ÷ 16⌋, then ``round_down_readable``.
    16 bytes per parameter is mixed-precision Adam (ZeRO paper, section 3.1); with 8 GPUs the
    model states are sharded across all of them (FSDP / ZeRO-3). Activations are excluded:
    context length and batch size lower the real limit.

    >>> full_training_params(80) // 10**9, full_training_params(80, 8) // 10**9
    (4, 30)
    """
    return round_down_readable(params_fitting(memory_gb, FULL_TRAINING_BYTES_PER_PARAM, gpu_count))


# --- Fine-tuning ---------------------------------------------------------------------------------

#: LoRA: frozen BF16 weights (2 bytes) plus adapters, their gradients and Adam states, which for the
#: usual ranks add about 10 % of the model's weight memory: about 2.2 bytes per parameter,
#: activations excluded. Source: Hu et al., "LoRA: Low-Rank Adaptation of Large Language Models",
#: ICLR 2022 (https://arxiv.org/abs/2106.09685), section 4: only the low-rank matrices are trained.
LORA_BYTES_PER_PARAM = Fraction(11, 5)

#: QLoRA: 4-bit NormalFloat weights with double quantisation (4.127 bits ≈ 0.516 bytes per
#: parameter) plus BF16 adapters, their optimizer state and quantisation constants: about 0.65 bytes
#: per parameter, activations excluded. Source: Dettmers et al., "QLoRA: Efficient Finetuning of
#: Quantized LLMs", NeurIPS 2023 (https://arxiv.org/abs/2305.14314), sections 3 and 4.
QLORA_BYTES_PER_PARAM = Fraction(13, 20)


def lora_finetune_params(memory_gb: Real | None, gpu_count: int = 1) -> int | None:
    """Largest model (parameters) that LoRA fine-tunes on ``gpu_count`` GPUs, rounded down for display.

    params = ⌊memory × 10⁹ × 80 % × gpu_count ÷ 2.2⌋, then ``round_down_readable``; the frozen
    weights are sharded across the GPUs when there are several (FSDP). None if memory is not published.

    >>> lora_finetune_params(80) // 10**9, lora_finetune_params(24) // 10**9
    (25, 8)
    >>> lora_finetune_params(None) is None
    True
    """
    if memory_gb is None:
        return None
    return round_down_readable(params_fitting(memory_gb, LORA_BYTES_PER_PARAM, gpu_count))


def qlora_finetune_params(memory_gb: Real | None, gpu_count: int = 1) -> int | None:
    """Largest model (parameters) that QLoRA fine-tunes on ``gpu_count`` GPUs, rounded down for display.

    params = ⌊memory × 10⁹ × 80 % × gpu_count ÷ 0.65⌋, then ``round_down_readable``.

    The QLoRA paper fine-tunes a 65B model on one 48 GB GPU: 65 × 10⁹ × 0.65 = 42.25 GB, which fits
    in 48 GB but uses 88 % of it. The 80 % rule keeps a margin for activations, so this function is
    more conservative than the paper and gives 55B for 48 GB.

    >>> qlora_finetune_params(48) // 10**9, qlora_finetune_params(80) // 10**9
    (55, 95)
    """
    if memory_gb is None:
        return None
    return round_down_readable(params_fitting(memory_gb, QLORA_BYTES_PER_PARAM, gpu_count))


# --- Inference -----------------------------------------------------------------------------------

Precision = Literal["bf16", "fp8", "int4"]

#: Bytes per weight. "int4" is 4-bit weight-only quantisation (AWQ, GPTQ, NF4); its per-group
#: scales (a few % more) are left to the KV-cache reserve below.
WEIGHT_BYTES: dict[str, Fraction] = {"bf16": Fraction(2), "fp8": Fraction(1), "int4": Fraction(1, 2)}

#: Share of usable memory the weights may take when we size "the largest model that fits"; the
#: remaining quarter (20 % of the GPU's memory) is kept for the KV cache and activations. On one
#: 80 GB GPU that is 16 GB: about 122,000 tokens of Llama 3.1 8B's BF16 cache (128 KiB per token),
#: 48,800 of Llama 3.1 70B's (320 KiB per token), summed over all concurrent sequences.
INFERENCE_WEIGHT_SHARE = Fraction(3, 4)

#: The KV cache is kept in BF16 whatever the weights' precision (vLLM's and TGI's default: weight
#: quantisation does not quantise the cache).
KV_CACHE_BYTES_PER_ELEMENT = 2


def _weight_bytes(precision: str) -> Fraction:
    try:
        return WEIGHT_BYTES[precision]
    except KeyError:
        raise ValueError(f"unknown precision {precision!r}; use one of {', '.join(WEIGHT_BYTES)}") from None


def inference_params(memory_gb: Real | None, precision: Precision, gpu_count: int = 1) -> int | None:
    """Largest model (parameters) served at ``precision`` on ``gpu_count`` GPUs, rounded down for display.

    params = ⌊memory × 10⁹ × 80 % × ¾ × gpu_count ÷ bytes per weight⌋, then ``round_down_readable``;
    bytes per weight: BF16 2, FP8 1, 4-bit ½. A quarter of usable memory stays free for the KV
    cache (``INFERENCE_WEIGHT_SHARE``). With several GPUs the weights are split by tensor parallelism.

    >>> [inference_params(80, p) // 10**9 for p in ("bf16", "fp8", "int4")]
    [20, 45, 95]
    >>> inference_params(80, "bf16", 8) // 10**9
    190
    """
    if memory_gb is None:
        return None
    budget = usable_memory_bytes(memory_gb, gpu_count) * INFERENCE_WEIGHT_SHARE
    return round_down_readable(int(budget // _weight_bytes(precision)))


def weights_bytes(params: int, precision: Precision) -> Fraction:
    """Bytes of a model's weights at ``precision``: params × bytes per weight.

    >>> weights_bytes(671 * 10**9, "bf16") / GB  # the seed guide's "~1 342 Go" for DeepSeek R1
    Fraction(1342, 1)
    """
    return params * _weight_bytes(precision)


def kv_cache_bytes_per_token(layers: int, kv_heads: int, head_dim: int, kv_compressed_dim: int | None = None,
                             bytes_per_element: Real = KV_CACHE_BYTES_PER_ELEMENT) -> int | Fraction:
    """Bytes of KV cache per token of context.

    Standard and grouped-query attention: 2 (keys and values) × layers × kv_heads × head_dim × bytes.
    Multi-head latent attention (DeepSeek-V2/V3/R1) caches one compressed latent per layer:
    layers × kv_compressed_dim × bytes (DeepSeek-V2 paper, section 2.1, https://arxiv.org/abs/2405.04434).

    >>> kv_cache_bytes_per_token(80, 8, 128)  # Llama 3.1 70B, BF16: 320 KiB
    327680
    >>> kv_cache_bytes_per_token(61, 128, 128, kv_compressed_dim=576)  # DeepSeek R1, BF16
    70272
    """
    bytes_per_element = exact(bytes_per_element)
    if kv_compressed_dim is not None:
        total = layers * kv_compressed_dim * bytes_per_element
    else:
        total = 2 * layers * kv_heads * head_dim * bytes_per_element
    return int(total) if total.denominator == 1 else total


def inference_memory_bytes(params: int, precision: Precision, context_tokens: int, layers: int, kv_heads: int,
                           head_dim: int, kv_compressed_dim: int | None = None) -> Fraction:
    """GPU memory a model needs to serve one sequence of ``context_tokens``: weights + KV cache.

    bytes = params × bytes per weight + tokens × ``kv_cache_bytes_per_token`` (BF16 cache).
    Activations and the framework's own memory are not counted: compare with usable memory (80 %).

    >>> round(float(inference_memory_bytes(8_030_261_248, "bf16", 131_072, 32, 8, 128) / GB), 2)  # Llama 3.1 8B
    33.24
    """
    kv = kv_cache_bytes_per_token(layers, kv_heads, head_dim, kv_compressed_dim) * context_tokens
    return weights_bytes(params, precision) + kv


@dataclass(frozen=True)
class Configuration:
    """The cheapest way to rent enough memory: ``gpu_count`` × ``gpu_id`` at ``usd_per_hour`` in total."""

    gpu_id: str
    gpu_count: int
    usd_per_hour: Fraction


def recommend_configuration(needed_bytes: Real, memory_gb_by_gpu: Mapping[str, Real | None],
                            usd_per_gpu_hour: Mapping[str, Real],
                            gpu_counts: Iterable[int] = (1, 2, 4, 8)) -> Configuration | None:
    """The cheapest count of one GPU type whose usable memory (80 %) holds ``needed_bytes``.

    Candidates are the GPU types with both a memory figure and a price, in counts of ``gpu_counts``
    (powers of two: tensor parallelism splits attention heads evenly). Cost = count × price per
    GPU-hour; ties go to fewer GPUs, then to the id, so the answer is the same on every run.
    None when nothing fits or nothing has a price.

    >>> recommend_configuration(1351 * GB, {"mi325x": 256, "b300": 288, "h100-sxm": 80},
    ...                         {"mi325x": 4.82, "b300": 8.99, "h100-sxm": 2.88})
    Configuration(gpu_id='mi325x', gpu_count=8, usd_per_hour=Fraction(964, 25))
    """
    needed = exact(needed_bytes)
    best: tuple[Fraction, int, str] | None = None
    for gpu_id, memory_gb in memory_gb_by_gpu.items():
        price = usd_per_gpu_hour.get(gpu_id)
        if memory_gb is None or price is None:
            continue
        for count in sorted(gpu_counts):
            if usable_memory_bytes(memory_gb, count) >= needed:
                candidate = (exact(price) * count, count, gpu_id)
                best = candidate if best is None or candidate < best else best
                break
    return None if best is None else Configuration(best[2], best[1], best[0])


def decode_tokens_per_second_upper_bound(bandwidth_gbs: Real | None, params_read_per_token: int,
                                         precision: Precision, gpu_count: int = 1) -> Fraction | None:
    """Upper bound of single-stream decoding speed: bandwidth ÷ bytes of weights read per token.

    tokens/s ≤ bandwidth × 10⁹ × gpu_count ÷ (params read per token × bytes per weight). At batch
    size 1 every generated token reads every weight once (all of them, or the active experts of a
    mixture of experts), so memory bandwidth bounds the speed; reading the KV cache, kernel
    overheads and communication only lower it. It is a ceiling, never a measured speed.
    None when the bandwidth is not published.

    >>> int(decode_tokens_per_second_upper_bound(3350, 8_030_261_248, "bf16"))  # H100 SXM, Llama 3.1 8B
    208
    """
    if bandwidth_gbs is None:
        return None
    if gpu_count < 1:
        raise ValueError("gpu_count must be at least 1")
    return exact(bandwidth_gbs) * GB * gpu_count / weights_bytes(params_read_per_token, precision)


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


# --- 3D rendering and VFX ------------------------------------------------------------------------

#: Scene-size tiers by GPU memory: (id, smallest memory in GB). A GPU belongs to the last tier whose
#: threshold it reaches. 24 GB holds typical production scenes, 48 GB heavy ones, 96 GB and more
#: scenes that would otherwise go out-of-core.
SCENE_MEMORY_TIERS: tuple[tuple[str, int], ...] = (("small", 0), ("medium", 24), ("large", 48), ("xlarge", 96))


def scene_memory_tier(memory_gb: Real | None) -> str | None:
    """The scene-size tier id of a GPU: small < 24 GB ≤ medium < 48 GB ≤ large < 96 GB ≤ xlarge.

    >>> [scene_memory_tier(m) for m in (16, 24, 47.9, 48, 95, 96, None)]
    ['small', 'medium', 'medium', 'large', 'large', 'xlarge', None]
    """
    if memory_gb is None:
        return None
    memory = exact(memory_gb)
    return [tier for tier, threshold in SCENE_MEMORY_TIERS if memory >= threshold][-1]


# --- Scientific computing ------------------------------------------------------------------------

#: FP64 is "useful" for double-precision work when it runs at least at a tenth of FP32. Data-centre
#: HPC parts run it at half (1:2); graphics and inference parts at 1:32 or 1:64, and their vendors
#: often do not publish it.
USEFUL_FP64_SHARE_OF_FP32 = Fraction(1, 10)


def has_useful_fp64(fp64_tflops: Real | None, fp32_tflops: Real | None) -> bool | None:
    """Whether a GPU has useful FP64: FP64 vector ≥ FP32 ÷ 10.

    None ("not published") when either figure is missing: a data-centre GPU whose vendor has not
    published FP64 yet (B200) must not read as "no FP64".

    >>> has_useful_fp64(34, 67), has_useful_fp64(1.4, 91.6), has_useful_fp64(None, 91.6)
    (True, False, None)
    """
    if fp64_tflops is None or fp32_tflops is None:
        return None
    return exact(fp64_tflops) >= exact(fp32_tflops) * USEFUL_FP64_SHARE_OF_FP32


# --- Ratios quoted in prose ----------------------------------------------------------------------

def spec_ratio(numerator: Real | None, denominator: Real | None) -> Fraction | None:
    """The ratio of two figures ("about three times the A100's BF16"), exact; None if either is absent.

    Prose and tables quote ratios from this one function so they cannot disagree.

    >>> spec_ratio(989, 312)  # H100 SXM ÷ A100 SXM, dense BF16 TFLOPS
    Fraction(989, 312)
    >>> spec_ratio(None, 312) is None
    True
    """
    if numerator is None or denominator is None:
        return None
    return exact(numerator) / exact(denominator)
