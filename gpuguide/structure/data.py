"""The GPU dataset, the models, the price snapshot and the site configuration, loaded from ``data/`` and validated.

Units are in the field names. A figure the vendor does not publish is left out of the YAML and is
``None`` here: it is never guessed, and pages print "not published" for it.
"""

from __future__ import annotations

import datetime as dt
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, Mapping, Sequence, TypeVar

from babel import Locale, UnknownLocaleError
from pydantic import AfterValidator, Field, ValidationInfo, field_validator, model_validator

from gpuguide.errors import Problems, did_you_mean
from gpuguide.structure.schema import Strict, pattern_hint, validate
from gpuguide.structure.sources import YamlDocument, parse_yaml, read_text
from gpuguide.structure.language import Language, fill, make_language, placeholders
from gpuguide.structure.measurements import Benchmark, Measurement, load_measurements

#: Every figure of the data is finite and of a plausible size: `.inf`, `1e308` or a 5,000-digit
#: number is a typo, never a GPU or a model; so is a figure below a thousandth (of a GB, a GB/s,
#: a TFLOPS, a dollar), and `1e-300` would leave the arithmetic's range.
Positive = Annotated[float, Field(ge=0.001, lt=10**9, allow_inf_nan=False)]
PositiveInt = Annotated[int, Field(gt=0, le=10**15)]
#: An id names files (``/gpu/<id>/``, ``/comparer/<a>-vs-<b>/``): 60 characters keep a pair's folder
#: name far within the 255 bytes a file system allows.
Identifier = Annotated[str, Field(max_length=60, pattern=pattern_hint(
    r"^[a-z0-9]+(-[a-z0-9]+)*$", "use lower-case letters, digits and dashes, e.g. `h100-sxm`"))]
SourceUrl = Annotated[str, Field(pattern=pattern_hint(
    r"^https://\S+$", "write the document's address, starting with https://"))]
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


def _cents(value: float) -> float:
    if value < 0.01 or value > 10_000 or round(value, 2) != value:
        raise ValueError("a price is in dollars and cents, from 0.01 to 10,000 (e.g. 2.88)")
    return value


UsdPrice = Annotated[Positive, AfterValidator(_cents)]


class PriceFile(Strict):
    """Best live "from" price per GPU-hour, USD, excluding tax, at one snapshot date."""

    as_of: dt.date
    """the date of the price snapshot (YYYY-MM-DD), printed under the tables"""
    source: str
    """where the prices come from"""
    usd_per_gpu_hour: dict[str, UsdPrice]
    """GPU id → the best live offer per GPU-hour, US dollars and cents, excluding tax; a GPU left out has no offer"""


def _known_locale(value: str) -> str:
    try:
        Locale.parse(value)
    except (ValueError, UnknownLocaleError):
        raise ValueError(f"unknown locale `{value}`; use a CLDR locale such as fr_FR or en_US") from None
    return value


#: A language code is a URL folder (``/fr/``): a BCP 47 language tag, never a path.
LanguageCode = Annotated[str, Field(pattern=pattern_hint(
    r"^[a-z]{2,3}(-[a-z0-9]{2,8})*$", "use a language tag such as `fr` or `pt-br` (lower case)"))]


class LanguageConfig(Strict):
    locale: Annotated[str, AfterValidator(_known_locale)]
    """the CLDR locale (`fr_FR`, `en_US`) that writes numbers, prices, units and picks plural forms"""
    typography: Literal["plain", "french"] = "plain"
    """punctuation spacing: `french` puts no-break spaces before `: ; ! ?` and inside « »"""
    sign_up_url: SourceUrl | None = None
    """where the "create your account" call to action leads, in this language, https://; left out: that call to action is not shown"""
    providers_url: SourceUrl | None = None
    """where the call to action for GPU server owners (the provider programme) leads, in this language, https://; left out: not shown"""
    bid_url: Annotated[str, Field(pattern=pattern_hint(
        r"^https://\S*\{gpu\}\S*$", "write the bid page's address with `{gpu}` where the GPU's id goes"))] | None = None
    """the marketplace's page to place a bid for one GPU, in this language, with `{gpu}` for its id
    (`https://…/market/{gpu}/bid`); a GPU without a live offer links to it ("No offer yet — place a bid"); left out: plain text"""


