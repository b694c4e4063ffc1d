"""The dev server's session: text edits rebuilt in memory give exactly the site a full build gives;
anything else takes the normal build; a bad edit leaves the site as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpuguide.build.pipeline import Options
from gpuguide.build.session import DevSession
from gpuguide.errors import BuildFailed
from gpuguide.project import Project
from sites import build, edit, fingerprint, tiny_project

GUIDE_FR = Path("content/fr/guides/premier-guide.md")
GUIDE_FR_OUT = "fr/guides/premier-guide/index.html"


def session_for(root: Path) -> DevSession:
    session = DevSession(Project(root), Options(search=False))
    session.build()
    return session


def changed_files(before: dict[str, str], after: dict[str, str]) -> set[str]:
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


def test_a_text_edit_is_rebuilt_in_memory_and_equals_a_full_build(tiny: Path, tmp_path: Path):
    session = session_for(tiny)
    before = fingerprint(tiny / "site")
    edit(tiny / GUIDE_FR, "Un guide court.\n\n## Mémoire", "Un guide court, modifié.\n\n## Mémoire")
    outcome = session.build({tiny / GUIDE_FR})
    assert outcome.rendered == 1
    after = fingerprint(tiny / "site")
    assert changed_files(before, after) == {GUIDE_FR_OUT}
    assert "Un guide court, modifié." in (tiny / "site" / GUIDE_FR_OUT).read_text(encoding="utf-8")
    # The same inputs built from scratch elsewhere give the same site, byte for byte.
    fresh = tiny_project(tmp_path / "fresh")
    shutil.copyfile(tiny / GUIDE_FR, fresh / GUIDE_FR)
    build(fresh)
    assert fingerprint(fresh / "site") == after
    # The next normal build renders the page again (the cache on disk did not see the edit) and changes nothing.
    rebuilt = build(tiny)
    assert rebuilt.rendered >= 1 and fingerprint(tiny / "site") == after


def test_a_front_matter_edit_takes_the_normal_build(tiny: Path):
    session = session_for(tiny)
    edit(tiny / GUIDE_FR, 'title: "Premier guide"', 'title: "Premier guide, nouveau titre"')
    outcome = session.build({tiny / GUIDE_FR})
    assert outcome.rendered > 1  # the guides' index and the translation's switcher show the title
    index = (tiny / "site" / "fr" / "guides" / "index.html").read_text(encoding="utf-8")
    assert "Premier guide, nouveau titre" in index


def test_a_bad_edit_leaves_the_site_and_says_where(tiny: Path):
    session = session_for(tiny)
    before = fingerprint(tiny / "site")
    edit(tiny / GUIDE_FR, "Un guide court.\n\n## Mémoire", "{{ gpu_figure gpu=nope column=memory }}\n\n## Mémoire")
    with pytest.raises(BuildFailed) as failure:
        session.build({tiny / GUIDE_FR})
    assert any(p.path == GUIDE_FR.as_posix() and "unknown GPU `nope`" in p.message for p in failure.value.problems)
    assert fingerprint(tiny / "site") == before
    # Fixed again: the session still works.
    edit(tiny / GUIDE_FR, "{{ gpu_figure gpu=nope column=memory }}", "Corrigé.")
    assert session.build({tiny / GUIDE_FR}).rendered == 1


def test_removing_a_heading_another_page_links_to_is_an_error_at_that_link(tiny: Path):
    home = tiny / "content" / "fr" / "index.md"
    home.write_text(home.read_text(encoding="utf-8") + "\nVoir [la mémoire](guides/premier-guide.md#memoire-des-modeles).\n",
                    encoding="utf-8")
    session = session_for(tiny)
    edit(tiny / GUIDE_FR, "## Mémoire des modèles", "## Autre titre")
    with pytest.raises(BuildFailed) as failure:
        session.build({tiny / GUIDE_FR})
    assert any(p.path == "content/fr/index.md" and "missing anchor" in p.message for p in failure.value.problems)


def test_editing_a_source_makes_its_translation_stale(tiny: Path):
    session = session_for(tiny)
    assert not session.build().warnings  # a full build: nothing stale yet
    edit(tiny / GUIDE_FR, "Un guide court.\n\n## Mémoire", "Un guide court, modifié.\n\n## Mémoire")
    outcome = session.build({tiny / GUIDE_FR})
    assert outcome.rendered == 1
    assert [w.path for w in outcome.warnings] == ["content/en/guides/first-guide.md"]


def test_a_server_started_on_a_built_site_edits_in_memory_from_the_first_edit(tiny: Path):
    build(tiny)  # site/ is current: the first build of the session has nothing to change
    session = DevSession(Project(tiny), Options(search=False))
    before = fingerprint(tiny / "site")
    session.build()
    assert fingerprint(tiny / "site") == before
    edit(tiny / GUIDE_FR, "Un guide court.\n\n## Mémoire", "Un guide court, modifié.\n\n## Mémoire")
    outcome = session.build({tiny / GUIDE_FR})
    assert outcome.rendered == 1  # in memory: the session kept what its first build loaded
    assert changed_files(before, fingerprint(tiny / "site")) == {GUIDE_FR_OUT}


# --- The warm-up between edits ----------------------------------------------------------------------

@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The pages whose context (figures, tables, body) was computed in this process: by the
    warm-up, which stops there, or by a build that does not fork."""
    from gpuguide.render.renderer import PageRenderer

    rendered: list[str] = []
    original = PageRenderer.context

    def counted(self, page, reads, link_lines, known=None):  # type: ignore[no-untyped-def]
        rendered.append(page.output_path)
        return original(self, page, reads, link_lines, known)

    monkeypatch.setattr(PageRenderer, "context", counted)
    return rendered


