"""Serving memory: what an inference engine allocates to serve a model. Pure functions, exact arithmetic.

The model, stated once (the methodology page prints it from these constants):

- **Budget.** An engine plans on a share of the memory the runtime reports, not of the vendor's
  figure in 10⁹ bytes: GPU memory comes in binary units (an "80 GB" H100 has 80 GiB), the driver
  keeps a little of it (``RUNTIME_RESERVED_SHARE``), vLLM takes ``ENGINE_MEMORY_SHARE`` (90 %) of
  what is left (``--gpu-memory-utilization``), and from that share come its own fixed costs
  (``ENGINE_OVERHEAD_BYTES``: the CUDA or ROCm context, activations of the largest batch, CUDA
  graphs). What remains holds the weights and the KV cache. (Training keeps its own, more
  conservative rule in ``sizing``: 80 % of the vendor's figure.)
- **Weights** in the format actually loaded (``FORMATS``): bits per weight with the group scales,
  the embeddings and the output layer kept in 16 bits, and a model's native mix (gpt-oss: only the
  experts in MXFP4).
- **KV cache** for every sequence in flight at the workload's context (bounded by the model's
  maximum): keys and values per KV head (grouped-query attention), one latent per layer
  (multi-head latent attention), sliding-window layers capped at their window; BF16 or FP8.
- **Several GPUs** split a model by tensor parallelism, within one fast-link group: the weights
  divide, the KV cache divides by KV heads (a rank keeps at least one head; a latent cache is kept
  whole on every rank).

Sizes are in bytes (exact ``Fraction``) or parameters (``int``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from collections.abc import Mapping
from typing import Any

from gpuguide.figures.expression import minimum, select, symbolic
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
class WeightFormat:
    """A storage format of weights, as an engine loads it."""

    key: str
    bits_per_weight: Fraction  # of a quantized tensor, its scales (and zero points) included
    compute: str  # the fastest tensor-core precision its matrix products can use: bf16, fp8 or fp4
    source: str
    source_title: str
    # The tensor cores the format is made for (FP8 weights: FP8 tensor cores); without them an engine
    # runs it weight-only. None: a weight-only format everywhere (AWQ, GPTQ, NF4 dequantize to 16 bits).
    made_for: str | None = None


#: The formats, in the order the pages list them. Quantized checkpoints (FP8, AWQ, GPTQ, NF4) keep
#: the embeddings and the output layer in 16 bits; a native format applies to what the model's
#: publisher quantized (``ModelShape.native_quantized_parameters``).
FORMATS: dict[str, WeightFormat] = {f.key: f for f in (
    WeightFormat("bf16", Fraction(16), "bf16", "https://cloud.google.com/tpu/docs/bfloat16",
                 "Google Cloud, The bfloat16 numerical format", "bf16"),
    # One scale per output channel: 16 bits per row of thousands of weights, left out.
    WeightFormat("fp8", Fraction(8), "fp8",
                 "https://docs.vllm.ai/en/latest/features/quantization/fp8.html", "vLLM documentation, FP8 W8A8", "fp8"),
    # AWQ and GPTQ, group size 128: a 16-bit scale and a 4-bit zero point per 128 weights.
    WeightFormat("int4", 4 + Fraction(16 + 4, 128), "fp8", "https://arxiv.org/abs/2306.00978",
                 "AWQ (Lin et al., MLSys 2024), group size 128"),
    # NormalFloat 4 with double quantization: 4 + 8/64 + 32/(64 × 256) bits (QLoRA, section 3).
    WeightFormat("nf4", 4 + Fraction(8, 64) + Fraction(32, 64 * 256), "bf16",
                 "https://arxiv.org/abs/2305.14314", "QLoRA (Dettmers et al., NeurIPS 2023), section 3"),
    # OCP Microscaling FP4: 32 four-bit values share one 8-bit scale.
    WeightFormat("mxfp4", 4 + Fraction(8, 32), "fp4",
                 "https://www.opencompute.org/documents/ocp-microscaling-formats-mx-v1-0-spec-final-pdf",
                 "OCP Microscaling Formats (MX) Specification 1.0, section 5.3", "fp4"),
    # NVIDIA's FP4: 16 four-bit values share one FP8 (E4M3) scale, plus one FP32 scale per tensor.
    WeightFormat("nvfp4", 4 + Fraction(8, 16), "fp4",
                 "https://developer.nvidia.com/blog/introducing-nvfp4-for-efficient-and-accurate-low-precision-inference/",
                 "NVIDIA Technical Blog, Introducing NVFP4", "fp4"),
)}

#: Bytes per cached element, by KV-cache format (vLLM's ``--kv-cache-dtype``: ``auto`` keeps the
#: model's 16 bits, ``fp8`` halves the cache).
KV_CACHE_BYTES = {"bf16": 2, "fp8": 1}

#: The formats a page offers for a model's weights: its native one comes on top where it differs.
SERVING_FORMATS = ("bf16", "fp8", "int4")


@dataclass(frozen=True)
class ModelShape:
    """What the serving model needs of a language model, as its config.json gives it."""

    parameters: int
    layers: int
    kv_heads: int
    head_dim: int
    max_context_tokens: int
    active_parameters: int | None = None  # mixture of experts: parameters used per token
    kv_compressed_dim: int | None = None  # multi-head latent attention: elements cached per layer
    window_tokens: int | None = None  # sliding-window (or chunked) attention: tokens a local layer keeps
    window_layers: int = 0  # how many of the layers attend within the window
    native_format: str | None = None  # the format the publisher ships, where it is not BF16
    native_quantized_parameters: int | None = None  # parameters stored in it (the rest are BF16)
    attention_heads: int | None = None  # query heads (tensor parallelism must divide them)
    vocab_size: int = 0  # with hidden_size: the embedding's size, kept in 16 bits
    hidden_size: int = 0
    tied_embeddings: bool = False  # the output layer is the input embedding

    @property
    def input_embedding_parameters(self) -> int:
        return self.vocab_size * self.hidden_size

    @property
    def output_layer_parameters(self) -> int:
        return 0 if self.tied_embeddings else self.vocab_size * self.hidden_size


def weight_format(key: str) -> WeightFormat:
    """The format named ``key``; ValueError names the known ones."""
    try:
        return FORMATS[key]
    except KeyError:
        raise ValueError(f"unknown weight format {key!r}; use one of {', '.join(FORMATS)}") from None


def format_of(shape: ModelShape, weights: str) -> str:
    """The format ``weights`` stands for: ``native`` is the publisher's (BF16 when none is given)."""
    return (shape.native_format or "bf16") if weights == "native" else weight_format(weights).key


