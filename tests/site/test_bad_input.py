"""Bad input, as a table: each case breaks a copy of the tiny site the way an editor (or a hostile
file) might, builds it in this process, and expects one problem naming the file and the line, with
its message, and the previous site/ left exactly as it was. A few run the command line too: exit
code 1, no traceback, "site/ was not changed".
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpuguide.errors import BuildFailed
from gpuguide.structure.project_files import MAX_FILE_BYTES
from sites import build, build_cli, fingerprint, tiny_project

FR_USE_CASE = "content/fr/entrainement.md"
FR_GUIDE = "content/fr/guides/premier-guide.md"
EN_USE_CASE = "content/en/training.md"


@dataclass(frozen=True)
class Case:
    """Break the project with ``apply``; expect ``message`` at ``file``:line, the line being the
    first line of ``file`` that contains ``line_of`` (None: line 1)."""

    apply: Callable[[Path], None]
    file: str
    message: str
    line_of: str | None = None


def replace(file: str, old: str, new: str) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        path = root / file
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {file}"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return apply


def write(file: str, content: str | bytes) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        path = root / file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return apply


def remove(file: str) -> Callable[[Path], None]:
    return lambda root: (root / file).unlink()


def symlink(file: str, target: str | Callable[[Path], Path]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        (root / file).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target(root) if callable(target) else target, root / file)
    return apply


def both(*steps: Callable[[Path], None]) -> Callable[[Path], None]:
    def apply(root: Path) -> None:
        for step in steps:
            step(root)
    return apply


PAGE = "---\ntitle: T\ndescription: D\nslug: nouvelle\ntranslation_key: nouvelle\nlayout: guide\n---\n"
ALIAS_BOMB = ('---\ntitle: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
              "description: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nslug: x\ntranslation_key: x\nlayout: guide\n---\n")
DEEP = "---\ntitle: T\ndescription: D\nslug: x\ntranslation_key: x\nlayout: guide\nx: " + "[" * 900 + "]" * 900 + "\n---\n"

CASES: dict[str, Case] = {
    # --- data/: schema and YAML ----------------------------------------------------------------
    "number with a unit": Case(replace("data/gpus.yaml", "memory_gb: 24\n", 'memory_gb: "24 Go"\n'),
                               "data/gpus.yaml", "`memory_gb`: input should be a valid number", '"24 Go"'),
    "negative memory": Case(replace("data/gpus.yaml", "memory_gb: 24\n", "memory_gb: -24\n"),
                            "data/gpus.yaml", "input should be greater than or equal to 0.001", "-24"),
    "infinite memory": Case(replace("data/gpus.yaml", "memory_gb: 24\n", "memory_gb: .inf\n"),
                            "data/gpus.yaml", "`memory_gb`: input should be a finite number", ".inf"),
    "absurd throughput": Case(replace("data/gpus.yaml", "fp32_tflops: 82.6", "fp32_tflops: 1.0e+308"),
                              "data/gpus.yaml", "`fp32_tflops`: input should be less than 1000000000", "1.0e+308"),
    "5,000-digit number": Case(replace("data/models.yaml", "parameters: 8_030_261_248", "parameters: " + "9" * 5000),
                               "data/models.yaml", "cannot read the value", "9999"),
    "huge whole number": Case(replace("data/models.yaml", "parameters: 8_030_261_248", "parameters: " + "9" * 20),
                              "data/models.yaml", "input should be less than or equal to 1000000000000000", "9999"),
    "zero price": Case(replace("data/prices.yaml", "big: 2.88", "big: 0"), "data/prices.yaml",
                       "input should be greater than or equal to 0.001", "big: 0"),
    "price with three decimals": Case(replace("data/prices.yaml", "big: 2.88", "big: 2.885"), "data/prices.yaml",
                                      "a price is in dollars and cents", "big: 2.885"),
    "price below a cent": Case(replace("data/prices.yaml", "big: 2.88", "big: 0.004"), "data/prices.yaml",
                               "a price is in dollars and cents", "big: 0.004"),
    "price of 1e300": Case(replace("data/prices.yaml", "big: 2.88", "big: 1.0e+300"), "data/prices.yaml",
                           "input should be less than 1000000000", "big: 1.0e+300"),
    "date that does not exist": Case(replace("data/prices.yaml", "as_of: 2026-11-29", "as_of: 2026-13-45"),
                                     "data/prices.yaml", "cannot read the value `2026-13-45`", "as_of"),
    "tab in YAML": Case(replace("data/gpus.yaml", "    memory_type: HBM3\n", "\tmemory_type: HBM3\n"),
                        "data/gpus.yaml", "invalid YAML", "\tmemory_type"),
    "control character in YAML": Case(replace("data/gpus.yaml", "model: Card", "model: Ca\x08rd"),
                                      "data/gpus.yaml", "the file contains the control character U+0008", "Ca\x08rd"),
    "duplicated key": Case(replace("data/gpus.yaml", "    model: Card\n", "    model: Card\n    model: Carte\n"),
                           "data/gpus.yaml", "duplicated key `model`", "model: Carte"),
    "YAML alias in data": Case(replace("data/gpus.yaml", "model: Card", "model: &name Card\n    architecture2: *name"),
                               "data/gpus.yaml", "YAML anchors and aliases", "&name"),
    "typo in a data field": Case(replace("data/gpus.yaml", "    tdp_w: 700", "    tdp_watts: 700"),
                                 "data/gpus.yaml", "unknown field `tdp_watts`", "tdp_watts"),
    "misspelt 'not supported'": Case(replace("data/gpus.yaml", "fp8_tflops: not supported", "fp8_tflops: not-supported"),
                                     "data/gpus.yaml", "`fp8_tflops`", "not-supported"),
    "topology of another link": Case(replace("data/gpus.yaml", "topology: bridge", "topology: mesh"),
                                     "data/gpus.yaml", "topology `mesh` goes with kind `Infinity Fabric`",
                                     "topology: mesh"),
    "window without its layers": Case(replace("data/models.yaml", "    max_context_tokens: 131_072\n",
                                              "    max_context_tokens: 131_072\n    window_tokens: 1024\n"),
                                      "data/models.yaml", "window_tokens and window_layers go together", "id: small-llm"),
    "anchor with an unknown model": Case(
        write("data/anchors.yaml", "anchors:\n  - id: a\n    claim: weights\n    model: no-such-llm\n    precision: bf16\n"
                                   "    published_gib: 1\n    source: https://example.com\n    reference: R\n    quote: Q\n"),
        "data/anchors.yaml", "unknown model `no-such-llm`", "model: no-such-llm"),
    "unknown locale": Case(replace("data/site.yaml", "locale: en_US", "locale: xx_YY"), "data/site.yaml",
                           "unknown locale `xx_YY`", "xx_YY"),
    "language code that climbs out": Case(replace("data/site.yaml", "  en: {locale: en_US}", "  ../evil: {locale: en_US}"),
                                          "data/site.yaml", "string should match pattern", "../evil"),
    "absolute language code": Case(replace("data/site.yaml", "  en: {locale: en_US}", '  "/tmp/evil": {locale: en_US}'),
                                   "data/site.yaml", "string should match pattern", "/tmp/evil"),
    "default language not listed": Case(replace("data/site.yaml", "default_language: fr", "default_language: de"),
                                        "data/site.yaml", "default_language `de` is not in languages", "default_language"),
    "missing data file": Case(remove("data/use_cases.yaml"), "data/use_cases.yaml", "the file is missing"),
    # --- data/ui/: UI strings ------------------------------------------------------------------
    "missing UI string": Case(replace("data/ui/en.yaml", "  scroll_hint: Scroll sideways to see every column.\n", ""),
                              "data/ui/en.yaml", "missing UI string `scroll_hint`", "  language_name:"),
    "empty UI string": Case(replace("data/ui/en.yaml", "scroll_hint: Scroll sideways to see every column.",
                                    'scroll_hint: " "'), "data/ui/en.yaml", "the UI string `scroll_hint` is empty",
                            "scroll_hint"),
    "attribute access in a UI string": Case(replace("data/ui/en.yaml", 'price_from: "from {price}"',
                                                    'price_from: "from {price.__class__}"'),
                                            "data/ui/en.yaml", "a placeholder is a plain name", "price_from"),
    "format spec in a UI string": Case(replace("data/ui/en.yaml", 'price_from: "from {price}"',
                                               'price_from: "from {price:>99}"'),
                                       "data/ui/en.yaml", "a placeholder is a plain name", "price_from"),
    "unbalanced brace in a UI string": Case(replace("data/ui/en.yaml", 'price_from: "from {price}"',
                                                    'price_from: "from {price"'),
                                            "data/ui/en.yaml", "the UI string `price_from`", "price_from"),
    "placeholder of another language": Case(replace("data/ui/en.yaml", 'price_from: "from {price}"',
                                                    'price_from: "from {prix}"'),
                                            "data/ui/en.yaml", "the UI string `price_from` uses {prix}", "price_from"),
    "placeholder the generator does not fill": Case(
        both(replace("data/ui/en.yaml", 'price_from: "from {price}"', 'price_from: "from {price} {currency}"'),
             replace("data/ui/fr.yaml", 'price_from: "dès {price}"', 'price_from: "dès {price} {currency}"')),
        "data/ui/en.yaml", "uses `{currency}`, which is not filled here", "price_from"),
    # --- content/: files and front matter ---------------------------------------------------------
    "empty file": Case(write("content/fr/nouvelle.md", b""), "content/fr/nouvelle.md", "the file is empty"),
    "not UTF-8": Case(write("content/fr/nouvelle.md", b"\xff\xfe title"), "content/fr/nouvelle.md", "not valid UTF-8"),
    "no front matter": Case(write("content/fr/nouvelle.md", "Just text.\n"), "content/fr/nouvelle.md",
                            "the page has no front matter"),
    "empty front matter": Case(write("content/fr/nouvelle.md", "---\n---\nBody\n"), "content/fr/nouvelle.md",
                               "the front matter is empty"),
    "unclosed front matter": Case(write("content/fr/nouvelle.md", "---\ntitle: T\n"), "content/fr/nouvelle.md",
                                  "the front matter is not closed"),
    "unclosed quote": Case(replace(FR_USE_CASE, "summary: Entraîner sur", 'summary: "Entraîner sur'),
                           FR_USE_CASE, "invalid YAML: a quote opens here and is never closed", "summary:"),
    "unquoted colon in a title": Case(replace(FR_USE_CASE, 'title: "GPU pour entraîner"', "title: GPU : entraîner"),
                                      FR_USE_CASE, 'a value that contains ": " must be in quotes', "title:"),
    "YAML alias bomb in front matter": Case(write("content/fr/bombe.md", ALIAS_BOMB), "content/fr/bombe.md",
                                            "YAML anchors and aliases", "title:"),
    "YAML nested 900 deep": Case(write("content/fr/profond.md", DEEP), "content/fr/profond.md",
                                 "the YAML nests more than 32 levels deep", "x: ["),
    "typo in a front-matter key": Case(replace(FR_USE_CASE, "\ntitle:", "\ntitel:"), FR_USE_CASE,
                                       "unknown field `titel` (did you mean `title`?)", "titel:"),
    "unknown layout": Case(replace(FR_USE_CASE, "layout: use_case", "layout: use-case"), FR_USE_CASE,
                           "`layout`", "layout: use-case"),
    "unknown GPU id": Case(replace(FR_USE_CASE, "gpus: [big, pcie, card]", "gpus: [big, pci, card]"), FR_USE_CASE,
                           "unknown GPU id `pci` (did you mean `pcie`?)", "gpus: [big"),
    "unknown model for the planner": Case(replace(FR_USE_CASE, "planner: small-llm", "planner: smal-llm"), FR_USE_CASE,
                                          "unknown language model `smal-llm` (did you mean `small-llm`?)", "planner:"),
    "unknown column": Case(replace(FR_USE_CASE, "train_8gpu, infer", "train_8gpus, infer"), FR_USE_CASE,
                           "unknown column `train_8gpus`", "columns:"),
    "unknown model in a column": Case(replace(FR_USE_CASE, "model: small-llm", "model: small-lm"), FR_USE_CASE,
                                      "unknown model `small-lm`", "columns:"),
    "unknown precision in a column": Case(replace(FR_USE_CASE, "precision: bf16}", "precision: fp4}"), FR_USE_CASE,
                                          "unknown precision `fp4`", "columns:"),
    "chart of no column": Case(replace(FR_USE_CASE, "chart: train_8gpu", "chart: train_16gpu"), FR_USE_CASE,
                               "`chart: train_16gpu` is not a column of the table", "chart:"),
    "unknown use case": Case(replace(FR_USE_CASE, "use_case: llm-training", "use_case: llm-trainng"), FR_USE_CASE,
                             "unknown use case `llm-trainng`", "use_case:"),
    "slug that climbs out of site/": Case(replace(FR_USE_CASE, "slug: entrainement\n", "slug: ../evil\n"), FR_USE_CASE,
                                          "`slug`: string should match pattern", "slug:"),
    "absolute slug": Case(replace(FR_USE_CASE, "slug: entrainement\n", "slug: /abs\n"), FR_USE_CASE,
                          "`slug`: string should match pattern", "slug:"),
    "folder name that is no URL": Case(write("content/fr/Mes Guides/x.md", PAGE), "content/fr/Mes Guides/x.md",
                                       "the folder name `Mes Guides` cannot be part of a URL"),
    "two pages with one URL": Case(write("content/fr/copie.md", PAGE.replace("slug: nouvelle", "slug: entrainement")),
                                   FR_USE_CASE, "two pages have the URL /fr/entrainement/ (content/fr/copie.md has it "
                                   "too; change one `slug`)", "slug:"),
    "two pages with one translation key": Case(
        write("content/fr/copie.md", PAGE.replace("translation_key: nouvelle", "translation_key: use-case/llm-training")),
        FR_USE_CASE, "two `fr` pages have the translation key `use-case/llm-training`", "translation_key:"),
    "translation of no source page": Case(replace(EN_USE_CASE, "translation_key: use-case/llm-training",
                                                  "translation_key: use-case/llm-trainin"),
                                          EN_USE_CASE, "the translation key `use-case/llm-trainin` matches no `fr` page",
                                          "translation_key:"),
    "missing reserved page": Case(remove("content/en/search.md"), "content/en",
                                  "`en` lacks 1 page the site links to from every page: content/fr/recherche.md (search)"),
    "second reserved page": Case(write("content/en/catalogue-2.md", PAGE.replace("layout: guide", "layout: catalogue")
                                       .replace("slug: nouvelle", "slug: gpus-2")),
                                 "content/en/gpus.md", "a second `catalogue` page in `en`", "layout:"),
    # --- content/: the Markdown body -------------------------------------------------------------
    "unknown shortcode": Case(replace(FR_GUIDE, "{{ model_memory model=small-llm", "{{ model_memory2 model=small-llm"),
                              FR_GUIDE, "unknown shortcode `model_memory2`; did you mean `model_memory`?", "model_memory2"),
    "shortcode with a wrong argument": Case(replace(FR_GUIDE, "model=small-llm precision=bf16 }}",
                                                    "model=small-llm precision=bf16 gpu=big }}"),
                                            FR_GUIDE, "`model_memory` has no argument `gpu`", "gpu=big"),
    "shortcode argument of 1e300": Case(replace(FR_GUIDE, "model=small-llm precision=bf16 }}",
                                                "model=small-llm precision=bf16 context=1e300 }}"),
                                        FR_GUIDE, "`context` must be a number, got `1e300`", "context=1e300"),
    "shortcode with a huge number": Case(replace(FR_USE_CASE, "params=7000000000", "params=" + "9" * 400),
                                         FR_USE_CASE, "`params` must be a positive whole number no larger than 10^15",
                                         "params=999"),
    "context beyond the model's maximum": Case(replace(FR_GUIDE, "model=small-llm precision=bf16 }}",
                                                       "model=big-llm precision=bf16 context=8192 }}"),
                                               FR_GUIDE, "Big LLM takes at most 2,048 tokens of context",
                                               "model=big-llm precision=bf16 context"),
    "ratio of a figure that does not exist": Case(replace(FR_GUIDE, "Un guide court.\n\n## Mémoire",
                                                          "Un guide court : {{ ratio a=big b=pcie column=fp8 }}.\n\n## Mémoire"),
                                                  FR_GUIDE, "`pcie` has no `fp8` figure (not supported)", "ratio a=big"),
    "unterminated shortcode": Case(replace(FR_GUIDE, "Un guide court.\n\n## Mémoire",
                                           "Un guide court {{ gpu_figure gpu=big\n\n## Mémoire"),
                                   FR_GUIDE, "a shortcode opens with `{{` and never closes", "gpu_figure gpu=big"),
    "unclosed FAQ": Case(replace(FR_USE_CASE, "pour 7 milliards de paramètres.\n:::", "pour 7 milliards de paramètres.\n"),
                         FR_USE_CASE, "the `::: faq` block is never closed", "::: faq"),
    "unknown block": Case(replace(FR_GUIDE, "Un guide court.\n\n## Mémoire", "::: warning\nAttention.\n:::\n\n## Mémoire"),
                          FR_GUIDE,
                          "unknown block `::: warning`", "::: warning"),
    "text before the first FAQ question": Case(replace(FR_USE_CASE, "::: faq\n", "::: faq\nUn mot.\n\n"), FR_USE_CASE,
                                               "FAQ text before the first question", "Un mot."),
    "two FAQ blocks": Case(replace(FR_USE_CASE, "### La mémoire\n", "::: faq\n### Q ?\n\nR.\n:::\n\n### La mémoire\n"),
                           FR_USE_CASE, "a page can have only one `::: faq` block", "::: faq\n### Combien"),
    "link to a page that does not exist": Case(replace("content/fr/index.md", "(guides/premier-guide.md)", "(../fr/nulle-part/)"),
                                               "content/fr/index.md", "link to a page that does not exist", "nulle-part"),
    "link to a Markdown file that is no page": Case(
        replace("content/fr/index.md", "(guides/premier-guide.md)", "(guides/premier-gide.md)"), "content/fr/index.md",
        "link to a Markdown file that is not a published page: `guides/premier-gide.md` "
        "(did you mean `guides/premier-guide.md`?)", "premier-gide"),
    "link to a missing anchor": Case(replace("content/fr/index.md", "(guides/premier-guide.md)",
                                             "(guides/premier-guide.md#nulle-part)"),
                                     "content/fr/index.md", "link to a missing anchor", "nulle-part"),
    # --- templates/ ---------------------------------------------------------------------------
    "undefined template variable": Case(replace("templates/use_case.html", "{{ title }}</h1>", "{{ titel }}</h1>"),
                                        "templates/use_case.html", "template error", "{{ titel }}"),
    "undefined variable in the catalogue": Case(replace("templates/catalogue.html", "{{ title }}</h1>", "{{ titel }}</h1>"),
                                                "templates/catalogue.html", "template error", "{{ titel }}"),
    "template syntax error": Case(replace("templates/guide.html", "{{ main_html }}", "{% if %}{{ main_html }}"),
                                  "templates/guide.html", "template syntax error", "{% if %}"),
    "missing include": Case(replace("templates/guide.html", '{% include "partials/faq.html" %}',
                                    '{% include "partials/faqs.html" %}'),
                            "templates/guide.html", "template not found: `partials/faqs.html`", "faqs.html"),
    # --- control characters: never in a page, whether typed or written as a YAML escape ----------
    **{f"control character {name} as a YAML escape": Case(
        replace(FR_USE_CASE, 'title: "GPU pour entraîner"', f'title: "GPU pour {escape}entraîner"'), FR_USE_CASE,
        f"the value contains the control character U+{code:04X}", "title:")
       for name, escape, code in (("NUL", "\\0", 0), ("BEL", "\\x07", 7), ("ESC", "\\e", 0x1B),
                                  ("C1", "\\x85", 0x85))},
    "control character in Markdown": Case(replace(FR_GUIDE, "Un guide court", "Un guide\x1b[31m court"), FR_GUIDE,
                                          "the file contains the control character U+001B", "Un guide"),
    # --- input the file system or the arithmetic cannot take -------------------------------------
    "300-character slug": Case(replace(FR_GUIDE, "slug: premier-guide", "slug: " + "a" * 300), FR_GUIDE,
                               "`slug`: string should match pattern", "slug:"),
    "300-character GPU id": Case(replace("data/gpus.yaml", "id: big", "id: " + "b" * 300), "data/gpus.yaml",
                                 "string should have at most 60 characters", "id: bbb"),
    "memory of 1e-300": Case(replace("data/gpus.yaml", "memory_gb: 24\n", "memory_gb: 1.0e-300\n"), "data/gpus.yaml",
                             "input should be greater than or equal to 0.001", "1.0e-300"),
    "bandwidth of 5e-324": Case(replace("data/gpus.yaml", "bandwidth_gbs: 3350", "bandwidth_gbs: 5.0e-324"),
                                "data/gpus.yaml", "input should be greater than or equal to 0.001", "5.0e-324"),
    # --- generator titles: plain placeholders only, never Python's format mini-language ---------
    **{f"generator title with {spec}": Case(replace("content/fr/gpu-modele.md", 'title: "{model} : fiche"',
                                                    f'title: "{spec} : fiche"'), "content/fr/gpu-modele.md",
                                            message, "title:")
       for spec, message in (("{model:>3000000}", "a placeholder is a plain name"),
                             ("{model.__class__.__mro__}", "a placeholder is a plain name"),
                             ("{model.upper}", "a placeholder is a plain name"),
                             ("{model[0]}", "a placeholder is a plain name"),
                             ("{model!r}", "a placeholder is a plain name"),
                             ("{0}", "a placeholder is a plain name"),
                             ("{modle}", "unknown placeholder `{modle}`"),
                             ("{model", "`title`"))},
    # --- files that leave the project ----------------------------------------------------------------
    "symlinked asset outside the project": Case(symlink("templates/assets/passwd", "/etc/passwd"),
                                                "templates/assets/passwd", "the symbolic link leads outside the project"),
    "content symlink outside the project": Case(symlink("content/fr/dehors.md", lambda root: root.parent / "outside.md"),
                                                "content/fr/dehors.md", "the symbolic link leads outside the project"),
    "symlink loop in content": Case(symlink("content/fr/boucle", lambda root: root / "content" / "fr"),
                                    "content/fr/boucle", "a loop"),
    "broken symlink": Case(symlink("content/fr/cassé.md", lambda root: root / "nowhere.md"),
                           "content/fr/cassé.md", "the symbolic link leads nowhere"),
    # Every file is read through one gate: a link anywhere (a file or a folder, in content, data,
    # templates or assets) that resolves outside the project is refused, and so are files that are
    # no regular file or are too large.
    "template linked to the environment": Case(
        both(remove("templates/partials/faq.html"), symlink("templates/partials/faq.html", "/proc/self/environ")),
        "templates/partials/faq.html", "the file leads outside the project, to /proc/"),
    "template folder linked outside": Case(
        both(lambda root: shutil.copytree(root / "templates" / "partials", root.parent / "partials-outside"),
             lambda root: shutil.rmtree(root / "templates" / "partials"),
             symlink("templates/partials", lambda root: root.parent / "partials-outside")),
        "templates/partials/head_common.html", "the file leads outside the project"),
    "assets folder linked outside": Case(
        both(lambda root: shutil.copytree(root / "templates" / "assets", root.parent / "assets-outside"),
             lambda root: shutil.rmtree(root / "templates" / "assets"),
             symlink("templates/assets", lambda root: root.parent / "assets-outside")),
        "templates/assets", "the folder leads outside the project"),
    "content folder linked outside": Case(
        both(lambda root: shutil.copytree(root / "content" / "en", root.parent / "en-outside"),
             lambda root: shutil.rmtree(root / "content" / "en"),
             symlink("content/en", lambda root: root.parent / "en-outside")),
        "content/en", "the folder leads outside the project"),
    "data file linked to /dev/zero": Case(both(remove("data/prices.yaml"), symlink("data/prices.yaml", "/dev/zero")),
                                          "data/prices.yaml", "the file leads outside the project, to /dev/zero"),
    "data file as a named pipe": Case(both(remove("data/prices.yaml"), lambda root: os.mkfifo(root / "data/prices.yaml")),
                                      "data/prices.yaml", "it is not a regular file"),
    "UI strings as a named pipe": Case(both(remove("data/ui/en.yaml"), lambda root: os.mkfifo(root / "data/ui/en.yaml")),
                                       "data/ui/en.yaml", "it is not a regular file"),
    "template as a named pipe": Case(both(remove("templates/partials/faq.html"),
                                          lambda root: os.mkfifo(root / "templates/partials/faq.html")),
                                     "templates/partials/faq.html", "it is not a regular file"),
    "named pipe in content": Case(lambda root: os.mkfifo(root / "content/fr/tuyau.md"), "content/fr/tuyau.md",
                                  "it is not a regular file"),
    "named pipe in assets": Case(lambda root: os.mkfifo(root / "templates/assets/tuyau.css"),
                                 "templates/assets/tuyau.css", "it is not a regular file"),
    "content page over the size limit": Case(write("content/fr/immense.md", PAGE + "x" * (MAX_FILE_BYTES + 1)),
                                             "content/fr/immense.md", f"over the {MAX_FILE_BYTES:,} a file may have"),
    "data file over the size limit": Case(replace("data/prices.yaml", "as_of:", "# " + "x" * MAX_FILE_BYTES + "\nas_of:"),
                                          "data/prices.yaml", f"over the {MAX_FILE_BYTES:,} a file may have"),
    "asset over the size limit": Case(write("templates/assets/immense.bin", b"\0" * (MAX_FILE_BYTES + 1)),
                                      "templates/assets/immense.bin", f"over the {MAX_FILE_BYTES:,} a file may have"),
}


@pytest.fixture(scope="module")
def built_tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny site with a good site/ built once; each case breaks a copy of it."""
    root = tiny_project(tmp_path_factory.mktemp("good") / "tiny")
    build(root)
    (root.parent / "outside.md").write_text(PAGE, encoding="utf-8")
    return root


