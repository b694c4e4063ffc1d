#!/usr/bin/env python3
"""Benchmark corpora: the same synthetic pages written for our generator, Hugo, MkDocs and Eleventy.

Every page is made from a seeded random generator keyed by (seed, language, page number), so the
text of page 42 is the same at N = 1,000 and N = 5,000, on every run, and in all four layouts of the
corpus. The pages look like this site's guides (``content/fr/inference-llm.md``,
``content/fr/guides/choisir-gpu-deep-learning-llm.md``), not like plain text:

- a title and a description, an intro paragraph, three ``##`` sections (a paragraph each, then
  sometimes a bulleted list), a four-question FAQ;
- most paragraphs carry inline markup: ``**bold**``, ``*emphasis*``, ``inline code``, links to
  other pages of the corpus in the same language and external links (``https://example.com/…``);
- about half the pages quote figures with our shortcodes (``{{ gpu_figure … }}``,
  ``{{ decode_upper_bound … }}``, ``{{ model_memory … }}``, ``{{ usable_memory_share }}``…);
- every page has a 10 × 8 table of GPUs whose cells are formatted (``80 Go``, ``3 350 Go/s``,
  ``dès 2,88 $US``, a GPU in bold or linked, the interconnect as code), and about half of them a
  second, smaller table of prose cells.

A page links only to pages numbered below it (one of the 100 before it), so every link resolves
whatever N is; page 0 links outside the corpus only.

What differs between the four layouts is only what each generator needs to read the same page:

- shortcodes: ours gets ``{{ name key=value }}``; the peers, which have no such shortcodes, get the
  text our generator prints in their place (``80 Go``, ``≤ 208 tokens/s``), so every generator
  renders the same text;
- links to another page of the corpus: ours and MkDocs link the page's Markdown file
  (``[texte](page-00017.md)``), which both turn into the page's URL and check; Hugo and Eleventy,
  which write page ``bench/page-00042.md`` to ``bench/page-00042/index.html``, get the relative
  URL of the other page's folder (``[texte](../page-00017/)``);
- the FAQ: ours as a ``::: faq`` block of ``###`` questions, the peers as a plain ``## FAQ`` section
  of ``###`` questions.

Also writes the "real" corpora: a copy of this project (``content/``, ``data/``, ``templates/``) and
a scaled copy whose ``data/gpus.yaml`` is extended with synthetic GPUs to 100 in total.

Usage::

    python bench/corpus.py --pages 1000 --out /tmp/corpus        # all kinds
    python bench/corpus.py --pages 10 --out /tmp/c --kinds ours,hugo
    python bench/corpus.py --pages 1000 --stats                  # what the pages contain, no files
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The 100-GPU site is a fixture of the tests (``tests/scaled_site.py``), which the benchmark builds too.
sys.path.insert(0, str(REPO / "tests"))
from scaled_site import write_real, write_scaled  # noqa: E402
sys.path.insert(0, str(REPO))  # for gpuguide.translations.body_hash
LANGUAGES = ("fr", "en")
DEFAULT_SEED = 20261129
KINDS = ("ours", "ours-nocards", "hugo", "mkdocs", "eleventy", "real", "scaled")
FLAVOURS = ("ours", "hugo", "mkdocs", "eleventy")  # how a page's Markdown is written for each generator

# Ordinary words of each language; sentences are drawn from them. The words hold no Markdown or
# template syntax (no `{`, `<`, `*`, `_`, `|`): all the markup is added on purpose, below.
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
_FAQ_HEADING = {"fr": "Questions fréquentes", "en": "Frequently asked questions"}

# Inline markup. Code spans hold commands, flags and formats, as the real guides do.
_CODE = ("vllm serve", "--tensor-parallel-size 8", "torch.compile", "nvidia-smi", "rocm-smi", "bf16",
         "fp8", "int4", "max_model_len", "CUDA_VISIBLE_DEVICES", "--quantization awq", "batch_size=32",
         "flash_attn", "gpu_memory_utilization=0.9", "llama.cpp", "NCCL_P2P_LEVEL=NVL")
_EXTERNAL = ("docs/vllm/serving", "blog/kv-cache", "datasheets/h100", "guides/quantization",
             "papers/flash-attention", "pricing", "docs/nccl", "whitepapers/hopper")
#: Inline markup of a paragraph: how often each kind is drawn.
_MARKS = (("strong", 5), ("em", 4), ("code", 4), ("page", 5), ("external", 2))
#: Share of paragraphs with no inline markup at all (as some paragraphs of the real guides).
_PLAIN_SHARE = 0.12
#: Share of pages that quote figures with shortcodes, and chance that a paragraph of such a page has one.
_SHORTCODE_PAGES = 0.5
_SHORTCODE_PER_PARAGRAPH = 0.4
#: How far back a link to another page of the corpus may point: it always points to a lower number.
_LINK_WINDOW = 100

# Shortcodes (see README "Shortcodes"; ids from data/gpus.yaml and data/models.yaml): what our
# generator prints for each, in French and in English (checked against it when this was written;
# the peers get this text), and a clause of a sentence that quotes it, in each language.
_SHORTCODES = (
    ("usable_memory_share", ("80\u00a0%", "80%"),
     ("en comptant {} de la mémoire", "counting {} of the memory")),
    ("gpu_figure gpu=h100-sxm column=memory", ("80\u202fGo", "80 GB"),
     ("soit {} sur une H100 SXM", "that is {} on an H100 SXM")),
    ("gpu_figure gpu=h200 column=memory", ("141\u202fGo", "141 GB"),
     ("soit {} sur une H200", "that is {} on an H200")),
    ("gpu_figure gpu=l40s column=memory", ("48\u202fGo", "48 GB"),
     ("soit {} sur une L40S", "that is {} on an L40S")),
    ("gpu_figure gpu=mi300x column=memory", ("192\u202fGo", "192 GB"),
     ("soit {} sur une MI300X", "that is {} on an MI300X")),
    ("gpu_figure gpu=h100-sxm column=bandwidth", ("3\u202f350\u202fGo/s", "3,350 GB/s"),
     ("avec {} de bande passante", "with {} of bandwidth")),
    ("gpu_figure gpu=l4 column=bandwidth", ("300\u202fGo/s", "300 GB/s"),
     ("contre {} sur une L4", "against {} on an L4")),
    ("gpu_figure gpu=h100-sxm column=bf16", ("989\u202fTFLOPS", "989 TFLOPS"),
     ("pour {} en BF16", "for {} in BF16")),
    ("gpu_figure gpu=h100-sxm column=price", ("dès 2,88\u00a0$US", "from $2.88"),
     ("une H100 SXM se loue {} de l’heure", "an H100 SXM rents {} an hour")),
    ("gpu_figure gpu=a100-sxm column=price", ("dès 1,79\u00a0$US", "from $1.79"),
     ("une A100 SXM se loue {} de l’heure", "an A100 SXM rents {} an hour")),
    ("decode_upper_bound gpu=h100-sxm model=llama-3-1-8b precision=bf16", ("≤ 208 tokens/s", "≤ 208 tokens/s"),
     ("jusqu’à {} sur une H100 SXM", "up to {} on an H100 SXM")),
    ("decode_upper_bound gpu=l4 model=llama-3-1-8b precision=bf16", ("≤ 18 tokens/s", "≤ 18 tokens/s"),
     ("jusqu’à {} sur une L4", "up to {} on an L4")),
    ("decode_upper_bound gpu=h200 model=llama-3-1-8b precision=fp8", ("≤ 597 tokens/s", "≤ 597 tokens/s"),
     ("jusqu’à {} en FP8 sur une H200", "up to {} in FP8 on an H200")),
    ("model_memory model=llama-3-70b precision=bf16", ("144\u202fGo", "144 GB"),
     ("car Llama 3 70B demande {} en BF16", "as Llama 3 70B needs {} in BF16")),
    ("model_memory model=llama-3-1-8b precision=bf16", ("18\u202fGo", "18 GB"),
     ("car Llama 3.1 8B demande {} en BF16", "as Llama 3.1 8B needs {} in BF16")),
    ("model_memory model=qwen3-32b precision=fp8", ("35\u202fGo", "35 GB"),
     ("car Qwen3 32B demande {} en FP8", "as Qwen3 32B needs {} in FP8")),
    ("memory_share model=gpt-oss-120b precision=native gpu=h100-sxm", ("82\u00a0%", "82%"),
     ("gpt-oss-120b en occupant {}", "gpt-oss-120b filling {} of it")),
    ("ratio a=h100-sxm b=a100-sxm column=bf16", ("3,2", "3.2"),
     ("soit {} fois le débit de l’A100", "or {} times the A100 throughput")),
    ('memory_range gpus="rtx-4090,rtx-5090"', ("24 à 32\u202fGo", "24 to 32 GB"),
     ("de {} sur les cartes GeForce", "from {} on GeForce cards")),
)
_PRINTS = {code: dict(zip(LANGUAGES, prints)) for code, prints, _ in _SHORTCODES}

_GPU_HEADERS = {
    "fr": ("GPU", "Mémoire", "Bande passante", "BF16", "FP8", "Liaison", "Année", "Prix à l’heure"),
    "en": ("GPU", "Memory", "Bandwidth", "BF16", "FP8", "Interconnect", "Year", "Price per hour"),
}
_PROSE_HEADERS = {
    "fr": ("Critère", "Ce qui compte", "Exemple", "À retenir"),
    "en": ("Criterion", "What matters", "Example", "Takeaway"),
}
_UNITS = {"fr": {"memory": "Go", "bandwidth": "Go/s", "unsupported": "Non pris en charge",
                 "no_offer": "Aucune offre"},
          "en": {"memory": "GB", "bandwidth": "GB/s", "unsupported": "Not supported",
                 "no_offer": "No offer"}}
_LINKS = ("NVLink", "NVSwitch", "PCIe", "Infinity Fabric")

_SHORTCODE_RE = re.compile(r"\{\{ (.+?) \}\}")
_PAGE_LINK_RE = re.compile(r"\]\((page-\d{5})\.md\)")


@dataclass(frozen=True)
class SyntheticPage:
    """One page of the corpus, in one language; ``number`` pairs the translations.

    The text is held as written for our generator; ``body(flavour)`` writes it for each generator.
    """

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
    def translation_key(self) -> str:
        return f"bench/{self.name}"

    def body(self, flavour: str) -> str:
        """The Markdown after the front matter, for ``flavour``: ``ours``, ``hugo``, ``mkdocs`` or ``eleventy``."""
        if flavour not in FLAVOURS:
            raise ValueError(f"unknown flavour {flavour!r}: use {', '.join(FLAVOURS)}")
        parts = [self.intro, ""]
        for heading, text in self.sections:
            parts += [f"## {heading}", "", text, ""]
        if flavour == "ours":
            parts.append("::: faq")
            for question, answer in self.faq:
                parts += [f"### {question}", "", answer, ""]
            parts.append(":::")
        else:
            parts += [f"## {_FAQ_HEADING[self.lang]}", ""]
            for question, answer in self.faq:
                parts += [f"### {question}", "", answer, ""]
        text = "\n".join(parts).rstrip("\n") + "\n"
        if flavour != "ours":
            text = _SHORTCODE_RE.sub(lambda match: _PRINTS[match.group(1)][self.lang], text)
        if flavour in ("hugo", "eleventy"):
            text = _PAGE_LINK_RE.sub(r"](../\1/)", text)
        return text


def _words(rng: random.Random, lang: str, low: int, high: int) -> list[str]:
    words = [rng.choice(_WORDS[lang]) for _ in range(rng.randint(low, high))]
    if rng.random() < 0.4:  # a figure now and then, as in the real guides
        words.insert(rng.randrange(len(words)), f"{rng.randint(2, 999)}")
    words[0] = words[0].capitalize()
    return words


def _sentence(rng: random.Random, lang: str, low: int = 10, high: int = 18) -> str:
    """A sentence without markup (titles, descriptions, headings, questions)."""
    return " ".join(_words(rng, lang, low, high)) + "."


def _page_target(rng: random.Random, number: int) -> str | None:
    """Another page of the corpus for page ``number`` to link to: one of the ``_LINK_WINDOW`` pages
    before it, so it exists whatever N is (None for page 0, which has none before it)."""
    if number == 0:
        return None
    return f"page-{rng.randrange(max(0, number - _LINK_WINDOW), number):05d}.md"


def _link(rng: random.Random, text: str, number: int, kind: str) -> str:
    target = _page_target(rng, number) if kind == "page" else None
    if target is None:
        target = f"https://example.com/{rng.choice(_EXTERNAL)}"
    return f"[{text}]({target})"


def _mark(rng: random.Random, words: list[str], number: int) -> None:
    """Put one piece of inline markup into the sentence ``words`` (in place)."""
    kind = rng.choices([k for k, _ in _MARKS], [w for _, w in _MARKS])[0]
    if kind == "code":
        words.insert(rng.randint(1, len(words)), f"`{rng.choice(_CODE)}`")
        return
    length = min(len(words), rng.randint(1, 2) if kind in ("strong", "em") else rng.randint(2, 4))
    start = rng.randrange(len(words) - length + 1)
    span = " ".join(words[start:start + length])
    if kind == "strong":
        marked = f"**{span}**"
    elif kind == "em":
        marked = f"*{span}*"
    else:
        marked = _link(rng, span, number, kind)
    words[start:start + length] = [marked]


def _shortcode_clause(rng: random.Random, lang: str) -> str:
    code, _, clauses = rng.choice(_SHORTCODES)
    return clauses[LANGUAGES.index(lang)].format(f"{{{{ {code} }}}}")


def _prose(rng: random.Random, lang: str, number: int, shortcodes: bool, sentences: int,
           low: int = 9, high: int = 16) -> list[str]:
    """``sentences`` sentences, most of them with markup; with ``shortcodes``, sometimes a figure quoted
    by a shortcode. Returned one by one, without their full stops."""
    drawn = [_words(rng, lang, low, high) for _ in range(sentences)]
    marks = 0 if rng.random() < _PLAIN_SHARE else rng.randint(1, min(3, sentences))
    for index in rng.sample(range(sentences), marks):
        _mark(rng, drawn[index], number)
    texts = [" ".join(words) for words in drawn]
    if shortcodes and rng.random() < _SHORTCODE_PER_PARAGRAPH:
        index = rng.randrange(sentences)
        texts[index] += ", " + _shortcode_clause(rng, lang)
    return texts


def _paragraph(rng: random.Random, lang: str, number: int, shortcodes: bool, low: int = 3, high: int = 5) -> str:
    return " ".join(text + "." for text in _prose(rng, lang, number, shortcodes, rng.randint(low, high)))


def _bullets(rng: random.Random, lang: str, number: int, shortcodes: bool) -> str:
    """A bulleted list, its items ending as in the real guides (``;`` then ``.`` in French)."""
    items = _prose(rng, lang, number, shortcodes, rng.randint(3, 5), 5, 9)
    if lang == "fr":
        return "\n".join(f"- {item[0].lower()}{item[1:]} ;" if i < len(items) - 1 else f"- {item[0].lower()}{item[1:]}."
                         for i, item in enumerate(items))
    return "\n".join(f"- {item}." for item in items)


def _thousands(value: int, lang: str) -> str:
    return f"{value:,}".replace(",", " " if lang == "fr" else ",")


def _gpu_table(rng: random.Random, lang: str, number: int) -> str:
    """10 GPUs × 8 columns, cells formatted as the site's tables are (units, bold, links, code)."""
    units = _UNITS[lang]
    headers = _GPU_HEADERS[lang]
    lines = ["| " + " | ".join(headers) + " |", "|---|" + "---:|" * 4 + "---|---:|---:|"]
    for _ in range(10):
        name = f"GPU {rng.choice('ABHLMRT')}{rng.randint(10, 999)}"
        style = rng.random()
        if style < 0.2:
            name = f"**{name}**"
        elif style < 0.4:
            name = _link(rng, name, number, "page")
        bf16 = rng.randint(20, 2500)
        fp8 = units["unsupported"] if rng.random() < 0.2 else f"{_thousands(2 * bf16, lang)} TFLOPS"
        if rng.random() < 0.15:
            price = units["no_offer"]
        else:
            dollars, cents = rng.randint(0, 9), rng.randint(10, 99)
            price = f"dès {dollars},{cents} $US" if lang == "fr" else f"from ${dollars}.{cents}"
            if rng.random() < 0.2:
                price = f"**{price}**"  # the cheapest, marked as the site marks the better value
        cells = [name,
                 f"{rng.choice((16, 24, 32, 48, 80, 96, 141, 192))} {units['memory']}",
                 f"{_thousands(rng.randint(400, 8000), lang)} {units['bandwidth']}",
                 f"{_thousands(bf16, lang)} TFLOPS",
                 fp8,
                 f"`{rng.choice(_LINKS)}`",
                 str(rng.randint(2018, 2026)),
                 price]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _prose_table(rng: random.Random, lang: str, number: int, shortcodes: bool) -> str:
    """A few rows × 4 columns of short prose cells, like the guides' comparison tables."""
    lines = ["| " + " | ".join(_PROSE_HEADERS[lang]) + " |", "|---|---|---|---|"]
    for _ in range(rng.randint(3, 4)):
        criterion = f"**{' '.join(_words(rng, lang, 1, 2))}**"
        matters, takeaway = _prose(rng, lang, number, shortcodes, 2, 4, 8)
        example = (f"`{rng.choice(_CODE)}`" if rng.random() < 0.5 else
                   f"{rng.choice((16, 24, 48, 80, 141, 192))} {_UNITS[lang]['memory']}")
        lines.append(f"| {criterion} | {matters} | {example} | {takeaway} |")
    return "\n".join(lines)


