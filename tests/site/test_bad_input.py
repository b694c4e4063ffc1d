"""Bad input: a clear message naming the file and line, exit code 1, no traceback, site/ unchanged.

Each case breaks one copy of the real project the way an editor might, runs ``build.py`` as the
publisher does, and checks the message, the exit code and that the previous site/ is intact.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from sites import ROOT, copy_project

FR_PAGE = "content/fr/entrainement-llm.md"
FR_GUIDE = "content/fr/guides/choisir-gpu-deep-learning-llm.md"


@dataclass
class Break:
    """Replace ``old`` by ``new`` in ``file``; expect ``message`` reported on the line where ``new`` lands."""

    file: str
    old: str
    new: str
    message: str
    line_of: str | None = None  # text whose line the error must name (default: ``new``'s first line)

    def apply(self, root: Path) -> int:
        path = root / self.file
        text = path.read_text(encoding="utf-8")
        assert self.old in text, f"{self.old!r} not in {self.file}"
        text = text.replace(self.old, self.new, 1)
        path.write_text(text, encoding="utf-8")
        needle = self.line_of if self.line_of is not None else self.new.splitlines()[0]
        return text[: text.index(needle)].count("\n") + 1 if needle else 1


CASES = {
    "number with a unit": Break("data/gpus.yaml", "memory_gb: 80\n", 'memory_gb: "80 Go"\n',
                                "`memory_gb`: input should be a valid number"),
    "negative memory": Break("data/gpus.yaml", "memory_gb: 94\n", "memory_gb: -94\n",
                             "`memory_gb`: input should be greater than 0"),
    "zero price": Break("data/prices.yaml", "h200: 4.19", "h200: 0", "input should be greater than 0"),
    "tab in YAML": Break("data/gpus.yaml", "    memory_type: HBM3\n", "\tmemory_type: HBM3\n",
                         "invalid YAML", line_of="\tmemory_type"),
    "unclosed quote": Break(FR_PAGE, "short_name: entraînement de LLM", 'short_name: "entraînement de LLM',
                            "invalid YAML", line_of=None),
    "control character in YAML": Break("data/gpus.yaml", "    model: B200\n", "    model: B2\x0800\n",
                                       "invalid YAML: the character U+0008 is not allowed"),
    "duplicated key": Break("data/gpus.yaml", "    model: B200\n", "    model: B200\n    model: B201\n",
                            "duplicated key `model`", line_of="    model: B201"),
    "typo in a front-matter key": Break(FR_PAGE, "\ntitle:", "\ntitel:", "unknown field `titel`",
                                        line_of="titel:"),
    "unknown GPU id": Break(FR_PAGE, "h100-nvl, h100-sxm", "h100-nvl, h100-sx", "unknown GPU id `h100-sx`",
                            line_of="  gpus:"),
    "unknown column": Break(FR_PAGE, "train_8gpu, price]", "train_8gpus, price]",
                            "unknown column `train_8gpus`", line_of="  columns:"),
    "unknown use case": Break(FR_PAGE, "use_case: llm-training", "use_case: llm-trainng",
                              "unknown use case `llm-trainng`"),
    "missing UI string": Break("data/ui/en.yaml", "  scroll_hint: Scroll sideways to see every column.\n", "",
                               "missing UI string `scroll_hint`", line_of=""),
    "unknown shortcode": Break(FR_PAGE, "{{ usable_memory_share }}", "{{ usable_memory_shares }}",
                               "unknown shortcode `usable_memory_shares`", line_of="table_note:"),
    "shortcode with a wrong argument": Break(FR_PAGE, "{{ usable_memory_share }}",
                                             "{{ usable_memory_share gpu=h100 }}",
                                             "`usable_memory_share` has no argument `gpu`", line_of="table_note:"),
    "link to a page that does not exist": Break(FR_GUIDE, "](../../entrainement-llm/)", "](../../entrainement-lm/)",
                                                "link to a page that does not exist: `../../entrainement-lm/`",
                                                line_of="Pour aller plus loin"),
    "link to a missing anchor": Break(FR_GUIDE, "](../../entrainement-llm/)",
                                      "](../../entrainement-llm/#nulle-part)",
                                      "link to a missing anchor: `../../entrainement-llm/#nulle-part`",
                                      line_of="Pour aller plus loin"),
    "link to a Markdown file that is no page": Break(
        FR_GUIDE, "](../../entrainement-llm/)", "](../entrainement-lm.md)",
        "link to a Markdown file that is not a published page: `../entrainement-lm.md` "
        "(did you mean `../entrainement-llm.md`?)", line_of="Pour aller plus loin"),
    "link to a missing anchor of a Markdown file": Break(
        FR_GUIDE, "](../../entrainement-llm/)", "](../entrainement-llm.md#nulle-part)",
        "link to a missing anchor: `../../entrainement-llm/#nulle-part`", line_of="Pour aller plus loin"),
    "translation key that matches no source page": Break(
        "content/en/fine-tuning.md", "translation_key: use-case/fine-tuning\n",
        "translation_key: use-case/fine-tunin\n",
        "the translation key `use-case/fine-tunin` matches no `fr` page (did you mean `use-case/fine-tuning`?)"),
    "slug that climbs out of site/": Break(FR_PAGE, "slug: entrainement-llm\n", "slug: ../evil\n",
                                           "`slug`: string should match pattern"),
    "absolute slug": Break(FR_PAGE, "slug: entrainement-llm\n", "slug: /abs\n",
                           "`slug`: string should match pattern"),
    "undefined template variable": Break("templates/use_case.html", "{{ title }}</h1>",
                                         "{{ titel }}</h1>", "template error", line_of="{{ titel }}"),
}


def _fingerprint(site: Path) -> dict[str, str]:
    return {str(p.relative_to(site)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*")) if p.is_file()}


def run_build(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "build.py"), "--root", str(root), *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def project(tmp_path: Path, built_site: Path) -> Path:
    """A copy of the project with a previous, good site/ in place (copied: building it is slower)."""
    root = copy_project(tmp_path)
    shutil.copytree(built_site, root / "site")
    return root


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_bad_input_is_reported_with_file_and_line_and_site_is_kept(project: Path, case: Break):
    before = _fingerprint(project / "site")
    line = case.apply(project)
    result = run_build(project)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"{case.file}:{line}:" in result.stderr, result.stderr
    assert case.message in result.stderr, result.stderr
    assert "site/ was not changed" in result.stderr
    assert _fingerprint(project / "site") == before
    assert not list(project.glob(".site-*")), "a staging folder was left behind"


def test_two_pages_with_one_url_are_reported(project: Path):
    page = project / FR_PAGE
    copy = page.with_name("copie.md")
    copy.write_text(page.read_text(encoding="utf-8").replace("use-case/llm-training", "use-case/copy"),
                    encoding="utf-8")
    result = run_build(project)
    assert result.returncode == 1
    slug_line = page.read_text(encoding="utf-8").splitlines().index("slug: entrainement-llm") + 1
    assert f"{FR_PAGE}:{slug_line}:7: error: two pages have the URL /fr/entrainement-llm/" in result.stderr
    assert "(content/fr/copie.md has it too; change one `slug`)" in result.stderr


def test_two_pages_with_one_translation_key_in_a_language_are_reported(project: Path):
    page = project / FR_PAGE
    page.with_name("copie.md").write_text(
        page.read_text(encoding="utf-8").replace("slug: entrainement-llm", "slug: copie"), encoding="utf-8")
    result = run_build(project)
    assert result.returncode == 1
    assert "two `fr` pages have the translation key `use-case/llm-training`" in result.stderr


def test_typo_gets_a_did_you_mean_hint(project: Path):
    CASES["typo in a front-matter key"].apply(project)
    assert "did you mean `title`?" in run_build(project).stderr


def test_all_problems_of_a_run_are_reported_together(project: Path):
    CASES["number with a unit"].apply(project)
    CASES["zero price"].apply(project)
    CASES["typo in a front-matter key"].apply(project)
    CASES["unknown shortcode"].apply(project)
    result = run_build(project)
    for case in ("number with a unit", "zero price", "typo in a front-matter key"):
        assert CASES[case].message in result.stderr, result.stderr


@pytest.mark.parametrize(("content", "message"), [
    (b"", "the file is empty"),
    (b"\xff\xfe title", "not valid UTF-8"),
    (b"Just text, no front matter.\n", "no front matter"),
    (b"---\n---\nBody\n", "the front matter is empty"),
])
def test_unusable_files_are_reported(project: Path, content: bytes, message: str):
    (project / "content/fr/nouvelle-page.md").write_bytes(content)
    result = run_build(project)
    assert result.returncode == 1
    assert "content/fr/nouvelle-page.md:1:" in result.stderr and message in result.stderr


def test_usage_errors_exit_2(project: Path):
    result = run_build(project, "publish-everything")
    assert result.returncode == 2


def test_a_good_build_prints_one_summary_line(tmp_path: Path):
    root = copy_project(tmp_path)
    result = run_build(root)
    assert result.returncode == 0
    assert result.stdout.strip().count("\n") == 0
    pages = len(list((root / "site").rglob("*.html")))
    assert result.stdout.startswith(f"built {pages} pages in ")


@pytest.mark.parametrize("case", ["link to a missing anchor", "undefined template variable",
                                  "translation key that matches no source page"])
def test_check_renders_and_checks_links_without_writing(project: Path, case: str):
    """``check`` catches template errors and broken links too, and writes nothing."""
    before = _fingerprint(project / "site")
    line = CASES[case].apply(project)
    result = run_build(project, "check")
    assert result.returncode == 1
    assert f"{CASES[case].file}:{line}:" in result.stderr and CASES[case].message in result.stderr, result.stderr
    assert _fingerprint(project / "site") == before
    assert sorted(p.name for p in project.iterdir()) == ["content", "data", "site", "templates"]


def test_a_link_to_a_markdown_file_becomes_the_page_url(project: Path):
    guide = project / FR_GUIDE
    guide.write_text(guide.read_text(encoding="utf-8").replace(
        "](../../entrainement-llm/)", "](../entrainement-llm.md#ce-qui-compte-entrainement-de-llm)"),
        encoding="utf-8")
    result = run_build(project)  # (the English translation is now stale: a warning)
    assert result.returncode == 0, result.stderr
    html = (project / "site/fr/guides/choisir-gpu-deep-learning-llm/index.html").read_text(encoding="utf-8")
    assert 'href="../../entrainement-llm/#ce-qui-compte-entrainement-de-llm"' in html
    assert ".md" not in html.replace("entrainement-llm.md", "")  # no Markdown path left in the output
