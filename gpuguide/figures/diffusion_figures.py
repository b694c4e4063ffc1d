"""What an image or video model's page shows: the memory its publisher documents, or else its
weights estimated from its parameter count (``diffusion_needs``), the GPUs that have it, the
cheapest of them, its published throughput (``generation_table``), and which of these models a GPU
runs (``diffusion_on_gpu``). Every figure from the figures library, every word from the UI strings.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from babel.lists import format_list

from gpuguide.figures import formatting, measured, sizing
from gpuguide.figures.plan_tables import memory_need_gb
from gpuguide.figures.registry import BlockCell, BlockTable
from gpuguide.structure.dataset import Dataset
from gpuguide.structure.gpu_specs import Gpu
from gpuguide.structure.language import Language
from gpuguide.structure.model_specs import DiffusionModel

#: The bytes a diffusion model's weight takes, per precision, where only its parameter count is known.
DIFFUSION_BYTES_PER_PARAMETER = {"bf16": 2, "fp8": 1}


def estimated_weights_gb(parameters: int, precision: str) -> Decimal:
    """A diffusion model's weights from its parameter count: 2 bytes each in BF16, 1 in FP8, rounded
    up to a tenth of a GB. A floor of what it needs: the text encoders, the VAE and the activations
    of a generation come on top.

    >>> estimated_weights_gb(12_000_000_000, "bf16"), estimated_weights_gb(12_000_000_000, "fp8")
    (Decimal('24'), Decimal('12'))
    """
    return memory_need_gb(parameters * DIFFUSION_BYTES_PER_PARAMETER[precision])


@dataclass(frozen=True)
class DiffusionNeed:
    """The memory an image or video model needs at one precision: its publisher's figure, or, where
    the publisher documents none, its weights estimated from its parameters."""

    precision: str  # "bf16", "fp8"
    memory_gb: Decimal
    estimated: bool

    def fits(self, gpu: Gpu) -> bool:
        """A documented figure is the publisher's (a GPU with that much memory runs it); an estimate
        counts the weights alone, so a GPU must have more than that."""
        memory = Decimal(str(gpu.memory_gb))
        return memory > self.memory_gb if self.estimated else memory >= self.memory_gb


def diffusion_needs(diffusion: DiffusionModel) -> list[DiffusionNeed]:
    """Per precision, the documented memory; without any, the weights from the parameter count (none
    without it either)."""
    documented = [DiffusionNeed(precision, Decimal(str(memory)), False) for precision in ("bf16", "fp8")
                  if (memory := diffusion.documented_memory_gb(precision)) is not None]
    if documented or diffusion.parameters is None:
        return documented
    return [DiffusionNeed(precision, estimated_weights_gb(diffusion.parameters, precision), True)
            for precision in ("bf16", "fp8")]


def _by_price(dataset: Dataset) -> list[Gpu]:
    """Every GPU, the cheapest offer first, those without one last."""
    return sorted(dataset.gpus.values(), key=lambda gpu: (
        (price := dataset.price(gpu.id)) is None, price.usd_per_gpu_hour if price else 0, gpu.id))


def diffusion_table(diffusion: DiffusionModel, dataset: Dataset, language: Language) -> BlockTable:
    """Every GPU with the memory the model needs at some precision (``diffusion_needs``), cheapest first."""
    ui, locale = language.ui, language.locale
    needs = diffusion_needs(diffusion)
    rows = []
    for gpu in _by_price(dataset):
        runs = [need.fits(gpu) for need in needs]
        if not any(runs):
            continue
        price = dataset.price(gpu.id)
        rows.append((
            BlockCell(gpu.model, (("gpu", gpu.id),), page=("gpu", gpu.id)),
            BlockCell(formatting.memory_gb(gpu.memory_gb, locale)),
            *(BlockCell(ui("answer_yes" if fits else "answer_no")) for fits in runs),
            BlockCell(ui("price_per_hour", price=formatting.usd(price.usd_per_gpu_hour, locale)) if price
                      else ui("no_offer")),
        ))
    estimated = any(need.estimated for need in needs)
    column = "column_holds_weights" if estimated else "column_runs_at"
    headers = (ui("column_gpu"), ui("column_memory"),
               *(ui(column, precision=ui(f"precision_{need.precision}")) for need in needs), ui("column_price"))
    caption = ui("diffusion_gpus_estimated_caption" if estimated else "diffusion_gpus_caption", model=diffusion.name)
    return BlockTable(caption, headers, tuple(rows), (False, True, *(False for _ in needs), True))


def diffusion_facts(diffusion: DiffusionModel, language: Language) -> list[tuple[str, str]]:
    """(label, text): its publisher, its parameters where known, the memory it needs per precision
    (documented, or its weights estimated)."""
    ui, locale = language.ui, language.locale
    rows = [(ui("model_fact_developer"), diffusion.developer)]
    if diffusion.parameters is not None:
        rows.append((ui("model_fact_parameters"), formatting.billions(diffusion.parameters, locale)))
    for need in diffusion_needs(diffusion):
        label = "diffusion_estimated_memory" if need.estimated else "diffusion_documented_memory"
        rows.append((ui(label, precision=ui(f"precision_{need.precision}")),
                     formatting.memory_gb(need.memory_gb, locale)))
    return rows


def diffusion_memory_text(diffusion: DiffusionModel, language: Language) -> list[tuple[str, str]]:
    """(precision, memory) for each precision the publisher documents, or else of the estimated weights."""
    return [(language.ui(f"precision_{need.precision}"), formatting.memory_gb(need.memory_gb, language.locale))
            for need in diffusion_needs(diffusion)]


def diffusion_cheapest(diffusion: DiffusionModel, dataset: Dataset, language: Language) -> list[tuple[str, str]]:
    """(GPU id, the sentence naming the cheapest GPU on offer with the memory the model needs), per
    precision, or once for the precisions the same GPU serves."""
    by_gpu: dict[str, list[DiffusionNeed]] = {}
    for need in diffusion_needs(diffusion):
        gpu = next((gpu for gpu in _by_price(dataset) if dataset.price(gpu.id) and need.fits(gpu)), None)
        if gpu is not None:
            by_gpu.setdefault(gpu.id, []).append(need)
    found = []
    for gpu_id, needs in by_gpu.items():
        price = dataset.price(gpu_id)
        assert price is not None
        precisions = format_list([language.ui(f"precision_{need.precision}") for need in needs], locale=language.locale)
        found.append((gpu_id, language.ui(
            "diffusion_cheapest_estimated" if needs[0].estimated else "diffusion_cheapest_documented",
            precision=precisions, gpu=dataset.gpus[gpu_id].model,
            price=formatting.usd(price.usd_per_gpu_hour, language.locale))))
    return found


def diffusion_intro(diffusion: DiffusionModel, dataset: Dataset, language: Language) -> list[list[str]]:
    """The page's opening sentences: what it generates and from how many parameters, the memory it
    needs (documented or estimated), how many of the site's GPU types have it, its measurements."""
    ui, locale = language.ui, language.locale
    kind = diffusion.kind
    if diffusion.parameters is not None:
        sentences = [ui(f"diffusion_intro_{kind}_parameters", model=diffusion.name, developer=diffusion.developer,
                        parameters=formatting.billions(diffusion.parameters, locale))]
    else:
        sentences = [ui(f"diffusion_intro_{kind}", model=diffusion.name, developer=diffusion.developer)]
    needs = diffusion_needs(diffusion)
    if not needs:
        return [[*sentences, ui("diffusion_intro_unknown")]]
    listed = format_list([ui("diffusion_need_item", memory=formatting.memory_gb(need.memory_gb, locale),
                             precision=ui(f"precision_{need.precision}")) for need in needs], locale=locale)
    sentences.append(ui("diffusion_intro_estimated" if needs[0].estimated else "diffusion_intro_documented",
                        needs=listed))
    smallest = min(needs, key=lambda need: need.memory_gb)
    holding = sum(smallest.fits(gpu) for gpu in dataset.gpus.values())
    precision = ui(f"precision_{smallest.precision}")
    if holding == len(dataset.gpus):
        sentences.append(ui("diffusion_intro_gpus_all", precision=precision))
    else:
        sentences.append(ui("diffusion_intro_gpus", count=holding, holding=formatting.whole_number(holding, locale),
                            total=formatting.whole_number(len(dataset.gpus), locale), precision=precision))
    results = len([m for m in measured.image_measurements(dataset, model=diffusion.id)])
    if results:
        sentences.append(ui("diffusion_intro_measured", count=results,
                            results=formatting.whole_number(results, locale)))
    return [sentences]


