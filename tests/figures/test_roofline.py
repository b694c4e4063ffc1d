"""The throughput bounds: the roofline's formulas on worked examples, and the properties a bound must
have (more bandwidth, compute or GPUs never lower it; more users never raise each one's speed)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from gpuguide.figures import engine_budget, roofline, serving
from gpuguide.figures.roofline import decode_bounds, offline_tokens_per_second_upper_bound, tensor_tflops
from gpuguide.figures.engine_budget import ServingGpu
from gpuguide.figures.serving import ModelShape, Workload

B = 10**9
LLAMA_3_1_8B = ModelShape(8_030_261_248, 32, 8, 128, 131_072, attention_heads=32, vocab_size=128_256, hidden_size=4096)
LLAMA_2_70B = ModelShape(68_976_648_192, 80, 8, 128, 4096, attention_heads=64, vocab_size=32_000, hidden_size=8192)
H100 = ServingGpu("h100-sxm", 80, 3350, {"bf16": 989, "fp8": 1979}, 8, 2.88)
A100 = ServingGpu("a100-sxm", 80, 2039, {"bf16": 312}, 8, 1.79)
RTX_5090 = ServingGpu("rtx-5090", 32, 1792, {"bf16": 209.5, "fp8": 419, "fp4": 1676}, 1, None)


def test_one_user_is_bandwidth_over_the_weights_and_kv_cache_read_per_token():
    bounds = decode_bounds(LLAMA_3_1_8B, Workload(8192, 1, "bf16"), H100, 1)
    read = serving.weights_read_per_token_bytes(LLAMA_3_1_8B, "bf16") + serving.kv_cache_bytes(LLAMA_3_1_8B, 8192)
    assert bounds.user_tokens_per_second == Fraction(3350 * B) / read
    assert bounds.limited_by == "memory"


def test_a_large_batch_becomes_compute_bound():
    # 1,024 users of 16 tokens: the step reads little KV cache, but computes 2 × 8B × 1,024 FLOPs.
    bounds = decode_bounds(LLAMA_3_1_8B, Workload(16, 1024, "bf16"), H100, 1)
    assert bounds.limited_by == "compute"
    assert bounds.total_tokens_per_second == Fraction(989 * 10**12, 2 * 8_030_261_248)


def test_fp8_weights_without_fp8_tensor_cores_run_at_the_bf16_rate():
    assert tensor_tflops(A100, "fp8") == 312
    assert tensor_tflops(RTX_5090, "fp4") == 1676 and tensor_tflops(H100, "fp4") == 1979
    assert not roofline.runs_natively(A100, LLAMA_3_1_8B, "fp8")
    assert roofline.runs_natively(H100, LLAMA_3_1_8B, "fp8")


def test_gpus_without_a_fast_link_decode_at_one_gpus_pace():
    workload = Workload(8192, 1, "bf16")
    linked = decode_bounds(LLAMA_2_70B, workload, H100, 4, fast_link=True)
    over_pcie = decode_bounds(LLAMA_2_70B, workload, H100, 4, fast_link=False)
    one_gpu_pace = Fraction(3350 * B) / (serving.weights_read_per_token_bytes(LLAMA_2_70B, "bf16")
                                         + serving.kv_cache_bytes(LLAMA_2_70B, 4096))
    assert over_pcie.user_tokens_per_second == one_gpu_pace
    assert linked.user_tokens_per_second > 3 * over_pcie.user_tokens_per_second


def test_the_first_token_is_at_least_the_prompts_compute():
    bounds = decode_bounds(LLAMA_3_1_8B, Workload(8192, 1, "bf16"), H100, 1)
    assert bounds.first_token_seconds == Fraction(2 * 8_030_261_248 * 8192, 989 * 10**12)


def test_price_per_million_tokens_is_the_hourly_price_at_the_bound():
    assert roofline.usd_per_million_tokens(Fraction(288, 100), 4000) == Fraction(1, 5)
    assert roofline.usd_per_million_tokens(None, 4000) is None


def test_the_offline_bound_of_llama_2_70b_on_eight_h100s_is_compute_bound():
    # MLPerf's Llama 2 70B: 294.45 output tokens a sample; no input mean published (counted as 0).
    bound = offline_tokens_per_second_upper_bound(LLAMA_2_70B, "fp8", "fp8", H100, 8, 0, Fraction("294.45"))
    assert bound == Fraction(8 * 1979 * 10**12, 2 * 68_976_648_192)
    # NVIDIA's v5.0 result, 31,306.8 tokens/s, stays below it.
    assert Fraction("31306.8") < bound


def test_without_a_published_bandwidth_there_is_no_bound():
    unknown = ServingGpu("b", 180, None, {"bf16": 2250})
    assert decode_bounds(LLAMA_3_1_8B, Workload(8192, 1), unknown, 1) is None
    assert offline_tokens_per_second_upper_bound(LLAMA_3_1_8B, "bf16", "bf16", unknown, 1, 100, 100) is None


def test_without_a_published_tensor_throughput_a_batch_job_has_no_bound():
    # The RTX PRO 6000 Blackwell: NVIDIA publishes its bandwidth, and tensor figures only as "AI TOPS"
    # with sparsity; the memory roofline alone would allow 200 million tokens/s of Llama 3.1 8B.
    no_rates = ServingGpu("rtx-pro-6000", 96, 1792, {})
    assert offline_tokens_per_second_upper_bound(LLAMA_3_1_8B, "bf16", "bf16", no_rates, 8, 2048, 128) is None


# --- Properties ----------------------------------------------------------------------------------

bandwidths = st.integers(100, 10_000)
rates = st.integers(50, 10_000)
users = st.integers(1, 512)
contexts = st.integers(1, 131_072)


@given(bandwidths, bandwidths, rates, rates, users, contexts)
def test_more_bandwidth_or_compute_never_lowers_a_bound(bw1, bw2, r1, r2, n, context):
    (slow_bw, fast_bw), (slow_r, fast_r) = sorted((bw1, bw2)), sorted((r1, r2))
    workload = Workload(context, n, "bf16")
    slow = decode_bounds(LLAMA_3_1_8B, workload, ServingGpu("s", 80, slow_bw, {"bf16": slow_r}), 1)
    fast = decode_bounds(LLAMA_3_1_8B, workload, ServingGpu("f", 80, fast_bw, {"bf16": fast_r}), 1)
    assert slow.user_tokens_per_second <= fast.user_tokens_per_second
    assert fast.first_token_seconds <= slow.first_token_seconds


@given(users, users, contexts)
def test_more_users_lower_each_ones_speed_and_never_lower_the_total_when_memory_bound(u1, u2, context):
    few, many = sorted((u1, u2))
    a = decode_bounds(LLAMA_3_1_8B, Workload(context, few, "bf16"), H100, 1)
    b = decode_bounds(LLAMA_3_1_8B, Workload(context, many, "bf16"), H100, 1)
    assert b.user_tokens_per_second <= a.user_tokens_per_second
    assert b.total_tokens_per_second >= a.total_tokens_per_second or b.limited_by == "compute"


@given(st.sampled_from(engine_budget.GPU_COUNTS), st.sampled_from(engine_budget.GPU_COUNTS), users, contexts)
def test_more_linked_gpus_never_lower_the_bound(c1, c2, n, context):
    few, many = sorted((c1, c2))
    workload = Workload(context, n, "fp8")
    assert (decode_bounds(LLAMA_2_70B, workload, H100, few).total_tokens_per_second
            <= decode_bounds(LLAMA_2_70B, workload, H100, many).total_tokens_per_second)


@given(users, contexts)
def test_each_users_speed_is_the_total_shared(n, context):
    bounds = decode_bounds(LLAMA_3_1_8B, Workload(context, n, "int4"), H100, 1)
    assert bounds.user_tokens_per_second * n == bounds.total_tokens_per_second
