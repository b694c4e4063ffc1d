"""The training memory model against independent published figures (each with its source), and its
properties. (Serving is ``test_serving``; its speeds ``test_roofline``.)

The published figures are written here from their sources, not read from data/anchors.yaml: the
test is independent of the data the pages print.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuguide.figures import sizing
from gpuguide.figures.rounding import readable_step, round_down_readable
from gpuguide.figures.sizing import (GB, GpuSpec, capacity_params, diffusion_fits, fits, recommend_configuration,
                                     smallest_configuration, training_capacity_params, training_memory_bytes)
from gpuguide.figures.spec_figures import has_useful_fp64, scene_memory_tier, spec_ratio

B = 10**9
GIB = 2**30

# --- The reference page -------------------------------------------------------------------------

# shared/seeds/000_baa267abb4623a1f.txt: full training, 1 GPU / 8 GPUs, in billions, by memory.
SEED_TRAINING = {288: (10, 110), 180: (9, 70), 256: (10, 100), 192: (9, 75), 141: (7, 55), 94: (4, 35),
                 80: (4, 30)}


@pytest.mark.parametrize("memory_gb, expected", SEED_TRAINING.items())
def test_full_training_reproduces_the_reference_page(memory_gb, expected):
    # 80 GB covers the seed's three 80 GB rows (H100 SXM, A100 SXM, A100 PCIe): 18 figures in all.
    one, eight = (round_down_readable(training_capacity_params(memory_gb, "full", n)) // B for n in (1, 8))
    assert (one, eight) == expected


# --- Published anchors --------------------------------------------------------------------------

def test_full_training_is_zero_16_bytes_per_parameter():
    # Rajbhandari et al., "ZeRO", SC 2020, https://arxiv.org/abs/1910.02054, section 3.1: mixed-precision
    # Adam "results in 2Ψ + 2Ψ + KΨ = 16Ψ bytes"; "GPT-2 with 1.5 Billion parameters ... at least 24 GB";
    # Figure 1: Ψ = 7.5B, baseline 120 GB.
    assert training_memory_bytes(1_500_000_000, "full") == 24 * GB
    assert training_memory_bytes(7_500_000_000, "full") == 120 * GB


def test_lora_is_more_conservative_than_the_lora_paper_by_ten_percent():
    # Hu et al., "LoRA", ICLR 2022, https://arxiv.org/abs/2106.09685, section 4.2: "On GPT-3 175B, we
    # reduce the VRAM consumption during training from 1.2TB to 350GB."
    ours = training_memory_bytes(175 * B, "lora")
    assert ours == 385 * GB
    assert ours / (350 * GB) == Fraction(11, 10)  # the site asks for 10 % more: the methodology page says so


def test_qlora_paper_65b_on_48gb_fits_raw_memory_but_not_our_80_percent():
    # Dettmers et al., "QLoRA", NeurIPS 2023, https://arxiv.org/abs/2305.14314, abstract: "finetune a 65B
    # parameter model on a single 48GB GPU".
    need = training_memory_bytes(65 * B, "qlora")
    assert need <= 48 * GB  # the paper's claim holds in our arithmetic ...
    share = need / (48 * GB)
    assert Fraction(80, 100) < share <= Fraction(89, 100)  # ... using 88 %, beyond the 80 % we count:
    # the site is more conservative by that margin, and its 48 GB capacity stays below the paper's 65B.
    assert training_capacity_params(48, "qlora") < 65 * B
    assert round_down_readable(training_capacity_params(48, "qlora")) == 55 * B


# --- Capacities and fits agree --------------------------------------------------------------------

memories = st.one_of(st.integers(1, 2000), st.decimals(min_value="0.5", max_value="2000", places=2).map(float))
counts = st.sampled_from(sizing.GPU_COUNTS)
@given(st.integers(10**8, 2 * 10**12), st.sampled_from(("full", "lora", "qlora")), memories, counts)
def test_a_model_that_trains_is_within_the_training_capacity(params, method, memory_gb, count):
    if fits(training_memory_bytes(params, method), memory_gb, count):
        assert params <= training_capacity_params(memory_gb, method, count)


@given(st.integers(0, 10**15))
def test_rounding_never_rounds_up_and_the_step_bounds_the_truth(params):
    shown = round_down_readable(params)
    assert shown <= params
    if params >= 10**6:
        assert params < shown + readable_step(params)


@given(st.integers(0, 10**15), st.integers(0, 10**15))
def test_rounding_is_monotonic(a, b):
    low, high = sorted((a, b))
    assert round_down_readable(low) <= round_down_readable(high)


# --- Recommendations ----------------------------------------------------------------------------

def test_recommendation_needs_a_fast_link_and_prefers_the_faster_card_at_equal_price():
    # The guide once recommended 4 × A100 PCIe (NVLink bridge for pairs only) for a 405B model in 4 bits.
    gpus = [GpuSpec("a100-pcie", 80, 1935, 2, 1.79), GpuSpec("a100-sxm", 80, 2039, 8, 1.79)]
    config = recommend_configuration(training_memory_bytes(65 * B, "lora"), gpus)  # 143 GB
    assert (config.gpu_id, config.gpu_count, config.fast_link) == ("a100-sxm", 4, True)
    # One GPU suffices: the same price, the higher bandwidth wins, whatever the order of the list.
    assert recommend_configuration(60 * GB, gpus).gpu_id == "a100-sxm"
    assert recommend_configuration(60 * GB, gpus[::-1]).gpu_id == "a100-sxm"


def test_recommendation_skips_gpus_without_a_live_offer():
    gpus = [GpuSpec("cheap-but-absent", 96, 1792, 1, None), GpuSpec("h100-sxm", 80, 3350, 8, 2.88)]
    config = recommend_configuration(70 * GB, gpus)
    assert (config.gpu_id, config.gpu_count) == ("h100-sxm", 2)
    assert recommend_configuration(70 * GB, gpus[:1]) is None
    # For reference, the unpriced GPU's own configuration is still computable (the page marks it).
    assert smallest_configuration(70 * GB, gpus[0]).usd_per_hour is None


def test_pcie_cards_are_offered_alone_or_marked():
    l40s = GpuSpec("l40s", 48, 864, 1, 1.0)
    assert smallest_configuration(100 * GB, l40s, fast_link_only=True) is None
    over_pcie = smallest_configuration(100 * GB, l40s)
    assert (over_pcie.gpu_count, over_pcie.fast_link) == (4, False)


# --- Other use cases ----------------------------------------------------------------------------

def test_rendering_needs_ray_tracing_hardware():
    # An MI300X has 192 GB but no ray-tracing hardware: no scene tier, "not supported".
    assert scene_memory_tier(192, False) is sizing.NOT_SUPPORTED
    assert scene_memory_tier(96, True) == "xlarge"


def test_fp64_flags():
    assert has_useful_fp64(34, 67) is True  # H100 SXM: 1:2
    assert has_useful_fp64(Fraction(916, 640), Fraction(916, 10)) is False  # L40S: 1/64 of FP32 (Ada whitepaper)
    assert has_useful_fp64(None, 91.6) is None  # not published: never "no"
    assert has_useful_fp64(sizing.NOT_SUPPORTED, 60) is False


def test_sd35_large_fits_as_documented():
    assert diffusion_fits(24, 18) is True and diffusion_fits(16, 18) is False


absent_or_figure = st.one_of(st.none(), st.just(sizing.NOT_SUPPORTED),
                             st.floats(min_value=0.1, max_value=5000, allow_nan=False))


@given(absent_or_figure, absent_or_figure)
def test_ratios_exist_only_between_two_published_numbers(first, second):
    result = spec_ratio(first, second)
    published = all(isinstance(value, float) for value in (first, second))
    assert (result is not None) == published


@given(st.one_of(st.none(), st.floats(min_value=0.1, max_value=5000, allow_nan=False)), counts)
def test_absent_memory_gives_none_never_an_error(memory_gb, count):
    for method in ("full", "lora", "qlora"):
        assert (training_capacity_params(memory_gb, method, count) is None) == (memory_gb is None)
    assert (capacity_params(memory_gb, 2, count) is None) == (memory_gb is None)


@given(memories, counts)
def test_training_methods_are_ordered_on_every_gpu(memory_gb, count):
    """Full training ≤ LoRA ≤ QLoRA: unrounded and rounded."""
    full, lora, qlora = (training_capacity_params(memory_gb, m, count) for m in ("full", "lora", "qlora"))
    for low, high in ((full, lora), (lora, qlora)):
        assert low <= high
        assert round_down_readable(low) <= round_down_readable(high)