def _within(text: str, limit: int, end: str = "") -> str:
    """``text`` without its last words until it has at most ``limit`` characters (``end`` kept)."""
    while len(text) > limit:
        text = text.rstrip(end).rsplit(" ", 1)[0] + end
    return text


def make_page(number: int, lang: str, seed: int = DEFAULT_SEED) -> SyntheticPage:
    """Page ``number`` in ``lang``: the same text for the same arguments, whatever N is."""
    rng = random.Random(f"{seed}/{lang}/{number}")
    # Within what search engines show (60 and 160 characters), as on a site whose editors heed the
    # build's warnings (the real site has none): words are dropped, the draws stay the same.
    title = _within(f"{rng.choice(_TITLE_WORDS[lang])} {number}: " + _sentence(rng, lang, 4, 7).rstrip("."), 60)
    description = _within(_sentence(rng, lang, 14, 22), 160, ".")
    shortcodes = rng.random() < _SHORTCODE_PAGES
    intro = _paragraph(rng, lang, number, shortcodes)
    prose_table_in = rng.randrange(4)  # section 0 or 2 holds a second table; 1 or 3: none
    sections = []
    for index in range(3):
        heading = _sentence(rng, lang, 3, 5).rstrip(".")
        blocks = [_paragraph(rng, lang, number, shortcodes)]
        if rng.random() < 0.35:
            blocks.append(_bullets(rng, lang, number, shortcodes))
        if index == 1:
            blocks.append(_gpu_table(rng, lang, number))
        elif index == prose_table_in:
            blocks.append(_prose_table(rng, lang, number, shortcodes))
        sections.append((heading, "\n\n".join(blocks)))
    faq = []
    for _ in range(4):
        question = _sentence(rng, lang, 6, 10).rstrip(".") + (" ?" if lang == "fr" else "?")
        faq.append((question, _paragraph(rng, lang, number, shortcodes, 2, 2)))
    return SyntheticPage(number, lang, title, description, intro, tuple(sections), tuple(faq))


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

