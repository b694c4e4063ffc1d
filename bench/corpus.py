#!/usr/bin/env python3
"""Benchmark corpora: the same synthetic pages written for our generator, Hugo, MkDocs and Eleventy.

Every page is made from a seeded random generator keyed by (seed, language, page number), so the
text of page 42 is the same at N = 1,000 and N = 5,000, on every run, and in all four layouts of the
corpus. A page has a title and a description, an intro paragraph, three ``##`` sections (one
paragraph each; the second also holds a pipe table of 10 rows × 8 columns) and a four-question FAQ.

The FAQ is written the way each generator expects it: ours as a ``::: faq`` block of ``###``
questions, the peers as a plain ``## FAQ`` section of ``###`` questions. Everything else is the
same Markdown, byte for byte.

Also writes the "real" corpora: a copy of this project (``content/``, ``data/``, ``templates/``) and
a scaled copy whose ``data/gpus.yaml`` is extended with synthetic GPUs to 100 in total.

Usage::

    python bench/corpus.py --pages 1000 --out /tmp/corpus        # all kinds
    python bench/corpus.py --pages 10 --out /tmp/c --kinds ours,hugo
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # for gpuguide.translations.body_hash
LANGUAGES = ("fr", "en")
DEFAULT_SEED = 20261129
KINDS = ("ours", "hugo", "mkdocs", "eleventy", "real", "scaled")

# Ordinary words of each language; sentences are drawn from them. No Markdown or template syntax
# (no `{`, `<`, `*`, `_`, `|`) can appear in the text, so every generator reads the same words.
_WORDS = {
    "fr": ("mémoire bande passante calcul modèle entraînement inférence carte serveur coût prix heure "
           "débit latence précision paramètre couche lot séquence contexte cache réseau nœud grappe "
           "pilote logiciel noyau tenseur format donnée jeu disque énergie consommation refroidissement "
           "fournisseur location achat budget projet équipe charge travail rendu image vidéo scène "
           "simulation science recherche production essai mesure résultat gain perte choix critère "
           "rapide lent grand petit récent ancien simple double utile coûteux économique stable "
           "et ou mais donc car avec sans pour par sur sous entre dans chaque plusieurs tous "
           "permet demande réduit augmente garde charge exécute compare mesure choisit loue").split(),
    "en": ("memory bandwidth compute model training inference card server cost price hour throughput "
           "latency precision parameter layer batch sequence context cache network node cluster driver "
           "software kernel tensor format data set disk energy power cooling provider rental purchase "
           "budget project team workload rendering image video scene simulation science research "
           "production trial measure result gain loss choice criterion fast slow large small recent "
           "older simple double useful costly cheap stable and or but so because with without for by "
           "on under between in each several all allows needs reduces increases keeps loads runs "
           "compares measures chooses rents").split(),
}
_TITLE_WORDS = {
    "fr": ("Guide", "Choisir", "Comparer", "Louer", "Dimensionner", "Optimiser"),
    "en": ("Guide", "Choosing", "Comparing", "Renting", "Sizing", "Optimising"),
}
_TABLE_HEADERS = {
    "fr": ("GPU", "Mémoire (Go)", "Bande passante (Go/s)", "BF16 (TFLOPS)", "FP32 (TFLOPS)",
           "Puissance (W)", "Année", "Prix ($/h)"),
    "en": ("GPU", "Memory (GB)", "Bandwidth (GB/s)", "BF16 (TFLOPS)", "FP32 (TFLOPS)",
           "Power (W)", "Year", "Price ($/h)"),
}
_FAQ_HEADING = {"fr": "Questions fréquentes", "en": "Frequently asked questions"}


@dataclass(frozen=True)
class SyntheticPage:
    """One page of the corpus, in one language; ``number`` pairs the translations."""

    number: int
    lang: str
    title: str
    description: str
    intro: str
    sections: tuple[tuple[str, str], ...]  # (heading, Markdown body)
    faq: tuple[tuple[str, str], ...]  # (question, answer)

    @property
    def name(self) -> str:
        return f"page-{self.number:05d}"

    @property
    def slug(self) -> str:
        return f"bench/{self.name}"

    @property
    def translation_key(self) -> str:
        return f"bench/{self.name}"

    def body(self, faq_style: str) -> str:
        """The Markdown after the front matter; ``faq_style`` is ``ours`` or ``plain``."""
        parts = [self.intro, ""]
        for heading, text in self.sections:
            parts += [f"## {heading}", "", text, ""]
        if faq_style == "ours":
            parts.append("::: faq")
            for question, answer in self.faq:
                parts += [f"### {question}", "", answer, ""]
            parts.append(":::")
        else:
            parts += [f"## {_FAQ_HEADING[self.lang]}", ""]
            for question, answer in self.faq:
                parts += [f"### {question}", "", answer, ""]
        return "\n".join(parts).rstrip("\n") + "\n"


def _sentence(rng: random.Random, lang: str, low: int = 10, high: int = 18) -> str:
    words = [rng.choice(_WORDS[lang]) for _ in range(rng.randint(low, high))]
    if rng.random() < 0.4:  # a figure now and then, as in the real guides
        words.insert(rng.randrange(len(words)), f"{rng.randint(2, 999)}")
    words[0] = words[0].capitalize()
    return " ".join(words) + "."


def _paragraph(rng: random.Random, lang: str) -> str:
    return " ".join(_sentence(rng, lang) for _ in range(rng.randint(4, 6)))


def _table(rng: random.Random, lang: str) -> str:
    headers = _TABLE_HEADERS[lang]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    decimal = "," if lang == "fr" else "."
    for row in range(10):
        cells = [f"GPU {rng.choice('ABHLMRT')}{rng.randint(10, 999)}",
                 str(rng.choice((16, 24, 32, 48, 80, 96, 141, 192))),
                 str(rng.randint(400, 8000)),
                 f"{rng.randint(20, 2500)}{decimal}{rng.randint(0, 9)}",
                 f"{rng.randint(10, 160)}{decimal}{rng.randint(0, 9)}",
                 str(rng.choice((250, 300, 350, 450, 700, 1000))),
                 str(rng.randint(2018, 2026)),
                 f"{rng.randint(0, 9)}{decimal}{rng.randint(10, 99)}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def make_page(number: int, lang: str, seed: int = DEFAULT_SEED) -> SyntheticPage:
    """Page ``number`` in ``lang``: the same text for the same arguments, whatever N is."""
    rng = random.Random(f"{seed}/{lang}/{number}")
    title = f"{rng.choice(_TITLE_WORDS[lang])} {number}: " + _sentence(rng, lang, 4, 7).rstrip(".")
    description = _sentence(rng, lang, 14, 22)
    intro = _paragraph(rng, lang)
    sections = []
    for index in range(3):
        heading = _sentence(rng, lang, 3, 5).rstrip(".")
        text = _paragraph(rng, lang)
        if index == 1:
            text += "\n\n" + _table(rng, lang)
        sections.append((heading, text))
    faq = tuple((_sentence(rng, lang, 6, 10).rstrip(".") + " ?" if lang == "fr" else
                 _sentence(rng, lang, 6, 10).rstrip(".") + "?",
                 " ".join(_sentence(rng, lang) for _ in range(2))) for _ in range(4))
    return SyntheticPage(number, lang, title, description, intro, tuple(sections), faq)


def make_pages(count: int, seed: int = DEFAULT_SEED) -> list[SyntheticPage]:
    """``count`` pages in each language (2 × count in all), translations side by side."""
    return [make_page(number, lang, seed) for number in range(count) for lang in LANGUAGES]


def _yaml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a valid YAML string


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _fresh(root: Path) -> Path:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    return root


# --- ours -----------------------------------------------------------------------------------------

def write_ours(root: Path, pages: list[SyntheticPage]) -> None:
    """A project folder for ``build.py --root``: the synthetic guides plus the real data and templates."""
    _fresh(root)
    shutil.copytree(REPO / "data", root / "data")
    shutil.copytree(REPO / "templates", root / "templates")
    # English pages say which French version they translate, as an editor's would (no warnings).
    from gpuguide.structure.pages import body_hash

    sources = {page.translation_key: page.body("ours") for page in pages if page.lang == "fr"}
    for page in pages:
        stamp = ([f'translated_from: "{body_hash(sources[page.translation_key])}"']
                 if page.lang != "fr" and page.translation_key in sources else [])
        front = "\n".join([
            "---",
            f"title: {_yaml_string(page.title)}",
            f"description: {_yaml_string(page.description)}",
            f"slug: {page.slug}",
            f"translation_key: {page.translation_key}",
            *stamp,
            "layout: guide",
            "---",
        ])
        _write(root / "content" / page.lang / "bench" / f"{page.name}.md", front + "\n" + page.body("ours"))


# --- Hugo -----------------------------------------------------------------------------------------

_HUGO_CONFIG = """\
baseURL = "https://bench.example.com/"
title = "Benchmark"
defaultContentLanguage = "fr"
defaultContentLanguageInSubdir = true