@dataclass(frozen=True)
class WeightGroups:
    """A model's weights by storage: ``quantized`` parameters at ``bytes_each``, ``kept`` in 16 bits,
    and ``looked_up``: the input embedding, of which a step reads one row, not the matrix."""

    quantized: int
    bytes_each: Fraction
    kept: int
    looked_up: int


def weight_groups(shape: ModelShape, weights: str) -> WeightGroups:
    """How ``weights`` stores the model: BF16 stores everything in 16 bits; a quantized checkpoint
    keeps the embeddings and the output layer in 16 bits; a native mix quantizes what its
    publisher quantized (the rest in BF16)."""
    key = format_of(shape, weights)
    bytes_each = weight_format(key).bits_per_weight / 8
    looked_up = 0 if shape.tied_embeddings else shape.input_embedding_parameters
    if key == "bf16":
        return WeightGroups(shape.parameters, bytes_each, 0, looked_up)
    if weights == "native" and shape.native_quantized_parameters:
        quantized = shape.native_quantized_parameters
    else:
        quantized = shape.parameters - shape.input_embedding_parameters - shape.output_layer_parameters
    return WeightGroups(quantized, bytes_each, shape.parameters - quantized, looked_up)


def weights_bytes(shape: ModelShape, weights: str) -> Fraction:
    """Bytes of a model's weights in the format ``weights`` (``native``: the publisher's mix).

    >>> llama_8b = ModelShape(8_030_261_248, 32, 8, 128, 131_072, vocab_size=128_256, hidden_size=4096)
    >>> [round(float(weights_bytes(llama_8b, f)) / 1e9, 2) for f in ("bf16", "fp8", "int4")]
    [16.06, 9.08, 5.73]
    """
    groups = weight_groups(shape, weights)
    return groups.quantized * groups.bytes_each + groups.kept * 2


def weights_read_per_token_bytes(shape: ModelShape, weights: str) -> Fraction:
    """Bytes of weights one decoding step reads at the least: every weight but the input embedding
    (a row is looked up), and of a mixture of experts only the active parameters (which, as model
    cards count them, leave the input embedding out): its 16-bit ones first, the rest quantized.

    >>> gpt_oss = ModelShape(116_830_000_000, 36, 8, 64, 131_072, 5_130_000_000, native_format="mxfp4",
    ...     native_quantized_parameters=114_710_000_000, vocab_size=201_088, hidden_size=2880)
    >>> round(float(weights_read_per_token_bytes(gpt_oss, "native")) / 1e9, 2)  # 1.5B in BF16, 3.6B in MXFP4
    4.99
    """
    groups = weight_groups(shape, weights)
    if groups.kept:  # the input embedding is one of the 16-bit tensors
        kept_read, quantized_read = groups.kept - groups.looked_up, groups.quantized
    else:
        kept_read, quantized_read = 0, groups.quantized - groups.looked_up
    if shape.active_parameters:
        quantized_read = min(quantized_read, max(shape.active_parameters - kept_read, 0))
    return quantized_read * groups.bytes_each + kept_read * 2


