"""The anchors of ``data/anchors.yaml``: figures papers, vendors and publishers state, which the
memory model is checked against."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import model_validator

from gpuguide.structure.field_types import Identifier, Positive, PositiveInt, SourceUrl
from gpuguide.structure.schema import Strict


class Anchor(Strict):
    """A figure a paper, vendor or publisher states, which the memory model is checked against."""

    id: Identifier
    """lower-case letters, digits and dashes"""
    claim: Literal["training_memory", "trains_on", "serves_on", "kv_cache", "weights", "checkpoint"]
    """what the source states: `training_memory`, `trains_on`, `serves_on`, `kv_cache`, `weights` or `checkpoint` (the fields each needs are listed in data/anchors.yaml)"""
    method: Literal["full", "lora", "qlora"] | None = None
    """`full`, `lora` or `qlora` (training claims)"""
    parameters: PositiveInt | None = None
    """the model size the claim is about"""
    model: str | None = None
    """an id of `llm_models` (serving and weights claims)"""
    precision: Literal["bf16", "fp8", "int4", "nf4", "native"] | None = None
    """`bf16`, `fp8`, `int4` (AWQ, GPTQ), `nf4` or `native` (the publisher's own format)"""
    repository: str | None = None
    """`checkpoint` claims: the published checkpoint (`owner/name`, with its branch where it has several)"""
    gpus: PositiveInt | None = None
    """how many GPUs the claim uses"""
    gpu_memory_gb: Positive | None = None
    """the memory of each of those GPUs, GB"""
    layers: PositiveInt | None = None
    """`kv_cache` claims: the model's layers"""
    kv_heads: PositiveInt | None = None
    """`kv_cache` claims: its key/value heads"""
    head_dim: PositiveInt | None = None
    """`kv_cache` claims: the size of a head"""
    context_tokens: PositiveInt | None = None
    """`kv_cache` claims: the tokens cached"""
    published_gb: Positive | None = None
    """the memory (or, for `weights`, the size) the source states, GB"""
    published_gib: Positive | None = None
    """the size the source states, GiB"""
    published_bytes: PositiveInt | None = None
    """the size the source states, bytes"""
    source: SourceUrl
    """the document, https://"""
    reference: str
    """the document and the place in it, as the methodology page shows it"""
    quote: str
    """the source's own words"""

    NEEDS: ClassVar[dict[str, tuple[str, ...]]] = {
        "training_memory": ("method", "parameters", "published_gb"),
        "trains_on": ("method", "parameters", "gpu_memory_gb"),
        "serves_on": ("model", "precision", "gpus", "gpu_memory_gb"),
        "kv_cache": ("layers", "kv_heads", "head_dim", "context_tokens", "published_bytes"),
        "weights": ("model", "precision"),
        "checkpoint": ("model", "precision", "repository"),
    }
    """: The fields each claim needs."""

    @model_validator(mode="after")
    def _complete(self) -> "Anchor":
        missing = [name for name in self.NEEDS[self.claim] if getattr(self, name) is None]
        if missing:
            raise ValueError(f"a `{self.claim}` anchor needs {', '.join(f'`{name}`' for name in missing)}")
        sizes = [value for value in (self.published_gb, self.published_gib, self.published_bytes) if value is not None]
        if self.claim in ("weights", "checkpoint") and len(sizes) != 1:
            raise ValueError(f"a `{self.claim}` anchor needs one of `published_gb`, `published_gib` or "
                             "`published_bytes`: the unit the source uses")
        return self


class AnchorFile(Strict):
    anchors: list[Anchor]