class SiteConfig(Strict):
    base_url: SourceUrl
    """the address the site is published at (canonical links, sitemap), https://"""
    site_name: str
    """the site's name, in titles and the header"""
    languages: dict[LanguageCode, LanguageConfig] = Field(min_length=1)
    """each language: its code (the URL prefix, a language tag such as `fr`) and its settings, in menu order"""
    default_language: str
    """the language pages are written in first; translations follow it (one of `languages`)"""
    market: Literal["pre-launch", "open"] = "pre-launch"
    """the marketplace's state: `pre-launch` (accounts open, renting from launch day) or `open`; the sign-up box and the price notes follow it"""

    @field_validator("default_language")
    @classmethod
    def _default_is_listed(cls, value: str, info: ValidationInfo) -> str:
        languages = info.data.get("languages")
        if languages is not None and value not in languages:
            raise ValueError(f"default_language `{value}` is not in languages ({', '.join(languages)})")
        return value


class UseCaseFile(Strict):
    use_cases: list[Identifier]
    """the use cases' ids, in the order menus list them"""


PluralCategory = Literal["zero", "one", "two", "few", "many", "other"]
#: A UI string: one text, or one per CLDR plural category of the language (``one``, ``other``…),
#: chosen by the ``{count}`` it is given.
UiString = str | dict[PluralCategory, str]


class UiStrings(Strict):
    strings: dict[str, UiString]


def _ui_string_forms(value: UiString) -> list[str]:
    return list(value.values()) if isinstance(value, dict) else [value]


@dataclass(frozen=True)
class Price:
    usd_per_gpu_hour: float
    as_of: dt.date


@dataclass
class Dataset:
    """Everything in ``data/`` after validation."""

    config: SiteConfig
    gpus: Mapping[str, Gpu]  # in file order
    prices: Mapping[str, Price]
    prices_as_of: dt.date
    use_cases: list[str]  # ids, in menu order
    llm_models: Mapping[str, LlmModel]  # in file order
    diffusion_models: Mapping[str, DiffusionModel]  # in file order
    strings: Mapping[str, Mapping[str, Any]]  # language -> key -> text (or its plural forms)
    files: dict[str, Path]  # what each part was read from, for error messages
    anchors: list[Anchor] = dataclasses.field(default_factory=list)  # published figures to check against
    benchmarks: Mapping[str, Benchmark] = dataclasses.field(default_factory=dict)  # what the measurements ran
    measurements: Sequence[Measurement] = ()  # published results, in file order
    ui_lines: dict[str, dict[str, int]] = dataclasses.field(default_factory=dict)  # language → UI string → its line

    def price(self, gpu_id: str) -> Price | None:
        return self.prices.get(gpu_id)

    def bid_url(self, lang: str, gpu_id: str) -> str | None:
        """The marketplace's page to bid for ``gpu_id``, in ``lang``; None where none is set."""
        pattern = self.config.languages[lang].bid_url
        return fill(pattern, {"gpu": gpu_id}) if pattern else None

    def languages(self) -> dict[str, Language]:
        """Each language of the site, in menu order, made once per build."""
        return {code: make_language(code, config.locale, config.typography, self.strings[code])
                for code, config in self.config.languages.items()}



Record = TypeVar("Record", Gpu, LlmModel, DiffusionModel)


def _by_id(records: Sequence[Record], document: YamlDocument, key: str, path: Path, problems: Problems,
           what: str) -> dict[str, Record]:
    """Index ``records`` (the list at ``key`` in ``document``) by id, in file order; report duplicates."""
    index: dict[str, Record] = {}
    for position, record in enumerate(records):
        if record.id in index:
            pos = document.position((key, position, "id"))
            problems.error(path, pos.line, pos.column, f"duplicate {what} id `{record.id}`",
                           f"each {what} needs its own id")
        index[record.id] = record
    return index


def _load(path: Path, problems: Problems) -> YamlDocument | None:
    text = read_text(path, problems)  # through the gate; a missing file is reported there
    return None if text is None else parse_yaml(text, path, problems)


