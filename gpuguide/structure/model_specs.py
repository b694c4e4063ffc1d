"""The models of ``data/models.yaml``: language models' architectures (``LlmModel``) and image and
video generation models (``DiffusionModel``), as their publishers document them."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field, model_validator

from gpuguide.structure.field_types import Identifier, Positive, PositiveInt, SourceUrl
from gpuguide.structure.schema import Strict, pattern_hint


class NativePrecision(Strict):
    """A model published in a format other than BF16 (DeepSeek's FP8, gpt-oss's MXFP4)."""

    format: Literal["fp8", "mxfp4"]
    """the format of the published weights"""
    quantized_parameters: PositiveInt | None = None
    """the parameters stored in that format (the others are BF16); left out: all of them"""
    checkpoint_gib: Positive | None = None
    """the checkpoint size the publisher states, GiB"""
    source: SourceUrl
    """where the publisher says so, https://"""


class LlmModel(Strict):
    """A large language model's architecture, as its model card or ``config.json`` gives it."""

    id: Identifier
    """lower-case letters, digits and dashes (`llama-3-1-8b`): how pages and shortcodes name it"""
    name: str
    """its name as pages print it"""
    developer: str
    """who publishes it"""
    family: str | None = None
    """the family its publisher releases it in, as its card names it (`Llama 3.1`, `Qwen3`): its page says how it differs from the others of its family (and from models of the same layers and KV cache)"""
    license: str | None = None
    """the licence its card states (`Apache 2.0`); left out where none is on record"""
    release_date: dt.date | None = None
    """the day its publisher released it, as its card states it; left out where none is on record"""
    parameters: PositiveInt
    """total parameters, exact where published (else as the card rounds it, and `notes` says so)"""
    active_parameters: PositiveInt | None = None
    """mixture of experts only: the parameters read per token"""
    layers: PositiveInt
    """transformer layers (config.json `num_hidden_layers`)"""
    kv_heads: PositiveInt
    """key/value heads per layer (`num_key_value_heads`; the attention heads without grouped-query attention)"""
    head_dim: PositiveInt
    """the size of a head (`head_dim`)"""
    attention_heads: PositiveInt
    """query heads per layer (`num_attention_heads`): tensor parallelism must divide them"""
    vocab_size: PositiveInt
    """tokens in the vocabulary (`vocab_size`): with `hidden_size`, the embedding's size, kept in 16 bits by quantized checkpoints"""
    hidden_size: PositiveInt
    """the model's width (`hidden_size`)"""
    tied_embeddings: bool = False
    """the output layer is the input embedding (`tie_word_embeddings`)"""
    kv_compressed_dim: PositiveInt | None = None
    """multi-head latent attention (DeepSeek): the elements one layer caches per token, instead of 2 × kv_heads × head_dim"""
    max_context_tokens: PositiveInt
    """the longest context the card documents: no KV cache is sized beyond it"""
    window_tokens: PositiveInt | None = None
    """sliding-window or chunked attention: the tokens each such layer keeps"""
    window_layers: PositiveInt | None = None
    """how many layers attend within that window (the others keep the whole context)"""
    native_precision: NativePrecision | None = None
    """the format the publisher ships, where it is not BF16 (below)"""
    source: SourceUrl
    """the model card or config.json its figures come from, https://"""
    sources: list[SourceUrl] = []
    """further documents used (papers, config.json)"""
    repository: Annotated[str, Field(pattern=pattern_hint(
        r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$",
        "write the Hugging Face repository as owner/name, e.g. `Qwen/Qwen3-32B`"))] | None = None
    """the Hugging Face repository an engine loads (`owner/name`), where `source` is not its page"""
    notes: str | None = None
    """which figure was chosen where sources differ (not shown on pages)"""

    @property
    def repository_name(self) -> str:
        """What ``vllm serve`` is given: ``repository``, or the repository of a Hugging Face ``source``."""
        if self.repository is not None:
            return self.repository
        prefix = "https://huggingface.co/"
        return self.source[len(prefix):].strip("/") if self.source.startswith(prefix) else self.id

    @model_validator(mode="after")
    def _consistent(self) -> "LlmModel":
        if self.active_parameters is not None and self.active_parameters > self.parameters:
            raise ValueError("active_parameters is larger than parameters")
        if (self.window_tokens is None) != (self.window_layers is None):
            raise ValueError("window_tokens and window_layers go together")
        if self.window_layers is not None and self.window_layers > self.layers:
            raise ValueError("window_layers is larger than layers")
        embeddings = self.vocab_size * self.hidden_size * (1 if self.tied_embeddings else 2)
        if embeddings >= self.parameters:
            raise ValueError(f"the embeddings alone (vocab_size × hidden_size{'' if self.tied_embeddings else ' × 2'} = "
                             f"{embeddings:,}) are not fewer than `parameters`: check the three figures against config.json")
        native = self.native_precision
        if native is not None and native.quantized_parameters is not None and native.quantized_parameters > self.parameters:
            raise ValueError("native_precision.quantized_parameters is larger than parameters")
        return self



DiffusionPrecision = Literal["bf16", "fp8"]


class DiffusionModel(Strict):
    """An image or video generation model and the GPU memory its publisher documents for it."""

    id: Identifier
    """lower-case letters, digits and dashes: how pages name it"""
    name: str
    """its name as pages print it"""
    developer: str
    """who publishes it"""
    kind: Literal["image", "video"]
    """what it generates"""
    parameters: PositiveInt | None = None
    """total parameters, where published"""
    memory_gb: dict[DiffusionPrecision, Positive] = {}
    """the GPU memory the publisher documents, GB, per weight precision (`bf16`, `fp8`); a precision with no figure is left out"""
    memory_includes: str | None = None
    """what the documented figure covers (resolution, offloading…): required with `memory_gb`"""
    source: SourceUrl
    """the document the figures come from, https://"""
    notes: str | None = None
    """remarks on the figures (not shown on pages)"""

    def documented_memory_gb(self, precision: str) -> float | None:
        """The memory the source documents at ``precision`` ("bf16", "fp8"), None if it gives none."""
        return next((memory for key, memory in self.memory_gb.items() if key == precision), None)

    @model_validator(mode="after")
    def _figures_are_explained(self) -> "DiffusionModel":
        if self.memory_gb and not self.memory_includes:
            raise ValueError("memory_gb needs memory_includes: say what the documented figure covers")
        return self


class ModelFile(Strict):
    llm_models: list[LlmModel]
    diffusion_models: list[DiffusionModel]
