"""The real site "scaled" to N GPUs: synthetic GPUs appended to a copy of this project's
``data/gpus.yaml`` (and a price for half of them), so that every page type is built at the size of a
site of about 10,000 pages. A fixture of the tests (``built_scaled_site``) that ``bench/run.py`` builds
too (the 100-GPU site of its report)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SEED = 20261129  # the benchmark corpus's seed (``bench/corpus.py``)


def write_real(root: Path) -> None:
    """A copy of this project's site sources (content, data, templates)."""
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    for folder in ("content", "data", "templates"):
        shutil.copytree(REPO / folder, root / folder)


_VENDORS = (("NVIDIA", "Synthetic Hopper", "NVLink"), ("AMD", "Synthetic CDNA", "Infinity Fabric"),
            ("Intel", "Synthetic Xe", "PCIe"))
_SEGMENTS = ("data-centre", "workstation", "consumer")


def synthetic_gpus(first: int, last: int, seed: int = DEFAULT_SEED) -> str:
    """YAML list items for GPUs ``synthetic-<first>`` … ``synthetic-<last>``, plausible and valid.

    They cover every case the pages distinguish: NVSwitch boards, NVLink bridges, Infinity Fabric
    meshes and PCIe-only cards; FP8 not supported; FP64 published, given as a share of FP32, or
    not published; ray-tracing hardware or none.
    """
    items = []
    for number in range(first, last + 1):
        rng = random.Random(f"{seed}/gpu/{number}")
        vendor, architecture, link = _VENDORS[number % len(_VENDORS)]
        segment = _SEGMENTS[number % len(_SEGMENTS)]
        memory = {"data-centre": (80, 94, 141, 192, 256), "workstation": (32, 48, 96),
                  "consumer": (12, 16, 24, 32)}[segment]
        memory_gb = rng.choice(memory)
        bandwidth = rng.randint(400, 1800) if segment != "data-centre" else rng.randint(1600, 8000)
        bf16 = round(rng.uniform(50, 400) if segment != "data-centre" else rng.uniform(300, 2500), 1)
        fp32 = round(bf16 / rng.uniform(4, 16), 1)
        lines = [
            f"  - id: synthetic-{number:03d}",
            f"    vendor: {vendor}",
            f"    model: Synthetic {number:03d}",
            f"    architecture: {architecture}",
            f"    segment: {segment}",
            f"    memory_gb: {memory_gb}",
            f"    memory_type: {'HBM3' if segment == 'data-centre' else 'GDDR6'}",
            f"    bandwidth_gbs: {bandwidth}",
            f"    bf16_tflops: {bf16}",
            f"    fp32_tflops: {fp32}",
        ]
        if segment == "data-centre":
            lines += ["    fp8_tflops: not supported" if number % 5 == 0 else f"    fp8_tflops: {round(bf16 * 2, 1)}",
                      f"    fp64_tflops: {round(fp32 / 2, 1)}",
                      f"    fp64_tensor_tflops: {fp32}"]
        elif number % 2 == 0:
            lines += ["    fp64_ratio_of_fp32: 1/64"]
        if segment != "data-centre" or link == "PCIe":
            topology, gpus, form = ("pcie", 1, "{module: PCIe, slots: 2, cooling: active}")
            link = "PCIe"
        elif link == "Infinity Fabric":
            topology, gpus, form = ("mesh", 8, "{module: OAM}")
        elif number % 4 == 0:
            topology, gpus, form = ("bridge", 2, "{module: PCIe, slots: 2, cooling: passive}")
        else:
            topology, gpus, form = ("nvswitch", 8, "{module: SXM}")
        lines += [
            f"    tdp_w: {rng.choice((250, 300, 350, 450, 600, 700, 1000))}",
            f"    interconnect: {{kind: {link}, bandwidth_gbs: {rng.choice((64, 128, 600, 900))}, "
            f"topology: {topology}, gpus: {gpus}}}",
            f"    form_factor: {form}",
            f"    ray_tracing: {'false' if segment == 'data-centre' else 'true'}",
            f"    launch_year: {rng.randint(2019, 2026)}",
            "    source: https://example.com/synthetic",
            "    notes: Synthetic GPU for the benchmark; its figures are made up.",
        ]
        items.append("\n".join(lines))
    return "\n\n" + "\n\n".join(items) + "\n"


def write_scaled(root: Path, total_gpus: int = 100, seed: int = DEFAULT_SEED) -> int:
    """The real site with synthetic GPUs appended to reach ``total_gpus``; returns how many were added.

    Half of the synthetic GPUs get a price, so pages show both prices and "no offer".
    """
    write_real(root)

    gpus_path = root / "data" / "gpus.yaml"
    existing = len(yaml.safe_load(gpus_path.read_text(encoding="utf-8"))["gpus"])
    added = max(0, total_gpus - existing)
    if added:
        first = existing + 1
        with gpus_path.open("a", encoding="utf-8") as out:
            out.write(synthetic_gpus(first, first + added - 1, seed))
        prices_path = root / "data" / "prices.yaml"
        with prices_path.open("a", encoding="utf-8") as out:
            for number in range(first, first + added):
                if number % 2 == 0:
                    # Prices from a short list, so some GPUs tie and the tie-break rules are exercised.
                    rng = random.Random(f"{seed}/price/{number}")
                    out.write(f"  synthetic-{number:03d}: {rng.choice((0.99, 1.79, 2.49, 2.88, 4.16, 6.5))}\n")
    assert len(yaml.safe_load(gpus_path.read_text(encoding="utf-8"))["gpus"]) == max(existing, total_gpus)
    return added
