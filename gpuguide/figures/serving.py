"""Serving: what a language model needs in memory to serve a workload. Pure functions, exact arithmetic.

The model, stated once (the methodology page prints it from these constants):

- **Weights** in the format actually loaded (``FORMATS``): bits per weight with the group scales,
  the embeddings and the output layer kept in 16 bits, and a model's native mix (gpt-oss: only the
  experts in MXFP4).
- **KV cache** for every sequence in flight at the workload's context (bounded by the model's
  maximum): keys and values per KV head (grouped-query attention), one latent per layer
  (multi-head latent attention), sliding-window layers capped at their window; BF16 or FP8.
- **Workloads**: users × context, and the three presets the pages size every model for (``PRESETS``).

What an engine can hold of it, on one GPU or split across several, is in ``engine_budget``.

Sizes are in bytes (exact ``Fraction``) or parameters (``int``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from gpuguide.figures.expression import minimum, select, symbolic


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


# --- Workloads -----------------------------------------------------------------------------------

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