@pytest.fixture
def project(built_tiny: Path, tmp_path: Path) -> Path:
    root = tmp_path / "tiny"
    shutil.copytree(built_tiny, root, symlinks=True)
    (tmp_path / "outside.md").write_text(PAGE, encoding="utf-8")
    return root


def line_of(root: Path, case: Case) -> int:
    path = root / case.file
    if case.line_of is None or not path.is_file():
        return 1
    text = path.read_text(encoding="utf-8")
    assert case.line_of in text, f"{case.line_of!r} not in {case.file}"
    return text[: text.index(case.line_of)].count("\n") + 1


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bad_input_names_file_line_and_fix_and_keeps_the_site(project: Path, case: Case):
    before = fingerprint(project / "site")
    case.apply(project)
    with pytest.raises(BuildFailed) as failure:
        build(project)
    expected = f"{case.file}:{line_of(project, case)}:"
    found = [str(problem) for problem in failure.value.problems]
    assert any(text.startswith(expected) and case.message in text for text in found), "\n".join(found)
    assert all("(" in text and text.endswith(")") for text in found), "every problem carries a hint"
    assert fingerprint(project / "site") == before
    assert not list(project.glob(".site-*")), "a staging folder was left behind"


def test_the_table_covers_the_cases_the_issue_names():
    assert len(CASES) >= 70