[languages.fr]
contentDir = "content/fr"
languageName = "Français"
weight = 1

[languages.en]
contentDir = "content/en"
languageName = "English"
weight = 2
"""

_HUGO_BASEOF = """\
<!doctype html>
<html lang="{{ .Site.Language.Lang }}">
<head>
<meta charset="utf-8">
<title>{{ .Title }} | {{ .Site.Title }}</title>
<meta name="description" content="{{ .Description }}">
</head>
<body>
<main>
{{ block "main" . }}{{ end }}
</main>
</body>
</html>
"""

_HUGO_SINGLE = """\
{{ define "main" }}
<article>
<h1>{{ .Title }}</h1>
{{ .Content }}
</article>
{{ end }}
"""

_HUGO_LIST = """\
{{ define "main" }}
<h1>{{ .Title }}</h1>
{{ .Content }}
{{ end }}
"""


def write_hugo(root: Path, pages: list[SyntheticPage]) -> None:
    """An idiomatic multilingual Hugo site: one content folder per language, translations by path."""
    _fresh(root)
    _write(root / "hugo.toml", _HUGO_CONFIG)
    _write(root / "layouts" / "_default" / "baseof.html", _HUGO_BASEOF)
    _write(root / "layouts" / "_default" / "single.html", _HUGO_SINGLE)
    _write(root / "layouts" / "_default" / "list.html", _HUGO_LIST)
    for page in pages:
        front = "\n".join(["---", f"title: {_yaml_string(page.title)}",
                           f"description: {_yaml_string(page.description)}", "---"])
        _write(root / "content" / page.lang / "bench" / f"{page.name}.md", front + "\n" + page.body("plain"))


# --- MkDocs ---------------------------------------------------------------------------------------

def write_mkdocs(root: Path, pages: list[SyntheticPage]) -> None:
    """An MkDocs site, default ``mkdocs`` theme, no plugins (the default ``search`` plugin is off).

    The navigation lists the first page of each language only: MkDocs's automatic navigation would
    write every page's link into every page (10,000 links × 10,000 pages at N = 5,000), a quadratic
    output no real site has. The other pages are still built (MkDocs builds every file in docs/).
    """
    _fresh(root)
    first = {page.lang: page for page in reversed(pages)}
    nav = "\n".join(f"  - {lang}: {lang}/bench/{first[lang].name}.md" for lang in LANGUAGES if lang in first)
    _write(root / "mkdocs.yml",
           "site_name: Benchmark\n"
           "theme:\n  name: mkdocs\n"
           "plugins: []\n"
           "validation:\n  nav:\n    omitted_files: ignore\n"
           f"nav:\n{nav}\n")
    for page in pages:
        front = "\n".join(["---", f"title: {_yaml_string(page.title)}",
                           f"description: {_yaml_string(page.description)}", "---"])
        _write(root / "docs" / page.lang / "bench" / f"{page.name}.md",
               front + "\n\n" + page.body("plain"))


# --- Eleventy -------------------------------------------------------------------------------------

_ELEVENTY_CONFIG = """\
// Eleventy: input folders fr/ and en/, one layout in _includes/ (set per folder by fr/fr.json, en/en.json).
module.exports = function (eleventyConfig) {
  return {
    dir: { input: ".", includes: "_includes", output: "_site" },
  };
};
"""

_ELEVENTY_LAYOUT = """\
<!doctype html>
<html lang="{{ lang }}">
<head>
<meta charset="utf-8">
<title>{{ title }} | Benchmark</title>
<meta name="description" content="{{ description }}">
</head>
<body>
<main>
<article>
<h1>{{ title }}</h1>
{{ content | safe }}
</article>
</main>
</body>
</html>
"""


def write_eleventy(root: Path, pages: list[SyntheticPage]) -> None:
    """An Eleventy site: ``fr/`` and ``en/`` input folders, a Nunjucks layout in ``_includes/``."""
    _fresh(root)
    _write(root / ".eleventy.js", _ELEVENTY_CONFIG)
    _write(root / "_includes" / "base.njk", _ELEVENTY_LAYOUT)
    for lang in LANGUAGES:
        _write(root / lang / f"{lang}.json", json.dumps({"layout": "base.njk", "lang": lang}) + "\n")
    for page in pages:
        front = "\n".join(["---", f"title: {_yaml_string(page.title)}",
                           f"description: {_yaml_string(page.description)}", "---"])
        _write(root / page.lang / "bench" / f"{page.name}.md", front + "\n" + page.body("plain"))


# --- the real site, as is and scaled --------------------------------------------------------------

def write_real(root: Path) -> None:
    """A copy of this project's site sources (content, data, templates)."""
    _fresh(root)
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
    import yaml  # the generator's own dependency

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