def load_dataset(data_dir: Path, problems: Problems, keep_partial: bool = False) -> Dataset | None:
    """Load and validate ``data/``; report every problem; None when any was an error (with
    ``keep_partial``: unless only the prices, anchors or measurements failed, loaded empty)."""
    before = len(problems.errors)
    files = {
        "config": data_dir / "site.yaml",
        "gpus": data_dir / "gpus.yaml",
        "prices": data_dir / "prices.yaml",
        "use_cases": data_dir / "use_cases.yaml",
        "models": data_dir / "models.yaml",
        "anchors": data_dir / "anchors.yaml",
        "measurements": data_dir / "measurements.yaml",
    }
    config_doc = _load(files["config"], problems)
    config = validate(SiteConfig, config_doc, files["config"], problems) if config_doc else None

    gpu_doc = _load(files["gpus"], problems)
    gpu_file = validate(GpuFile, gpu_doc, files["gpus"], problems) if gpu_doc else None
    gpus = _by_id(gpu_file.gpus, gpu_doc, "gpus", files["gpus"], problems, "GPU") if gpu_file and gpu_doc else {}

    price_doc = _load(files["prices"], problems)
    price_file = validate(PriceFile, price_doc, files["prices"], problems) if price_doc else None
    prices: dict[str, Price] = {}
    if price_file and price_doc:
        for gpu_id, usd in price_file.usd_per_gpu_hour.items():
            if gpus and gpu_id not in gpus:
                pos = price_doc.position(("usd_per_gpu_hour", gpu_id))
                problems.error(files["prices"], pos.line, pos.column, f"unknown GPU id `{gpu_id}`",
                               did_you_mean(gpu_id, gpus) or "use an id from data/gpus.yaml")
            prices[gpu_id] = Price(usd, price_file.as_of)

    use_case_doc = _load(files["use_cases"], problems)
    use_case_file = validate(UseCaseFile, use_case_doc, files["use_cases"], problems) if use_case_doc else None

    model_doc = _load(files["models"], problems)
    model_file = validate(ModelFile, model_doc, files["models"], problems) if model_doc else None
    llm_models = (_by_id(model_file.llm_models, model_doc, "llm_models", files["models"], problems, "model")
                  if model_file and model_doc else {})
    diffusion_models = (_by_id(model_file.diffusion_models, model_doc, "diffusion_models", files["models"],
                               problems, "model") if model_file and model_doc else {})
    if model_file is not None and model_doc is not None:
        # Every model gets a page at /<lang>/<models>/<id>/: the two lists share one set of ids.
        for position, diffusion in enumerate(model_file.diffusion_models):
            if diffusion.id in llm_models:
                pos = model_doc.position(("diffusion_models", position, "id"))
                problems.error(files["models"], pos.line, pos.column,
                               f"model id `{diffusion.id}` is also a language model's id",
                               "give each model its own id: both have a page at the same address")

    anchor_doc = _load(files["anchors"], problems)
    anchor_file = validate(AnchorFile, anchor_doc, files["anchors"], problems) if anchor_doc else None
    if anchor_file and anchor_doc and model_file:
        for index, anchor in enumerate(anchor_file.anchors):
            if anchor.model is not None and anchor.model not in llm_models:
                pos = anchor_doc.position(("anchors", index, "model"))
                problems.error(files["anchors"], pos.line, pos.column, f"unknown model `{anchor.model}`",
                               did_you_mean(anchor.model, llm_models) or "use an id from data/models.yaml")

    # Measurements are optional: a site without data/measurements.yaml shows estimates alone.
    measured: tuple[dict[str, Benchmark], list[Measurement]] | None = ({}, [])
    if files["measurements"].exists() or files["measurements"].is_symlink():  # a broken link is reported
        measurement_doc = _load(files["measurements"], problems)
        measured = (load_measurements(measurement_doc, files["measurements"], gpus,
                                      {**llm_models, **diffusion_models}, problems)
                    if measurement_doc and model_file else None)

    strings: dict[str, dict[str, UiString]] = {}
    ui_lines: dict[str, dict[str, int]] = {}
    if config:
        for language in config.languages:
            path = data_dir / "ui" / f"{language}.yaml"
            files[f"ui/{language}"] = path
            if not path.exists() and not path.is_symlink():  # a new language: one problem, what to do
                known = [other for other in config.languages if (data_dir / "ui" / f"{other}.yaml").exists()]
                problems.error(path, 1, 1, f"no UI strings for the language `{language}`",
                               f"copy data/ui/{known[0]}.yaml to data/ui/{language}.yaml and translate each string"
                               if known else f"write data/ui/{language}.yaml with the site's UI strings")
                continue
            doc = _load(path, problems)
            ui = validate(UiStrings, doc, path, problems) if doc else None
            if ui and doc:
                strings[language] = dict(ui.strings)
                ui_lines[language] = {key: doc.position(("strings", key)).line for key in ui.strings}
                ui_lines[language][""] = doc.position(("strings",)).line  # where a missing one goes
                _check_ui_string_forms(ui, doc, path, problems)
        _check_ui_strings_complete(strings, files, ui_lines, problems)

    errors = problems.errors[before:]
    if not errors and config and gpu_file and price_file and use_case_file and model_file and anchor_file and measured:
        return Dataset(config=config, gpus=gpus, prices=prices, prices_as_of=price_file.as_of,
                       use_cases=list(use_case_file.use_cases), llm_models=llm_models,
                       diffusion_models=diffusion_models, strings=strings, files=files,
                       anchors=list(anchor_file.anchors), ui_lines=ui_lines,
                       benchmarks=measured[0], measurements=tuple(measured[1]))
    # With errors, a dataset is still made when only what no other record depends on failed (the
    # prices, the anchors, the measurements: left empty), so that the build goes on to report the
    # pages' own problems in the same run; it never publishes.
    leaves = {problems.relative(files[name]) for name in ("prices", "anchors", "measurements")}
    if keep_partial and config and gpu_file and use_case_file and model_file and len(strings) == len(config.languages) \
            and all(problem.path in leaves for problem in errors):
        return Dataset(config=config, gpus=gpus, prices=prices if price_file else {},
                       prices_as_of=price_file.as_of if price_file else dt.date.min,
                       use_cases=list(use_case_file.use_cases), llm_models=llm_models,
                       diffusion_models=diffusion_models, strings=strings, files=files,
                       anchors=list(anchor_file.anchors) if anchor_file else [], ui_lines=ui_lines,
                       benchmarks=measured[0] if measured else {}, measurements=tuple(measured[1]) if measured else ())
    return None


