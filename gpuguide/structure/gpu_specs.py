"""The GPUs of ``data/gpus.yaml``, as their vendors specify them: ``Gpu``, its ``Interconnect`` and
``FormFactor``.

Units are in the field names. A figure the vendor does not publish is left out of the YAML and is
``None`` here: it is never guessed, and pages print "not published" for it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from gpuguide.structure.field_types import Identifier, Positive, PositiveInt, SourceUrl
from gpuguide.structure.schema import Strict, pattern_hint

#: A figure for a feature the GPU does not have (no FP8 tensor cores): not the same as unpublished.
NotSupported = Literal["not supported"]
Throughput = Positive | NotSupported


class Interconnect(Strict):
    """How GPUs of this type talk to each other, and how many of them share the fast link."""

    kind: Literal["NVLink", "Infinity Fabric", "PCIe"]
    """the link between GPUs"""
    bandwidth_gbs: Positive | None = None
    """total per GPU, both directions, GB/s, as the vendor states it"""
    topology: Literal["nvswitch", "mesh", "bridge", "pcie"]
    """`nvswitch`: a board of GPUs all at full speed; `mesh`: Infinity Fabric between every pair; `bridge`: an NVLink bridge joins a few cards; `pcie`: no fast link"""
    gpus: PositiveInt
    """how many GPUs share the fast link (1 for `pcie`): multi-GPU serving stays within it"""

    @model_validator(mode="after")
    def _consistent(self) -> "Interconnect":
        fast = {"nvswitch": "NVLink", "bridge": "NVLink", "mesh": "Infinity Fabric", "pcie": "PCIe"}
        if fast[self.topology] != self.kind:
            raise ValueError(f"topology `{self.topology}` goes with kind `{fast[self.topology]}`, not `{self.kind}`")
        if self.topology == "pcie" and self.gpus != 1:
            raise ValueError("a PCIe-only GPU shares no fast link: `gpus` is 1")
        if self.topology != "pcie" and self.gpus < 2:
            raise ValueError("a fast link joins at least 2 GPUs")
        return self


class FormFactor(Strict):
    """The GPU's physical format, worded per language by the UI strings (``form_factor_*``)."""

    module: Literal["SXM", "OAM", "PCIe"]
    """the module or card format"""
    slots: Literal[1, 2, 3] | None = None
    """PCIe cards: the width in slots"""
    cooling: Literal["passive", "active", "liquid"] | None = None
    """`passive`: cooled by the server's fans; `active`: fans on the card; `liquid`"""
    low_profile: bool = False
    """a low-profile PCIe card"""
    founders_edition: bool = False
    """the width is the Founders Edition's (partner cards vary)"""


class Gpu(Strict):
    """One GPU model, as its vendor specifies it (dense tensor rates: no sparsity)."""

    id: Identifier
    """lower-case letters, digits and dashes (`h100-sxm`): the GPU page's URL and how pages name it"""
    vendor: Literal["NVIDIA", "AMD", "Intel"]
    """who makes it"""
    model: str
    """its name as pages print it (`H100 SXM`)"""
    short_model: str | None = None
    """a shorter name for titles and narrow columns, where `model` is long (`RTX PRO 6000 Blackwell`); left out: `model`"""
    architecture: str
    """its architecture, printed under its name (`Hopper`)"""
    segment: Literal["data-centre", "workstation", "consumer"]
    """where the catalogue lists it"""
    memory_gb: Positive
    """memory, GB (10⁹ bytes) as the vendor counts it"""
    runtime_memory_gib: Positive | None = None
    """the total memory the runtime reports (nvidia-smi's MiB ÷ 1,024, rocm-smi's bytes ÷ 2³⁰), GiB, where on record: serving budgets start from it (left out: `memory_gb` read as GiB)"""
    runtime_memory_source: SourceUrl | None = None
    """where that total is shown (an nvidia-smi or rocm-smi output), https://: required with `runtime_memory_gib`"""
    memory_type: str
    """HBM3e, GDDR7…"""
    bandwidth_gbs: Positive | None = None
    """memory bandwidth, GB/s; left out when the vendor does not publish it"""
    bf16_tflops: Positive | None = None
    """dense BF16 tensor throughput, TFLOPS (no sparsity; GeForce: the FP32-accumulate rate)"""
    fp8_tflops: Throughput | None = None
    """dense FP8 tensor throughput, TFLOPS, or `not supported` when the GPU has no FP8 tensor cores"""
    fp4_tflops: Throughput | None = None
    """dense FP4 tensor throughput, TFLOPS (Blackwell, CDNA 4), or `not supported`; left out when unpublished"""
    fp32_tflops: Positive | None = None
    """FP32 throughput of the ordinary (non-tensor) cores, TFLOPS"""
    fp64_tflops: Throughput | None = None
    """FP64 vector throughput, TFLOPS, or `not supported`"""
    fp64_tensor_tflops: Throughput | None = None
    """FP64 matrix (tensor) throughput, TFLOPS, or `not supported`"""
    fp64_ratio_of_fp32: Annotated[str, Field(pattern=pattern_hint(
        r"^1/[1-9][0-9]{0,3}$", "write the share as the whitepaper does, e.g. `1/64`"))] | None = None
    """where the vendor gives FP64 only as a share of FP32 (a whitepaper's "1/64th"): `1/64`"""
    tdp_w: PositiveInt | None = None
    """maximum board power, W"""
    interconnect: Interconnect
    """how GPUs of this type talk to each other (below)"""
    form_factor: FormFactor | None = None
    """its physical format (below)"""
    ray_tracing: bool | None = None
    """whether it has ray-tracing hardware (RT cores, ray accelerators)"""
    launch_year: PositiveInt | None = None
    """the year the vendor launched it"""
    source: SourceUrl
    """the vendor document its figures come from, https://"""
    sources: list[SourceUrl] = []
    """further documents used (whitepapers, older datasheets)"""
    notes: str | None = None
    """where sources disagree, which figure was chosen and why (not shown on pages)"""

    @property
    def name(self) -> str:
        return self.model

    @property
    def short_name(self) -> str:
        """The name titles and narrow columns use."""
        return self.short_model or self.model

    @model_validator(mode="after")
    def _runtime_memory_sourced(self) -> "Gpu":
        if (self.runtime_memory_gib is None) != (self.runtime_memory_source is None):
            raise ValueError("runtime_memory_gib and runtime_memory_source go together: give the figure with where it is shown")
        if self.runtime_memory_gib is not None and self.runtime_memory_gib > self.memory_gb * 1.1:
            raise ValueError("runtime_memory_gib is more than the memory the vendor states: it is in GiB, as nvidia-smi's MiB ÷ 1,024")
        return self

    @model_validator(mode="after")
    def _fp64_once(self) -> "Gpu":
        if self.fp64_ratio_of_fp32 is not None:
            if self.fp64_tflops is not None:
                raise ValueError("give fp64_tflops or fp64_ratio_of_fp32, not both")
            if self.fp32_tflops is None:
                raise ValueError("fp64_ratio_of_fp32 needs fp32_tflops")
        return self

    @property
    def fp64_is_derived(self) -> bool:
        return self.fp64_tflops is None and self.fp64_ratio_of_fp32 is not None


class GpuFile(Strict):
    gpus: list[Gpu]