@pytest.mark.parametrize("case", ["typo in a front-matter key", "template syntax error", "YAML alias bomb in front matter",
                                  "5,000-digit number", "unknown locale"])
def test_the_command_line_exits_1_without_a_traceback(project: Path, case: str):
    CASES[case].apply(project)
    before = fingerprint(project / "site")
    result = build_cli(project)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    assert f"{CASES[case].file}:{line_of(project, CASES[case])}:" in result.stderr
    last = result.stderr.splitlines()[-1]
    assert last.startswith("build failed: ") and last.endswith("; site/ was not changed"), last
    assert fingerprint(project / "site") == before


@pytest.mark.parametrize("cases", [
    ("number with a unit", "zero price", "typo in a front-matter key"),
    # A bad price, an unknown GPU id in a page's table and an unknown shortcode in another page's
    # body: three stages (data, pages, rendering), one run.
    ("zero price", "unknown GPU id", "unknown shortcode"),
    # A broken table breaks its translations' too (they take it): a template error found while
    # rendering shows on another layout's page.
    ("anchor with an unknown model", "unknown column", "unknown shortcode", "undefined variable in the catalogue"),
])
def test_all_problems_of_a_run_are_reported_together(project: Path, cases: tuple[str, ...]):
    for case in cases:
        CASES[case].apply(project)
    before = fingerprint(project / "site")
    with pytest.raises(BuildFailed) as failure:
        build(project)
    text = "\n".join(str(problem) for problem in failure.value.problems)
    for case in cases:
        assert f"{CASES[case].file}:{line_of(project, CASES[case])}:" in text and CASES[case].message in text, case
    assert fingerprint(project / "site") == before