def test_the_warm_up_renders_the_pages_that_read_a_gpu_or_a_price_once_and_writes_nothing(tiny: Path,
                                                                                        renders: list[str]):
    session = session_for(tiny)
    before, cache = fingerprint(tiny / "site"), fingerprint(tiny / ".build-cache")
    assert session.built is not None
    reading = {output for output, entry in session.built.entries.items()
               if any(table in ("gpus", "prices") and key != "#ids" for table, key in entry.reads)}
    assert {"fr/gpu/big/index.html", "en/models/big-llm/index.html"} <= reading
    assert not {"fr/guides/index.html", "en/search/index.html"} & reading  # they read the GPUs' ids only
    renders.clear()
    session.warm(interrupted=lambda: False)
    assert sorted(renders) == sorted(reading)
    assert fingerprint(tiny / "site") == before and fingerprint(tiny / ".build-cache") == cache
    renders.clear()
    session.warm(interrupted=lambda: False)  # the same dataset: its figures are there already
    assert renders == []


def test_the_warm_up_stops_at_a_request_and_the_next_build_is_a_clean_builds(tiny: Path, renders: list[str],
                                                                            tmp_path: Path):
    session = session_for(tiny)
    renders.clear()
    session.warm(interrupted=lambda: len(renders) >= 3)
    assert len(renders) == 3
    edit(tiny / "data" / "prices.yaml", "card: 0.5", "card: 0.65")
    session.build({tiny / "data" / "prices.yaml"})
    fresh = tiny_project(tmp_path / "fresh")
    shutil.copyfile(tiny / "data" / "prices.yaml", fresh / "data" / "prices.yaml")
    build(fresh)
    assert fingerprint(fresh / "site") == fingerprint(tiny / "site")


def test_the_warm_up_resumes_after_a_build_of_the_same_figures_and_starts_again_after_a_price(tiny: Path,
                                                                                             renders: list[str]):
    session = session_for(tiny)
    renders.clear()
    session.warm(interrupted=lambda: len(renders) >= 2)
    first = list(renders)
    # A title edit: the normal build loads everything again, but no figure a page computes changed.
    edit(tiny / GUIDE_FR, 'title: "Premier guide"', 'title: "Premier guide, nouveau titre"')
    session.build({tiny / GUIDE_FR})
    assert session.built is not None
    reading = {output for output, entry in session.built.entries.items()
               if any(table in ("gpus", "prices") and key != "#ids" for table, key in entry.reads)}
    renders.clear()
    session.warm(interrupted=lambda: False)
    assert len(first) == 2 and sorted(renders) == sorted(reading - set(first))
    # A price: every page that reads one is rendered again for the new figures.
    edit(tiny / "data" / "prices.yaml", "card: 0.5", "card: 0.65")
    session.build({tiny / "data" / "prices.yaml"})
    renders.clear()
    session.warm(interrupted=lambda: False)
    assert sorted(renders) == sorted(reading)


def _set_aside(root: Path) -> list[str]:
    """The folders beside site/ that builds set aside to delete (``publish.remove_spent``)."""
    return sorted(path.name for path in root.glob(".site-spent-*"))


def test_what_a_build_sets_aside_is_deleted_once_the_site_is_served(tiny: Path):
    """The dev server says it rebuilt before deleting the folder the build published from (or the
    previous site it replaced), and deletes it when idle; ``build.py`` deletes it before it ends;
    a process killed before deleting it leaves it to the next build."""
    session = session_for(tiny)
    session.warm(lambda: False)
    assert _set_aside(tiny) == []
    edit(tiny / GUIDE_FR, 'title: "Premier guide"', 'title: "Premier guide, nouveau titre"')
    assert session.build({tiny / GUIDE_FR}).rendered > 1
    assert "Premier guide, nouveau titre" in (tiny / "site" / "fr" / "guides" / "index.html").read_text(encoding="utf-8")
    assert len(_set_aside(tiny)) == 1  # published, not yet deleted
    session.warm(lambda: False)
    assert _set_aside(tiny) == []
    # The command line: nothing left when it ends.
    edit(tiny / GUIDE_FR, "Premier guide, nouveau titre", "Premier guide, autre titre")
    assert build(tiny).rendered > 1 and _set_aside(tiny) == []
    # What a killed process left is deleted by the next build, even one that finds nothing to do.
    left = tiny / ".site-spent-1-2" / "fr"
    left.mkdir(parents=True)
    (left / "index.html").write_text("old", encoding="utf-8")
    assert build(tiny).unchanged and _set_aside(tiny) == []


def test_an_edit_saved_while_the_server_deletes_a_previous_site_does_not_wait_for_it(tiny: Path):
    """The deletion stops at the first sign of a request, and the next idle moment finishes it."""
    session = session_for(tiny)
    session.warm(lambda: False)
    previous = tiny / ".site-spent-1-2"  # a previous site of 50 pages, set aside by a swap
    for index in range(50):
        (previous / "fr" / f"page-{index}").mkdir(parents=True)
        (previous / "fr" / f"page-{index}" / "index.html").write_text("old", encoding="utf-8")
    asked: list[int] = []

    def interrupted() -> bool:  # asked before the warm-up starts, then before each folder
        asked.append(1)
        return len(asked) > 3  # a request arrives once two folders are deleted

    session.warm(interrupted)
    assert len(asked) == 4 and _set_aside(tiny) == [previous.name]
    assert sum(1 for _ in previous.rglob("index.html")) == 48
    session.warm(lambda: False)
    assert _set_aside(tiny) == []