# --- KV cache ------------------------------------------------------------------------------------

def kv_cache_bytes_per_token_per_layer(shape: ModelShape, kv_cache: Any = "bf16") -> Any:
    """Bytes one layer caches per token: 2 (keys and values) × KV heads × head size, or one latent
    of ``kv_compressed_dim`` (DeepSeek-V2 paper, section 2.1, https://arxiv.org/abs/2405.04434).

    >>> kv_cache_bytes_per_token_per_layer(ModelShape(70_553_706_496, 80, 8, 128, 8192))  # Llama 3 70B
    4096
    """
    elements = shape.kv_compressed_dim if shape.kv_compressed_dim is not None else 2 * shape.kv_heads * shape.head_dim
    if symbolic(kv_cache):  # the planner's input: an index of KV_CACHE_BYTES
        return elements * select(kv_cache, list(KV_CACHE_BYTES.values()))
    return elements * KV_CACHE_BYTES[kv_cache]


def effective_context(shape: ModelShape, context_tokens: Any) -> Any:
    """The context a KV cache is sized for: ``context_tokens``, at most the model's maximum.

    >>> effective_context(ModelShape(20_554_567_680, 44, 64, 96, 2048), 8192)  # GPT-NeoX-20B
    2048
    """
    if not symbolic(context_tokens) and context_tokens < 1:
        raise ValueError("context_tokens must be at least 1")
    return minimum(context_tokens, shape.max_context_tokens)


def kv_cache_bytes(shape: ModelShape, context_tokens: Any, kv_cache: Any = "bf16", sequences: Any = 1) -> Any:
    """KV cache of ``sequences`` sequences of ``context_tokens`` each (bounded by the model's maximum).

    >>> kv_cache_bytes(ModelShape(8_030_261_248, 32, 8, 128, 131_072), 8192)  # Llama 3.1 8B: 1 GiB
    1073741824
    >>> kv_cache_bytes(ModelShape(70_553_706_496, 80, 8, 128, 131_072), 32_768, "bf16", 10) / 1e9  # 107 GB
    107.3741824
    """
    tokens = effective_context(shape, context_tokens)
    window_layers = shape.window_layers if shape.window_tokens else 0
    cached = (shape.layers - window_layers) * tokens
    if window_layers:
        cached += window_layers * minimum(tokens, shape.window_tokens or tokens)
    return sequences * cached * kv_cache_bytes_per_token_per_layer(shape, kv_cache)


# --- Budget and tensor parallelism ---------------------------------------------------------------

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
    usd_per_gpu_hour: Real | None = None  # None: no live offer
    runtime_memory_gib: Real | None = None  # the total the runtime reports, where on record

    def __post_init__(self) -> None:
        if not isinstance(self.tensor_tflops, tuple):
            object.__setattr__(self, "tensor_tflops", tuple(sorted(self.tensor_tflops.items())))

    @property
    def rates(self) -> dict[str, Real]:
        """Dense TFLOPS by tensor path."""
        return dict(self.tensor_tflops)

    @property
    def runtime_memory_bytes(self) -> Fraction:
        """The memory the runtime reports: its recorded total, or the vendor's figure read in GiB.

        >>> ServingGpu("h100-sxm", 80, runtime_memory_gib=Fraction(81_559, 1024)).runtime_memory_bytes / GIB
        Fraction(81559, 1024)
        """
        return exact(self.runtime_memory_gib if self.runtime_memory_gib is not None else self.memory_gb) * GIB

    @property
    def engine_budget_bytes(self) -> Fraction:
        """What one GPU holds of weights and KV cache when an engine serves: the reported memory ×
        90 %, less the engine's fixed costs.

        >>> round(float(ServingGpu("a100-sxm", 80).engine_budget_bytes) / GIB, 2)
        69.0
        """
        return self.runtime_memory_bytes * ENGINE_MEMORY_SHARE - ENGINE_OVERHEAD_BYTES


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


@dataclass(frozen=True)
class Workload:
    """What a buyer serves: ``users`` sequences in flight, each up to ``context_tokens`` tokens (numbers,
    or the planner's inputs: ``expression.var``)."""

    context_tokens: Any
    users: Any
    weights: str = "native"  # a key of FORMATS, or the model's own format
    kv_cache: Any = "bf16"  # a key of KV_CACHE_BYTES (the planner: an input, the index of one)


@dataclass(frozen=True)
class Preset:
    """A named workload the pages size every model for."""

    key: str
    context_tokens: int
    users: int


#: Chat: one user, 8k tokens; team: ten users, 32k each; batch: 64 sequences of 4k.
PRESETS: tuple[Preset, ...] = (Preset("chat", 8192, 1), Preset("team", 32_768, 10), Preset("batch", 4096, 64))


def preset(key: str) -> Preset:
    return next(p for p in PRESETS if p.key == key)


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