#: A body's problems at their line and column: in a sentence, a list item, a quote, and in a
#: table note folded over several lines of the front matter.
COLUMN_CASES = [
    (FR_GUIDE, "---\nUn guide court.\n", "---\nUn guide {{ inconnu_a }} court.\n", "{{ inconnu_a }}"),
    (FR_GUIDE, "---\nUn guide court.\n", "---\nUn guide court.\n\n- Un point {{ inconnu_b }} ici\n", "{{ inconnu_b }}"),
    (FR_GUIDE, "---\nUn guide court.\n", "---\nUn guide court.\n\n> Cité {{ inconnu_c }}\n", "{{ inconnu_c }}"),
    (FR_USE_CASE, "table_note: Estimations prudentes, en comptant {{ usable_memory_share }} de la mémoire.",
     "table_note: >-\n  Estimations prudentes,\n  en comptant {{ usable_memory_share }} de la mémoire\n"
     "  et {{ inconnu_d }} aussi.", "{{ inconnu_d }}"),
]


@pytest.mark.parametrize(("file", "old", "new", "needle"), COLUMN_CASES, ids=["sentence", "list item", "quote", "table note"])
def test_body_problems_point_at_their_line_and_column(project: Path, file: str, old: str, new: str, needle: str):
    replace(file, old, new)(project)
    with pytest.raises(BuildFailed) as failure:
        build(project)
    lines = (project / file).read_text(encoding="utf-8").splitlines()
    line = next(number for number, text in enumerate(lines, 1) if needle in text)
    column = lines[line - 1].index(needle) + 1
    found = [str(problem) for problem in failure.value.problems]
    assert any(text.startswith(f"{file}:{line}:{column}: ") for text in found), found