def diffusion_estimate_note(diffusion: DiffusionModel, language: Language) -> str | None:
    """How the weights were estimated, where they were; None for a documented figure."""
    needs = diffusion_needs(diffusion)
    if not needs or not needs[0].estimated or diffusion.parameters is None:
        return None
    return language.ui("diffusion_estimate_note", parameters=formatting.billions(diffusion.parameters, language.locale),
                       bf16_bytes=DIFFUSION_BYTES_PER_PARAMETER["bf16"], fp8_bytes=DIFFUSION_BYTES_PER_PARAMETER["fp8"])


def generation_table(diffusion: DiffusionModel, dataset: Dataset, language: Language) -> BlockTable | None:
    """Published throughput of an image or video model (MLPerf, Offline): images per minute or videos
    per hour per GPU, and what a thousand images (or one video) cost at this site's price; None
    without a measurement."""
    ui, locale = language.ui, language.locale
    per, scale = (("minute", 60), 1000) if diffusion.kind == "image" else (("hour", 3600), 1)
    rows = []
    found = [m for m in measured.image_measurements(dataset, model=diffusion.id)
             if m.scenario == "offline" and m.samples_per_second]
    found.sort(key=lambda m: -(sizing.exact(m.samples_per_second or 0) / m.gpu_count))
    for m in found:
        gpu = dataset.gpus[m.gpu]
        per_gpu = sizing.exact(m.samples_per_second or 0) / m.gpu_count
        price = dataset.price(gpu.id)
        cost = (sizing.exact(price.usd_per_gpu_hour) / (per_gpu * 3600) * scale) if price else None
        rows.append((
            BlockCell(ui("measured_system", count=m.gpu_count, gpu=gpu.short_name),
                      (("gpu", gpu.id), ("count", str(m.gpu_count)), ("measurement", m.id)), page=("gpu", gpu.id),
                      detail=ui("measured_round", round=m.round, submitter=m.submitter.replace("_", " "))),
            BlockCell(formatting.decimal(formatting.significant(per_gpu * per[1], 3, "ROUND_HALF_EVEN"), locale),
                      (("samples-per-second", str(m.samples_per_second)),)),
            BlockCell(formatting.usd_rate(cost, locale) if cost is not None else ui("no_offer")),
            BlockCell(ui("source_link"), href=m.source),
        ))
    if not rows:
        return None
    headers = (ui("column_system"), ui(f"column_{diffusion.kind}s_per_{per[0]}_per_gpu"),
               ui(f"column_cost_per_{diffusion.kind}_unit"), ui("column_source"))
    return BlockTable(ui("generation_caption", model=diffusion.name), headers, tuple(rows), (False, True, True, False))


# --- What a GPU runs -----------------------------------------------------------------------------

def diffusion_on_gpu(gpu: Gpu, dataset: Dataset) -> list[DiffusionModel]:
    """The image and video models whose documented memory (at any documented precision) this GPU has."""
    return [model for model in dataset.diffusion_models.values()
            if any(sizing.diffusion_fits(gpu.memory_gb, model.documented_memory_gb(p)) for p in ("bf16", "fp8"))]
