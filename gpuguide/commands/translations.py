"""``python build.py translations``: which translations are up to date, stale, of unknown freshness or
missing; ``--stamp PATH`` records that a translation is up to date with its source."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gpuguide.commands.cli import print_problems
from gpuguide.errors import plural
from gpuguide.project import Project


def run(project: Project, args: argparse.Namespace) -> int:
    from gpuguide.build.pipeline import Options, load
    from gpuguide.structure.translation_status import stamp, translation_statuses

    # The report is what a new language needs most: made even when pages are missing (errors, listed after it).
    site = load(project, Options(parallel=False), report_later=True)
    if args.stamp is not None:
        # A relative path is the working folder's when it names a file of the project there, else the project's.
        path = args.stamp if args.stamp.is_absolute() else Path.cwd() / args.stamp
        if not args.stamp.is_absolute() and not (path.exists() and path.resolve().is_relative_to(project.root.resolve())):
            path = project.root / args.stamp
        try:
            digest = stamp(path, site.library, site.dataset)
        except ValueError as exc:
            print(f"translations: {exc}", file=sys.stderr)
            return 1
        print(f"stamped {site.problems.relative(path)}: translated_from: {digest}")
        return 0
    statuses = translation_statuses(site.library, site.dataset)
    relative = site.problems.relative
    for item in statuses:
        if item.page is not None and item.source is not None:
            print(f"{relative(item.page.source)}: {item.status} (source {relative(item.source.source)})")
        elif item.source is not None:
            print(f"{relative(item.source.source)}: no `{item.lang}` translation (translation_key `{item.translation_key}`)")
    warnings, errors = site.problems.warnings, site.problems.errors
    print_problems(warnings)
    counts = {status: sum(1 for item in statuses if item.status == status)
              for status in ("up to date", "stale", "unknown freshness", "missing")}
    print("translations: " + ", ".join(f"{count} {status}" for status, count in counts.items()))
    if errors:
        print_problems(errors)
        print(f"translations: {plural(len(errors), 'error')}: the site does not build yet", file=sys.stderr)
        return 1
    if args.strict and warnings:
        print(f"translations failed: {plural(len(warnings), 'warning')} (--strict)", file=sys.stderr)
        return 1
    return 0
