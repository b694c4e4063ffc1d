"""The memory model against independent published figures (each with its source), and its properties.

The published figures are written here from their sources, not read from data/anchors.yaml: the
test is independent of the data the pages print.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuguide.figures import sizing
from gpuguide.figures.sizing import (GB, ModelShape, GpuSpec, capacity_params, decode_tokens_per_second_upper_bound,
                             diffusion_fits, fits, has_useful_fp64, kv_cache_bytes, kv_cache_bytes_per_token_per_layer,
                             recommend_configuration, round_down_readable, readable_step, scene_memory_tier,
                             serving_capacity_params, serving_memory_bytes, smallest_configuration, spec_ratio,
                             training_capacity_params, training_memory_bytes, weights_bytes)

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


def test_weights_match_the_seed_guide_for_deepseek_r1():
    # shared/seeds/004_1f85b24ec0b1748d.txt: DeepSeek R1, 671B, "~1 342 Go" (BF16 weights, 2 bytes each).
    assert weights_bytes(ModelShape(671 * B, 61, 128, 128, 131_072), "bf16") == 1342 * GB


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


def test_kv_cache_formula_matches_nvidias_llama_2_7b_example():
    # NVIDIA Technical Blog, "Mastering LLM Techniques: Inference Optimization",
    # https://developer.nvidia.com/blog/mastering-llm-techniques-inference-optimization/: "with a Llama 2 7B
    # model in 16-bit precision and a batch size of 1, the size of the KV cache will be
    # 1 * 4096 * 2 * 32 * 4096 * 2 bytes, which is ~2 GB" (32 layers, 32 heads of 128, no GQA).
    llama_2_7b = ModelShape(6_738_415_616, 32, 32, 128, 4096)
    assert kv_cache_bytes(llama_2_7b, 4096) == 1 * 4096 * 2 * 32 * 4096 * 2


def test_kv_cache_per_layer_matches_llama_3_1_70b_config():
    # https://huggingface.co/meta-llama/Llama-3.1-70B config.json: num_hidden_layers 80,
    # num_key_value_heads 8, head_dim 128 → 2 × 8 × 128 × 2 bytes per layer, 320 KiB per token in all.
    shape = ModelShape(70_553_706_496, 80, 8, 128, 131_072)
    assert kv_cache_bytes_per_token_per_layer(shape) * 80 == 320 * 1024


def test_kv_cache_of_deepseek_latent_attention():
    # DeepSeek-V3/R1 config.json: kv_lora_rank 512 + qk_rope_head_dim 64 = 576 elements per layer, 61 layers.
    shape = ModelShape(671 * B, 61, 128, 128, 131_072, kv_compressed_dim=576)
    assert kv_cache_bytes(shape, 1) == 61 * 576 * 2


def test_gpt_oss_120b_weights_match_the_published_checkpoint():
    # OpenAI, gpt-oss model card, https://arxiv.org/abs/2508.10925, Table 1: MLP 114.71B (MXFP4, "4.25 bits
    # per parameter", section 2.1), total 116.83B, "Checkpoint Size 60.8GiB".
    shape = ModelShape(116_830_000_000, 36, 8, 64, 131_072, native_format="mxfp4",
                       native_quantized_parameters=114_710_000_000)
    ours = weights_bytes(shape, "native") / GIB
    assert abs(ours / Fraction("60.8") - 1) < Fraction(1, 200)  # within 0.5 % of the published size


def test_gpt_oss_120b_on_one_80gb_gpu_is_beyond_our_budget_by_a_stated_margin():
    # https://huggingface.co/openai/gpt-oss-120b: "making gpt-oss-120b run on a single 80GB GPU (like
    # NVIDIA H100 or AMD MI300X)". 18 of its 36 layers keep a 128-token window (config.json layer_types).
    shape = ModelShape(116_830_000_000, 36, 8, 64, 131_072, 5_130_000_000, window_tokens=128, window_layers=18,
                       native_format="mxfp4", native_quantized_parameters=114_710_000_000)
    need = serving_memory_bytes(shape, "native")
    share = need / (80 * GB)
    assert need <= 80 * GB  # it does fit the card, as OpenAI says ...
    assert Fraction(80, 100) < share < Fraction(83, 100)  # ... in 82 % of it: more than the 80 % we count
    assert not fits(need, 80, 1)
    assert fits(need, 94, 1)  # one H100 NVL (94 GB) holds it in our model


def test_llama_3_1_405b_fp8_fits_one_eight_gpu_node_as_meta_says():
    # Meta, "Introducing Llama 3.1", https://ai.meta.com/blog/meta-llama-3-1/: FP8 "allowing the model to run
    # within a single server node" (eight 80 GB H100). Config: 126 layers, 8 KV heads of 128.
    shape = ModelShape(405 * B, 126, 8, 128, 131_072)
    assert fits(serving_memory_bytes(shape, "fp8"), 80, 8)


# --- Capacities and fits agree --------------------------------------------------------------------

memories = st.one_of(st.integers(1, 2000), st.decimals(min_value="0.5", max_value="2000", places=2).map(float))
counts = st.sampled_from(sizing.GPU_COUNTS)
shapes = st.builds(
    lambda params, layers, heads, dim, context: ModelShape(params, layers, heads, dim, context),
    st.integers(10**8, 2 * 10**12), st.integers(1, 160), st.integers(1, 128), st.sampled_from((64, 96, 128, 256)),
    st.integers(512, 2**20))
precisions = st.sampled_from(sizing.SERVING_PRECISIONS)


@given(shapes, precisions, memories, counts)
def test_a_model_that_fits_is_within_the_capacity_of_that_configuration(shape, precision, memory_gb, count):
    if fits(serving_memory_bytes(shape, precision), memory_gb, count):
        assert shape.parameters <= serving_capacity_params(memory_gb, precision, count)


@given(st.integers(10**8, 2 * 10**12), st.sampled_from(("full", "lora", "qlora")), memories, counts)
def test_a_model_that_trains_is_within_the_training_capacity(params, method, memory_gb, count):
    if fits(training_memory_bytes(params, method), memory_gb, count):
        assert params <= training_capacity_params(memory_gb, method, count)


@given(memories, counts)
def test_workloads_are_ordered_on_every_gpu(memory_gb, count):
    """Full training ≤ LoRA ≤ BF16 inference, and QLoRA ≤ 4-bit inference: unrounded and rounded."""
    full, lora, qlora = (training_capacity_params(memory_gb, m, count) for m in ("full", "lora", "qlora"))
    bf16, int4 = (serving_capacity_params(memory_gb, p, count) for p in ("bf16", "int4"))
    for low, high in ((full, lora), (lora, bf16), (qlora, int4)):
        assert low <= high
        assert round_down_readable(low) <= round_down_readable(high)


@given(memories, memories, counts, counts, precisions, precisions)
def test_more_memory_more_gpus_fewer_bits_never_give_less(m1, m2, c1, c2, p1, p2):
    small, large = sorted((m1, m2))
    few, many = sorted((c1, c2))
    wide, narrow = sorted((p1, p2), key=lambda p: -sizing.WEIGHT_BYTES[p])  # more bytes first
    assert serving_capacity_params(small, wide, few) <= serving_capacity_params(large, narrow, many)
    for method in ("full", "lora", "qlora"):
        assert training_capacity_params(small, method, few) <= training_capacity_params(large, method, many)


@given(shapes, precisions, st.integers(1, 2**20), st.integers(1, 2**20))
def test_kv_cache_grows_with_context_up_to_the_maximum(shape, precision, c1, c2):
    short, long = sorted((c1, c2))
    assert kv_cache_bytes(shape, short) <= kv_cache_bytes(shape, long)
    assert kv_cache_bytes(shape, long) <= kv_cache_bytes(shape, shape.max_context_tokens)


def test_kv_cache_is_never_sized_beyond_the_maximum_context():
    # GPT-NeoX-20B (arXiv 2204.06745): 2,048-token context, 44 layers, 64 heads of 96.
    neox = ModelShape(20_554_567_680, 44, 64, 96, 2048)
    assert kv_cache_bytes(neox, 8192) == kv_cache_bytes(neox, 2048)


def test_windowed_layers_keep_only_their_window():
    # Gemma 3 27B: 62 layers, 52 of them local with a 1,024-token window (technical report, arXiv 2503.19786).
    gemma = ModelShape(27_433_000_000, 62, 16, 128, 131_072, window_tokens=1024, window_layers=52)
    per_layer = 2 * 16 * 128 * 2
    assert kv_cache_bytes(gemma, 8192) == per_layer * (10 * 8192 + 52 * 1024)


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
    llama_405b = ModelShape(405 * B, 126, 8, 128, 131_072)
    config = recommend_configuration(serving_memory_bytes(llama_405b, "int4"), gpus)
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

def test_decode_bound_is_bandwidth_over_weight_bytes():
    llama_8b = ModelShape(8_030_261_248, 32, 8, 128, 131_072)
    assert decode_tokens_per_second_upper_bound(3350, llama_8b, "bf16") == Fraction(3350 * GB, 2 * 8_030_261_248)


def test_decode_bound_of_a_mixture_of_experts_reads_the_active_parameters():
    deepseek = ModelShape(671 * B, 61, 128, 128, 131_072, active_parameters=37 * B, kv_compressed_dim=576)
    assert decode_tokens_per_second_upper_bound(8000, deepseek, "fp8") == Fraction(8000 * GB, 37 * B)


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


def test_unknown_precision_is_an_error():
    with pytest.raises(ValueError, match="unknown precision"):
        serving_capacity_params(80, "fp4")
