"""What the memory model reads of the validated records: a model's shape, a GPU's spec and offer,
its throughputs (``figures.records``), checked field by field against the tiny site's data and
small hand-made records."""

from __future__ import annotations

from fractions import Fraction

from gpuguide.figures import serving, sizing
from gpuguide.figures.records import gpu_spec, gpu_specs, model_shape, serving_gpu, throughput
from gpuguide.figures.engine_budget import ServingGpu
from gpuguide.figures.serving import ModelShape
from gpuguide.structure.gpu_specs import Gpu
from gpuguide.structure.model_specs import LlmModel


def llm(**fields: object) -> LlmModel:
    """A hand-made, validated language model; ``fields`` override a plain dense model."""
    base: dict[str, object] = {
        "id": "hand-made", "name": "Hand Made", "developer": "Test", "parameters": 20_000_000_000, "layers": 24,
        "kv_heads": 8, "head_dim": 64, "attention_heads": 32, "vocab_size": 32_000, "hidden_size": 2048,
        "max_context_tokens": 131_072, "source": "https://example.com/hand-made"}
    return LlmModel.model_validate({**base, **fields})


def gpu(**fields: object) -> Gpu:
    """A hand-made, validated GPU; ``fields`` override a PCIe card with nothing optional."""
    base: dict[str, object] = {
        "id": "hand-gpu", "vendor": "NVIDIA", "model": "Hand GPU", "architecture": "Test", "segment": "workstation",
        "memory_gb": 48, "memory_type": "GDDR6", "interconnect": {"kind": "PCIe", "topology": "pcie", "gpus": 1},
        "source": "https://example.com/hand-gpu"}
    return Gpu.model_validate({**base, **fields})


# --- model_shape ---------------------------------------------------------------------------------

def test_a_dense_model_keeps_its_architecture_and_has_no_native_format(dataset):
    shape = model_shape(dataset.llm_models["small-llm"])
    # tests/fixtures/tiny/data/models.yaml, small-llm.
    assert shape == ModelShape(8_030_261_248, 32, 8, 128, 131_072, attention_heads=32, vocab_size=128_256,
                               hidden_size=4096)
    assert shape.window_layers == 0  # no sliding window: the sizing's default, never None
    assert shape.native_format is None and shape.native_quantized_parameters is None


def test_a_mixture_of_experts_with_latent_attention_and_a_native_format(dataset):
    shape = model_shape(dataset.llm_models["big-llm"])
    assert (shape.parameters, shape.layers, shape.kv_heads, shape.head_dim) == (671_000_000_000, 61, 128, 128)
    assert shape.max_context_tokens == 2_048
    assert shape.active_parameters == 37_000_000_000
    assert shape.attention_heads == 128 and not shape.tied_embeddings
    assert shape.kv_compressed_dim == 576
    # Published in FP8 with no `quantized_parameters`: every weight is FP8.
    assert shape.native_format == "fp8" and shape.native_quantized_parameters is None


def test_a_sliding_window_and_a_partly_quantized_native_format_reach_the_shape():
    record = llm(window_tokens=128, window_layers=12,
                 native_precision={"format": "mxfp4", "quantized_parameters": 19_000_000_000,
                                   "source": "https://example.com/mxfp4"})
    shape = model_shape(record)
    assert (shape.window_tokens, shape.window_layers) == (128, 12)
    assert (shape.native_format, shape.native_quantized_parameters) == ("mxfp4", 19_000_000_000)
    # The shape is what sizing computes from: 12 layers keep 128 tokens, the other 12 the whole context.
    assert serving.kv_cache_bytes(shape, 8192) == (12 * 8192 + 12 * 128) * 2 * 8 * 64 * 2


def test_tied_embeddings_and_the_repository_engines_load():
    record = llm(tied_embeddings=True, source="https://huggingface.co/test/hand-made")
    assert model_shape(record).tied_embeddings and model_shape(record).output_layer_parameters == 0
    assert record.repository_name == "test/hand-made"
    assert llm(repository="org/other").repository_name == "org/other"


