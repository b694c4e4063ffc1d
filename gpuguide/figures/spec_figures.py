"""Figures computed from one GPU's specifications for a use case: the scene-size tier for 3D
rendering (``scene_memory_tier``), useful FP64 for scientific computing (``has_useful_fp64``), the
ratio of two figures (``spec_ratio``) and price-performance (``usd_per_pflop_hour``,
``usd_per_gb_hour``). Pure functions, exact arithmetic.

A figure the vendor does not publish is ``None`` and gives ``None``; a feature the GPU does not have
is ``sizing.NOT_SUPPORTED``; a price-based figure without a live offer is ``sizing.NO_OFFER``.
"""

from __future__ import annotations

from fractions import Fraction

from gpuguide.figures.sizing import NO_OFFER, NOT_SUPPORTED, Absent, Real, exact


# --- 3D rendering and VFX ------------------------------------------------------------------------

#: Scene-size tiers by GPU memory: (id, smallest memory in GB). A GPU belongs to the last tier whose
#: threshold it reaches. 24 GB holds typical production scenes, 48 GB heavy ones, 96 GB and more
#: scenes that would otherwise go out-of-core.
SCENE_MEMORY_TIERS: tuple[tuple[str, int], ...] = (("small", 0), ("medium", 24), ("large", 48), ("xlarge", 96))


def scene_memory_tier(memory_gb: Real | None, ray_tracing: bool | None) -> str | Absent | None:
    """The scene-size tier of a GPU for ray-traced rendering: small < 24 GB ≤ medium < 48 GB ≤ large < 96 GB ≤ xlarge.

    GPU renderers (OptiX, HIP RT, Cycles, Redshift, V-Ray GPU) need ray-tracing hardware: without
    it the tier is NOT_SUPPORTED, however large the memory; None when either is not published.

    >>> [scene_memory_tier(m, True) for m in (16, 24, 47.9, 48, 95, 96)]
    ['small', 'medium', 'medium', 'large', 'large', 'xlarge']
    >>> scene_memory_tier(192, False), scene_memory_tier(48, None)
    (<Absent.NOT_SUPPORTED: 'not_supported'>, None)
    """
    if ray_tracing is False:
        return NOT_SUPPORTED
    if memory_gb is None or ray_tracing is None:
        return None
    memory = exact(memory_gb)
    return [tier for tier, threshold in SCENE_MEMORY_TIERS if memory >= threshold][-1]


# --- Scientific computing ------------------------------------------------------------------------

#: FP64 is "useful" for double-precision work when it runs at least at a tenth of FP32. Data-centre
#: HPC parts run it at half (1:2); graphics and inference parts at 1:32 or 1:64.
USEFUL_FP64_SHARE_OF_FP32 = Fraction(1, 10)


def has_useful_fp64(fp64_tflops: Real | Absent | None, fp32_tflops: Real | None) -> bool | None:
    """Whether a GPU has useful FP64: FP64 vector ≥ FP32 ÷ 10; a GPU without FP64 units has none.

    None ("not published") when a needed figure is missing: a data-centre GPU whose vendor has not
    published FP64 yet must not read as "no FP64".

    >>> has_useful_fp64(34, 67), has_useful_fp64(1.4, 91.6), has_useful_fp64(None, 91.6), has_useful_fp64(NOT_SUPPORTED, 60)
    (True, False, None, False)
    """
    if fp64_tflops is NOT_SUPPORTED:
        return False
    if fp64_tflops is None or fp32_tflops is None or isinstance(fp64_tflops, Absent):
        return None
    return exact(fp64_tflops) >= exact(fp32_tflops) * USEFUL_FP64_SHARE_OF_FP32


# --- Ratios --------------------------------------------------------------------------------------

def spec_ratio(numerator: object, denominator: object) -> Fraction | None:
    """The ratio of two figures, exact; None unless both are published numbers (and the second is not 0).

    Comparisons and prose quote ratios of unrounded figures from this one function.

    >>> spec_ratio(989, 312)  # H100 SXM ÷ A100 SXM, dense BF16 TFLOPS
    Fraction(989, 312)
    >>> spec_ratio(None, 312) is None, spec_ratio(NOT_SUPPORTED, 312) is None, spec_ratio(True, 1) is None
    (True, True, True)
    """
    numbers = (int, float, Fraction)
    if (not isinstance(numerator, numbers) or not isinstance(denominator, numbers)
            or isinstance(numerator, bool) or isinstance(denominator, bool) or not denominator):
        return None
    return exact(numerator) / exact(denominator)


# --- Price-performance ---------------------------------------------------------------------------

def usd_per_pflop_hour(usd_per_hour: Real | None, tflops: Real | Absent | None) -> Fraction | Absent | None:
    """Price of one PFLOP-hour at the peak dense throughput: price per hour ÷ (TFLOPS ÷ 1,000).

    A floor of what computing costs: real work reaches a share of the peak (its MFU), so the cost
    per useful PFLOP-hour is higher. ``NO_OFFER`` without a price; the throughput's own absence
    (None: not published, ``NOT_SUPPORTED``) otherwise.

    >>> usd_per_pflop_hour(2.88, 989)  # H100 SXM at $2.88/h, 989 dense BF16 TFLOPS: $2.91 per PFLOP-hour
    Fraction(2880, 989)
    >>> usd_per_pflop_hour(None, 989), usd_per_pflop_hour(2.88, None)
    (<Absent.NO_OFFER: 'no_offer'>, None)
    """
    if usd_per_hour is None:
        return NO_OFFER
    if tflops is None or isinstance(tflops, Absent) or not tflops:
        return tflops if isinstance(tflops, Absent) else None
    return exact(usd_per_hour) * 1000 / exact(tflops)


def usd_per_gb_hour(usd_per_hour: Real | None, memory_gb: Real | None) -> Fraction | Absent | None:
    """Price of one GB of GPU memory for one hour: price per hour ÷ memory (GB); ``NO_OFFER`` without a price.

    >>> usd_per_gb_hour(2.88, 80)
    Fraction(9, 250)
    """
    if usd_per_hour is None:
        return NO_OFFER
    if not memory_gb:
        return None
    return exact(usd_per_hour) / exact(memory_gb)