WRITERS = {"ours": write_ours, "hugo": write_hugo, "mkdocs": write_mkdocs, "eleventy": write_eleventy}


def write_corpus(out: Path, pages_per_language: int, kinds: list[str], seed: int = DEFAULT_SEED) -> dict[str, Path]:
    """Write each kind of corpus under ``out/<kind>``; returns the folder of each."""
    pages = make_pages(pages_per_language, seed) if set(kinds) & set(WRITERS) else []
    folders = {}
    for kind in kinds:
        folder = out / kind
        if kind in WRITERS:
            WRITERS[kind](folder, pages)
        elif kind == "real":
            write_real(folder)
        elif kind == "scaled":
            write_scaled(folder, seed=seed)
        else:
            raise ValueError(f"unknown corpus kind {kind!r}: use {', '.join(KINDS)}")
        folders[kind] = folder
    return folders


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pages", type=int, default=1000, help="pages per language (default 1000)")
    parser.add_argument("--out", type=Path, required=True, help="folder to write <kind>/ folders into")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, from: {', '.join(KINDS)}")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    args = parser.parse_args(argv)
    kinds = [kind for kind in args.kinds.split(",") if kind]
    for kind, folder in write_corpus(args.out, args.pages, kinds, args.seed).items():
        print(f"{kind}: {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