# --- serving_gpu -------------------------------------------------------------------------------------

def test_serving_gpu_carries_the_tensor_paths_it_has_and_the_runtime_memory_on_record(dataset):
    big = serving_gpu(dataset.gpus["big"], dataset.price("big"))
    assert big == ServingGpu("big", 80, 3350, {"bf16": 989, "fp8": 1979}, 8, 2.88, None)
    pcie = serving_gpu(dataset.gpus["pcie"], None)
    assert pcie.rates == {"bf16": 312}  # FP8 "not supported": no such path
    on_record = serving_gpu(gpu(runtime_memory_gib=44.988, runtime_memory_source="https://example.com/smi"), None)
    assert on_record.runtime_memory_bytes == sizing.exact(44.988) * 2**30


# --- gpu_spec, gpu_specs -------------------------------------------------------------------------

def test_gpu_spec_carries_memory_bandwidth_fast_link_group_and_offer(dataset):
    big = dataset.gpus["big"]
    assert gpu_spec(big, dataset.price("big")) == sizing.GpuSpec("big", 80, 3350, 8, 2.88)


def test_gpu_spec_without_an_offer_has_no_price(dataset):
    spec = gpu_spec(dataset.gpus["pcie"], None)
    assert spec.usd_per_gpu_hour is None
    assert spec.fast_link_gpus == 2  # the NVLink bridge pairs two cards


def test_gpu_spec_of_a_pcie_only_card_has_a_fast_link_group_of_one(dataset):
    assert gpu_spec(dataset.gpus["card"], dataset.price("card")).fast_link_gpus == 1


def test_gpu_specs_follow_file_order_and_pair_each_gpu_with_its_own_price(dataset):
    specs = gpu_specs(dataset.gpus, dataset.prices)
    assert [spec.id for spec in specs] == ["big", "pcie", "card"]  # file order, not price or name order
    # tests/fixtures/tiny/data/prices.yaml: big 2.88, card 0.5, pcie absent.
    assert [spec.usd_per_gpu_hour for spec in specs] == [2.88, None, 0.5]
    assert [spec.memory_gb for spec in specs] == [80, 80, 24]


def test_gpu_specs_of_nothing_is_empty():
    assert gpu_specs({}, {}) == []


# --- throughput ----------------------------------------------------------------------------------

def test_a_published_throughput_is_returned_as_written(dataset):
    assert throughput(dataset.gpus["big"], "fp8_tflops") == 1979
    assert throughput(dataset.gpus["card"], "bf16_tflops") == 165.2


def test_not_supported_is_the_sizing_marker_not_the_yaml_text(dataset):
    value = throughput(dataset.gpus["pcie"], "fp8_tflops")
    assert value is sizing.NOT_SUPPORTED


def test_a_throughput_left_out_is_not_published(dataset):
    assert throughput(dataset.gpus["pcie"], "fp64_tensor_tflops") is None


def test_fp64_given_as_a_share_of_fp32_is_that_share_exactly(dataset):
    card = dataset.gpus["card"]  # fp32 82.6 TFLOPS, fp64_ratio_of_fp32 1/64
    assert throughput(card, "fp64_tflops") == Fraction(826, 10) / 64
    # The share applies to FP64 vector only: FP64 tensor stays not published.
    assert throughput(card, "fp64_tensor_tflops") is None


def test_a_hand_made_half_rate_fp64_is_derived_from_fp32():
    record = gpu(fp32_tflops=19.5, fp64_ratio_of_fp32="1/2")
    assert throughput(record, "fp64_tflops") == Fraction(39, 4)  # 19.5 ÷ 2, no float rounding


def test_fp64_given_directly_is_not_derived(dataset):
    assert throughput(dataset.gpus["pcie"], "fp64_tflops") == 9.7


def test_not_supported_fp64_stays_not_supported():
    assert throughput(gpu(fp32_tflops=40, fp64_tflops="not supported"), "fp64_tflops") is sizing.NOT_SUPPORTED
