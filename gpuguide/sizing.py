"""Sizing: what a GPU can do, computed from its specifications. Pure functions: no I/O, no formatting.

All arithmetic is exact (``Fraction`` and integers): a capacity that lands exactly on a rounding
boundary must fall on the right side of it, which binary floats cannot promise.

Units: memory in GB as vendors count it (10**9 bytes); capacities in parameters (an ``int``).
"""

from __future__ import annotations

from fractions import Fraction
from numbers import Real

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
