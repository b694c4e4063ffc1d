"""Where a site's inputs and output live: every folder derives from the project root (the README's
``content/``, ``data/``, ``templates/``, ``site/`` and ``.build-cache/``), and the module loads
with the standard library only, since the command line imports it before anything else."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
from sites import ROOT

from gpuguide.project import Project


def test_every_folder_is_named_under_the_root(tmp_path: Path):
    project = Project(tmp_path)
    assert project.content_dir == tmp_path / "content"
    assert project.data_dir == tmp_path / "data"
    assert project.templates_dir == tmp_path / "templates"
    assert project.assets_dir == tmp_path / "templates" / "assets"
    assert project.site_dir == tmp_path / "site"
    assert project.cache_dir == tmp_path / ".build-cache"  # hidden, and safe to delete


def test_the_folders_are_those_of_a_real_project(tiny: Path):
    # The tiny fixture is laid out as a publisher's project: each input folder is where Project says.
    project = Project(tiny)
    assert project.content_dir.is_dir() and (project.content_dir / "fr").is_dir()
    assert (project.data_dir / "site.yaml").is_file()
    assert project.templates_dir.is_dir() and project.assets_dir.is_dir()
    assert not project.site_dir.exists() and not project.cache_dir.exists()  # made by a build


def test_paths_are_derived_not_resolved():
    # A relative root stays relative: the working folder is the command line's business, not Project's.
    project = Project(Path("some") / "where")
    assert project.site_dir == Path("some/where/site")
    assert not project.site_dir.is_absolute()


def test_a_changed_root_changes_every_folder(tmp_path: Path):
    a, b = Project(tmp_path / "a"), Project(tmp_path / "b")
    for name in ("content_dir", "data_dir", "templates_dir", "assets_dir", "site_dir", "cache_dir"):
        assert getattr(a, name) != getattr(b, name)
        assert getattr(b, name).is_relative_to(tmp_path / "b")


def test_a_project_is_a_frozen_value(tmp_path: Path):
    project = Project(tmp_path)
    with pytest.raises(dataclasses.FrozenInstanceError):
        project.root = tmp_path / "other"  # type: ignore[misc]
    assert project == Project(tmp_path) and hash(project) == hash(Project(tmp_path))
    assert project != Project(tmp_path / "other")


def test_importing_it_loads_no_third_party_package():
    # The command line imports Project before it knows whether there is anything to build: a
    # no-change build must not pay for pydantic, Jinja2, Babel or markdown-it.
    code = ("import sys; import gpuguide.project; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "{'pydantic', 'jinja2', 'babel', 'markdown_it', 'yaml', 'PIL', 'watchfiles'}))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                            cwd=ROOT, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