#: The GPUs the corpus's shortcodes name: the benchmark site keeps only them, so the pages the
#: generator makes per GPU and per pair (8 + 28 per language) stay a small share of the build.
BENCH_GPUS = ("a100-sxm", "h100-sxm", "h200", "l4", "l40s", "mi300x", "rtx-4090", "rtx-5090")
#: The layouts the site requires (the renderer links to them from every page): copied from the real site.
RESERVED_LAYOUTS = ("home", "catalogue", "gpu", "comparisons", "comparison", "models", "model", "guides", "methodology", "search",
                    "not_found")


def write_ours(root: Path, pages: list[SyntheticPage]) -> None:
    """A project folder for ``build.py --root``: the synthetic guides, the real site's reserved pages
    (home, catalogue, search…), its templates, and its data reduced to the GPUs the corpus names."""
    import yaml  # the generator's own dependency

    _fresh(root)
    shutil.copytree(REPO / "data", root / "data")
    gpus = yaml.safe_load((REPO / "data" / "gpus.yaml").read_text(encoding="utf-8"))
    gpus["gpus"] = [gpu for gpu in gpus["gpus"] if gpu["id"] in BENCH_GPUS]
    _write(root / "data" / "gpus.yaml", yaml.safe_dump(gpus, allow_unicode=True, sort_keys=False))
    prices = yaml.safe_load((REPO / "data" / "prices.yaml").read_text(encoding="utf-8"))
    prices["usd_per_gpu_hour"] = {gpu: price for gpu, price in prices["usd_per_gpu_hour"].items() if gpu in BENCH_GPUS}
    _write(root / "data" / "prices.yaml", yaml.safe_dump(prices, allow_unicode=True, sort_keys=False))
    measured = yaml.safe_load((REPO / "data" / "measurements.yaml").read_text(encoding="utf-8"))
    measured["measurements"] = [record for record in measured["measurements"] if record["gpu"] in BENCH_GPUS]
    _write(root / "data" / "measurements.yaml", yaml.safe_dump(measured, allow_unicode=True, sort_keys=False))
    shutil.copytree(REPO / "templates", root / "templates")
    for lang in LANGUAGES:
        for source in sorted((REPO / "content" / lang).glob("*.md")):
            text = source.read_text(encoding="utf-8")
            layout = next((line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("layout:")), "")
            if layout in RESERVED_LAYOUTS:
                _write(root / "content" / lang / source.name, text)
    # English pages say which French version they translate, as an editor's would (no warnings).
    from gpuguide.structure.pages import body_hash
    from gpuguide.structure.translation_status import stamp_of

    sources = {page.translation_key: page.body("ours") for page in pages if page.lang == "fr"}
    for page in pages:
        stamp = ([f'translated_from: "{stamp_of(body_hash(sources[page.translation_key]), page.lang)}"']
                 if page.lang != "fr" and page.translation_key in sources else [])
        front = "\n".join([
            "---",
            f"title: {_yaml_string(page.title)}",
            f"description: {_yaml_string(page.description)}",
            f"slug: {page.name}",  # in content/<lang>/bench/: the folder is the first part of its URL
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
        _write(root / "content" / page.lang / "bench" / f"{page.name}.md", front + "\n" + page.body("hugo"))


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
               front + "\n\n" + page.body("mkdocs"))


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
        _write(root / page.lang / "bench" / f"{page.name}.md", front + "\n" + page.body("eleventy"))


# --- the real site, as is and scaled --------------------------------------------------------------

_INLINE_MARKUP_RE = re.compile(r"\*|`|\]\(")


def describe(pages: list[SyntheticPage]) -> dict:
    """What the pages hold, on average: sizes per flavour, paragraphs with inline markup, shortcodes,
    links, tables, lists (``--stats``; for the README and for checking a change to the corpus)."""
    paragraphs = marked = marked_or_shortcode = 0
    counts = {"shortcodes": 0, "page_links": 0, "external_links": 0, "tables": 0, "lists": 0}
    with_shortcodes = 0
    for page in pages:
        text = page.body("ours")
        for block in text.split("\n\n"):
            block = block.strip()
            if block.startswith("|"):
                counts["tables"] += 1
            elif block.startswith("- "):
                counts["lists"] += 1
            elif block and not block.startswith(("#", ":::")):
                paragraphs += 1
                marked += bool(_INLINE_MARKUP_RE.search(block))
                marked_or_shortcode += bool(_INLINE_MARKUP_RE.search(block) or "{{" in block)
        found = len(_SHORTCODE_RE.findall(text))
        counts["shortcodes"] += found
        with_shortcodes += found > 0
        counts["page_links"] += len(_PAGE_LINK_RE.findall(text))
        counts["external_links"] += text.count("](https://")
    count = len(pages) or 1
    return {
        "pages": len(pages),
        "mean_body_bytes": {flavour: round(statistics.mean(len(page.body(flavour).encode("utf-8")) for page in pages))
                            for flavour in FLAVOURS} if pages else {},
        "paragraphs_per_page": paragraphs / count,
        "paragraphs_with_inline_markup": marked / (paragraphs or 1),
        "paragraphs_with_inline_markup_or_shortcode": marked_or_shortcode / (paragraphs or 1),
        "pages_with_shortcodes": with_shortcodes / count,
        **{f"{name}_per_page": value / count for name, value in counts.items()},
    }


def write_ours_without_cards(root: Path, pages: list[SyntheticPage]) -> None:
    """``write_ours`` with the site's one sharing card on every page (``sharing_cards: site``): our
    build without drawing a card per page, as a publisher who uses one image has it."""
    write_ours(root, pages)
    settings = root / "data" / "site.yaml"
    settings.write_text(settings.read_text(encoding="utf-8").replace("sharing_cards: per page", "sharing_cards: site"),
                        encoding="utf-8")
    assert "sharing_cards: site" in settings.read_text(encoding="utf-8")


WRITERS = {"ours": write_ours, "ours-nocards": write_ours_without_cards, "hugo": write_hugo, "mkdocs": write_mkdocs,
           "eleventy": write_eleventy}


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
    parser.add_argument("--out", type=Path, help="folder to write <kind>/ folders into")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"comma-separated, from: {', '.join(KINDS)}")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--stats", action="store_true", help="print what the pages contain (JSON); no --out needed")
    args = parser.parse_args(argv)
    if args.stats:
        print(json.dumps(describe(make_pages(args.pages, args.seed)), indent=2))
        if args.out is None:
            return 0
    if args.out is None:
        parser.error("--out is required (unless --stats)")
    kinds = [kind for kind in args.kinds.split(",") if kind]
    for kind, folder in write_corpus(args.out, args.pages, kinds, args.seed).items():
        print(f"{kind}: {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