def test_check_reports_the_same_and_writes_nothing(project: Path):
    CASES["undefined template variable"].apply(project)
    before = fingerprint(project)
    result = build_cli(project, "check")
    assert result.returncode == 1
    assert "templates/use_case.html:" in result.stderr and "template error" in result.stderr
    assert fingerprint(project) == before


def test_no_page_is_dropped_whatever_its_layout(project: Path):
    """Sections after the first heading and a FAQ show on every layout (404 and search pages included)."""
    for page in sorted((project / "content" / "fr").rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        if "{model}" in text or "{a}" in text:
            continue  # generator patterns: their body shows on every generated page
        page.write_text(text + "\n\n## Section ajoutée\n\nTexte ajouté.\n\n::: faq\n### Question ajoutée ?\n\n"
                        "Réponse ajoutée.\n:::\n" if "::: faq" not in text else text + "\n\n## Section ajoutée\n\n"
                        "Texte ajouté.\n", encoding="utf-8")
    build(project)
    for html in sorted((project / "site" / "fr").rglob("index.html")):
        if html.parent.parent.name in ("gpu", "comparer", "modeles"):
            continue
        content = html.read_text(encoding="utf-8")
        assert "Texte ajouté." in content, html
        assert "Question ajoutée" in content or "Combien de mémoire" in content, html


#: What editors and systems leave beside the files: an Emacs lock (a link to nowhere) and autosave,
#: a macOS resource fork and folder index, a backup, a Vim swap file.
EDITORS_LEFTOVERS = {".#entrainement.md": "root@host.4242:1700000000", "#entrainement.md#": "autosave",
                     "._entrainement.md": b"\x00\x05\x16\x07\xff\xfe", ".DS_Store": b"\x00\x00\x00\x01Bud1",
                     "entrainement.md~": "---\nbackup", ".entrainement.md.swp": b"b0VIM 9.0\x00"}


def test_editors_leftovers_are_ignored_everywhere(project: Path):
    """Hidden files and editors' leftovers in content, templates and assets: the site is the one a
    clean project builds, byte for byte, and no warning mentions them."""
    clean = fingerprint(project / "site")
    for folder in ("content/fr", "content/en", "templates", "templates/assets", "data"):
        for name, content in EDITORS_LEFTOVERS.items():
            path = project / folder / name
            if name.startswith(".#"):
                os.symlink(str(content), path)  # Emacs locks are links to user@host.pid
            else:
                path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    outcome = build(project)
    assert not [w for w in outcome.warnings if any(name in str(w) for name in EDITORS_LEFTOVERS)]
    assert fingerprint(project / "site") == clean
