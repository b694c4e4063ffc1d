"""The serving memory model against published figures (each written here from its source, independent
of data/), and its properties over random models and GPUs."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuguide.figures import engine_budget, serving
from gpuguide.figures.engine_budget import (GIB, ServingGpu, fits_engine, kv_share_per_gpu, memory_per_gpu_bytes,
                                            serving_capacity_params, tensor_parallel_allowed)
from gpuguide.figures.serving import (ModelShape, Workload, effective_context, kv_cache_bytes,
                                      kv_cache_bytes_per_token_per_layer, weights_bytes, weights_read_per_token_bytes)

B = 10**9

# config.json shapes, as their publishers give them.
LLAMA_3_1_8B = ModelShape(8_030_261_248, 32, 8, 128, 131_072, attention_heads=32, vocab_size=128_256, hidden_size=4096)
LLAMA_3_3_70B = ModelShape(70_553_706_496, 80, 8, 128, 131_072, attention_heads=64, vocab_size=128_256,
                           hidden_size=8192)
LLAMA_2_70B = ModelShape(68_976_648_192, 80, 8, 128, 4096, attention_heads=64, vocab_size=32_000, hidden_size=8192)
MIXTRAL = ModelShape(46_702_792_704, 32, 8, 128, 32_768, 12_879_069_184, attention_heads=32, vocab_size=32_000,
                     hidden_size=4096)
QWEN3_30B_A3B = ModelShape(30_532_122_624, 48, 4, 128, 131_072, 3_300_000_000, attention_heads=32,
                           vocab_size=151_936, hidden_size=2048)
QWEN2_5_72B = ModelShape(72_706_203_648, 80, 8, 128, 131_072, attention_heads=64, vocab_size=152_064, hidden_size=8192)
QWEN3_32B = ModelShape(32_762_123_264, 64, 8, 128, 131_072, attention_heads=64, vocab_size=151_936, hidden_size=5120)
GPT_OSS_120B = ModelShape(116_830_000_000, 36, 8, 64, 131_072, 5_130_000_000, window_tokens=128, window_layers=18,
                          native_format="mxfp4", native_quantized_parameters=114_710_000_000, attention_heads=64,
                          vocab_size=201_088, hidden_size=2880)
DEEPSEEK_V3 = ModelShape(671 * B, 61, 128, 128, 131_072, 37 * B, kv_compressed_dim=576, native_format="fp8",
                         attention_heads=128, vocab_size=129_280, hidden_size=7168)

# nvidia-smi totals: H100 80GB HBM3 81,559 MiB (github.com/NVIDIA/nccl/issues/1264), A100 80GB 81,920 MiB
# (github.com/modal-labs/modal-client/pull/2797).
H100 = ServingGpu("h100-sxm", 80, 3350, {"bf16": 989, "fp8": 1979}, 8, 2.88, Fraction(81_559, 1024))
A100 = ServingGpu("a100-sxm", 80, 2039, {"bf16": 312}, 8, 1.79, 80)


# --- Published checkpoints: the weights within 3 % of what their publisher states ----------------

CHECKPOINTS = [
    # (shape, format, published bytes, source)
    (LLAMA_3_1_8B, "bf16", 16_060_556_354, "huggingface.co/deepseek-ai/DeepSeek-R1-Distill-Llama-8B usedStorage"),
    (QWEN3_32B, "bf16", 65_535_751_214, "huggingface.co/Qwen/Qwen3-32B usedStorage"),
    (QWEN2_5_72B, "bf16", Fraction("135.43") * GIB, "Qwen2.5-72B-Instruct: 37 files, 135.43 GiB"),
    (QWEN3_30B_A3B, "fp8", Fraction("29.03") * GIB, "Qwen3-30B-A3B(-Thinking-2507)-FP8: 29.03 GiB"),
    (LLAMA_2_70B, "int4", Fraction("36.65") * B, "TheBloke/Llama-2-70B-GPTQ 4-bit 128g: 36.65 GB"),
    (MIXTRAL, "int4", Fraction("24.70") * B, "TheBloke/Mixtral-8x7B-v0.1-GPTQ 4-bit 128g: 24.70 GB"),
    (GPT_OSS_120B, "native", Fraction("60.8") * GIB, "gpt-oss model card (arXiv 2508.10925), Table 1: 60.8 GiB"),
]


@pytest.mark.parametrize("shape, weights, published, source", CHECKPOINTS, ids=[c[3] for c in CHECKPOINTS])
def test_weights_are_within_three_percent_of_published_checkpoints(shape, weights, published, source):
    assert abs(weights_bytes(shape, weights) / Fraction(published) - 1) < Fraction(3, 100)


def test_the_checkpoints_cover_every_format_dense_and_mixture_of_experts():
    formats = {serving.format_of(shape, weights) for shape, weights, _, _ in CHECKPOINTS}
    assert {"bf16", "fp8", "int4", "mxfp4"} <= formats
    assert any(shape.active_parameters for shape, *_ in CHECKPOINTS)
    assert any(not shape.active_parameters for shape, *_ in CHECKPOINTS)


def test_bf16_weights_match_the_seed_guide_for_deepseek_r1():
    # shared/seeds/004_1f85b24ec0b1748d.txt: DeepSeek R1, 671B, "~1 342 Go" (BF16 weights, 2 bytes each).
    assert weights_bytes(DEEPSEEK_V3, "bf16") == 1342 * B


def test_four_bit_weights_count_their_scales_and_16_bit_embeddings():
    # Llama 3.1 8B AWQ is about 5.7 GB, not 8.03B × 0.5 = 4.0 GB.
    assert 5.6 * B < weights_bytes(LLAMA_3_1_8B, "int4") < 5.8 * B
    # gpt-oss-120b's own MXFP4 checkpoint is larger than a hypothetical all-4-bit one would be.
    assert weights_bytes(GPT_OSS_120B, "native") > GPT_OSS_120B.parameters * Fraction(1, 2)


def test_gpt_oss_reads_its_bf16_attention_and_a_share_of_its_mxfp4_experts_per_token():
    # Card: 5.13B active, of which the 0.96B of attention and the 0.58B output layer are BF16: about 5 GB a token.
    read = weights_read_per_token_bytes(GPT_OSS_120B, "native")
    assert Fraction(49, 10) * B < read < Fraction(51, 10) * B


# --- The KV cache against config.json ------------------------------------------------------------

def test_kv_cache_formula_matches_nvidias_llama_2_7b_example():
    # NVIDIA Technical Blog, "Mastering LLM Techniques: Inference Optimization": "1 * 4096 * 2 * 32 * 4096 * 2
    # bytes, which is ~2 GB" (32 layers, 32 heads of 128, no GQA, 4,096 tokens, 16 bits).
    assert kv_cache_bytes(ModelShape(6_738_415_616, 32, 32, 128, 4096), 4096) == 1 * 4096 * 2 * 32 * 4096 * 2


def test_kv_cache_per_token_of_llama_3_1_70b_matches_its_config():
    # config.json: num_hidden_layers 80, num_key_value_heads 8, head_dim 128: 320 KiB a token in BF16.
    assert kv_cache_bytes_per_token_per_layer(LLAMA_3_3_70B) * 80 == 320 * 1024
    assert kv_cache_bytes(LLAMA_3_3_70B, 1, "fp8") == 160 * 1024


def test_kv_cache_of_deepseek_latent_attention_matches_its_config():
    # DeepSeek-V3 config.json: kv_lora_rank 512 + qk_rope_head_dim 64 = 576 elements per layer, 61 layers.
    assert kv_cache_bytes(DEEPSEEK_V3, 1) == 61 * 576 * 2


def test_sliding_window_layers_keep_only_their_window():
    # Gemma 3 27B (technical report, arXiv 2503.19786): 62 layers, 52 local with a 1,024-token window,
    # 16 key/value heads of 128.
    gemma = ModelShape(27_432_406_640, 62, 16, 128, 131_072, window_tokens=1024, window_layers=52)
    assert kv_cache_bytes(gemma, 8192) == 2 * 16 * 128 * 2 * (10 * 8192 + 52 * 1024)
    # gpt-oss: 18 of 36 layers keep 128 tokens (config.json layer_types, sliding_window 128).
    assert kv_cache_bytes(GPT_OSS_120B, 8192) == 2 * 8 * 64 * 2 * (18 * 8192 + 18 * 128)


def test_the_issues_workload_llama_3_3_70b_fp8_32k_ten_users():
    # "about 107 GB of KV cache on top of 71 GB of weights": 10 × 32,768 × 327,680 bytes; FP8 weights with the
    # 16-bit embedding and output layer.
    workload = Workload(32_768, 10, "fp8")
    assert kv_cache_bytes(LLAMA_3_3_70B, 32_768, "bf16", 10) == 10 * 32_768 * 327_680
    assert 72 * B < weights_bytes(LLAMA_3_3_70B, "fp8") < 73 * B
    assert not fits_engine(LLAMA_3_3_70B, workload, H100, 2)  # 90 GB a GPU > 73.8 GB
    assert fits_engine(LLAMA_3_3_70B, workload, H100, 4)
    assert fits_engine(LLAMA_3_3_70B, Workload(32_768, 10, "fp8", "fp8"), H100, 2)  # an FP8 cache halves it


# --- The engine's budget -------------------------------------------------------------------------

def test_gpt_oss_120b_runs_on_one_80_gb_gpu_as_its_card_and_vllms_recipe_say():
    # Model card: "making gpt-oss-120b run on a single 80GB GPU (like NVIDIA H100 or AMD MI300X)".
    for gpu in (H100, A100):
        assert fits_engine(GPT_OSS_120B, Workload(8192, 1), gpu, 1)


def test_the_budget_is_90_percent_of_the_reported_memory_less_the_engines_own():
    # vLLM's log of Llama 3 8B on an 80 GB GPU (github.com/vllm-project/vllm/pull/10511): 79.22 GiB × 0.90 =
    # 71.29 GiB; weights 14.96, non-torch 1.79, activation peak 1.26: 53.29 GiB left for the KV cache.
    budget = ServingGpu("logged", 80, runtime_memory_gib=Fraction("79.22")).engine_budget_bytes
    kv_room = budget - weights_bytes(LLAMA_3_1_8B, "bf16")
    assert abs(kv_room / GIB - Fraction("53.29")) < Fraction(1, 10)
    assert H100.engine_budget_bytes < A100.engine_budget_bytes  # the H100's driver keeps 361 MiB


def test_llama_3_1_405b_in_fp8_fits_one_eight_gpu_node_as_meta_says():
    # Meta, "Introducing Llama 3.1": FP8 "allowing the model to run within a single server node" (8 × 80 GB).
    llama_405b = ModelShape(405 * B, 126, 8, 128, 131_072, attention_heads=128, vocab_size=128_256, hidden_size=16384)
    assert fits_engine(llama_405b, Workload(8192, 1, "fp8"), H100, 8)
    assert not fits_engine(llama_405b, Workload(8192, 1, "fp8"), H100, 4)


# --- Tensor parallelism ------------------------------------------------------------------------------

def test_tensor_parallelism_must_divide_the_heads():
    # vLLM: "Total number of attention heads (40) must be divisible by tensor parallel size (3)."
    qwen_7b = ModelShape(7_620_000_000, 28, 4, 128, 131_072, attention_heads=28)
    assert [tensor_parallel_allowed(qwen_7b, n) for n in engine_budget.GPU_COUNTS] == [True, True, True, False]
    assert tensor_parallel_allowed(LLAMA_3_3_70B, 8)


def test_a_latent_cache_is_kept_whole_on_every_gpu_and_kv_heads_are_replicated_beyond_their_count():
    assert kv_share_per_gpu(DEEPSEEK_V3, 8) == 1
    assert kv_share_per_gpu(LLAMA_3_3_70B, 4) == Fraction(1, 4)
    qwen3_235b = ModelShape(235 * B, 94, 4, 128, 131_072, attention_heads=64)
    assert kv_share_per_gpu(qwen3_235b, 8) == Fraction(1, 4)  # 4 KV heads: each pair of GPUs shares one


# --- Properties ----------------------------------------------------------------------------------

shapes = st.builds(
    lambda params, layers, kv, dim, context, vocab, hidden: ModelShape(
        params, layers, kv, dim, context, attention_heads=kv * 8, vocab_size=vocab, hidden_size=hidden),
    st.integers(10**9, 2 * 10**12), st.integers(1, 160), st.sampled_from((1, 2, 4, 8, 16, 64)),
    st.sampled_from((64, 96, 128, 256)), st.integers(512, 2**20), st.integers(1000, 260_000), st.integers(256, 8192)
).filter(lambda shape: shape.input_embedding_parameters * 2 < shape.parameters)  # as data validation requires
formats = st.sampled_from(("bf16", "fp8", "int4", "nf4", "mxfp4"))
gpus = st.builds(lambda memory, runtime: ServingGpu("g", memory, runtime_memory_gib=runtime),
                 st.integers(8, 400), st.none())
counts = st.sampled_from(engine_budget.GPU_COUNTS)


@given(shapes, formats, gpus, counts)
def test_a_model_that_fits_is_within_the_capacity_of_that_configuration(shape, weights, gpu, count):
    if fits_engine(shape, Workload(1, 1, weights), gpu, count):
        assert shape.parameters <= serving_capacity_params(gpu, weights, count) + shape.input_embedding_parameters * 2


@given(shapes, st.integers(1, 2**20), st.integers(1, 2**20), st.integers(1, 256), st.integers(1, 256))
def test_the_kv_cache_grows_with_context_and_users_up_to_the_maximum_context(shape, c1, c2, u1, u2):
    (short, long), (few, many) = sorted((c1, c2)), sorted((u1, u2))
    assert kv_cache_bytes(shape, short, "bf16", few) <= kv_cache_bytes(shape, long, "bf16", many)
    assert kv_cache_bytes(shape, long) <= kv_cache_bytes(shape, shape.max_context_tokens)
    assert kv_cache_bytes(shape, long, "fp8") * 2 == kv_cache_bytes(shape, long, "bf16")
    assert effective_context(shape, long) <= shape.max_context_tokens


@given(shapes)
def test_fewer_bits_never_weigh_more(shape):
    sizes = [weights_bytes(shape, f) for f in ("bf16", "fp8", "int4", "nf4")]
    assert sizes[0] >= sizes[1] >= sizes[2] >= sizes[3] > 0
    for weights in ("bf16", "fp8", "int4"):
        assert 0 < weights_read_per_token_bytes(shape, weights) <= weights_bytes(shape, weights)


@given(shapes, formats, gpus, st.integers(1, 2**17), st.integers(1, 64))
def test_more_gpus_never_need_more_memory_each(shape, weights, gpu, context, users):
    workload = Workload(context, users, weights)
    per_gpu = [memory_per_gpu_bytes(shape, workload, n) for n in engine_budget.GPU_COUNTS]
    assert per_gpu == sorted(per_gpu, reverse=True)


def test_an_unknown_format_is_an_error():
    with pytest.raises(ValueError, match="unknown weight format"):
        weights_bytes(LLAMA_3_1_8B, "fp2")