def _check_ui_string_forms(ui: UiStrings, doc: YamlDocument, path: Path, problems: Problems) -> None:
    """Each UI string is text with plain ``{name}`` placeholders; plural forms include ``other``."""
    for key, value in ui.strings.items():
        pos = doc.position(("strings", key))
        if isinstance(value, dict) and "other" not in value:
            problems.error(path, pos.line, pos.column, f"the UI string `{key}` has no `other` form",
                           "plural forms are chosen by CLDR category; `other` is the one every language has")
        for text in _ui_string_forms(value):
            if not text.strip():
                problems.error(path, pos.line, pos.column, f"the UI string `{key}` is empty", "write its text")
                continue
            try:
                placeholders(text)
            except ValueError as exc:
                problems.error(path, pos.line, pos.column, f"the UI string `{key}`: {exc}",
                               "write braces only around a placeholder name; `{{` and `}}` print a brace")


def _check_ui_strings_complete(strings: dict[str, dict[str, UiString]], files: dict[str, Path],
                               lines: dict[str, dict[str, int]], problems: Problems) -> None:
    """Every language defines every UI string, with the same placeholders: a missing one is an
    error, never a fallback, and a placeholder only one language uses would never be filled."""
    every_key = set().union(*strings.values()) if strings else set()
    for language, table in strings.items():
        for key in sorted(every_key - set(table)):
            others = [lang for lang in strings if key in strings[lang]]
            problems.error(files[f"ui/{language}"], lines[language].get("", 1), 1, f"missing UI string `{key}`",
                           f"translate it from data/ui/{others[0]}.yaml (line {lines[others[0]].get(key, 1)}) "
                           "and add it among the `strings:`")
    languages = list(strings)
    for key in sorted(every_key):
        names = {}
        for language in languages:
            if key in strings[language]:
                try:
                    names[language] = sorted({name for text in _ui_string_forms(strings[language][key])
                                              for name in placeholders(text)})
                except ValueError:
                    continue  # reported by _check_ui_string_forms
        if len({tuple(found) for found in names.values()}) > 1:
            first, *rest = languages
            for language in rest:
                if language in names and first in names and names[language] != names[first]:
                    problems.error(files[f"ui/{language}"], lines[language].get(key, 1), 3,
                                   f"the UI string `{key}` uses {{{'}, {'.join(names[language])}}} "
                                   f"but data/ui/{first}.yaml uses {{{'}, {'.join(names[first])}}}",
                                   "use the same placeholders in every language")
