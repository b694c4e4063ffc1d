"""``python build.py build``: build into ``site/``, re-rendering only what changed."""

from __future__ import annotations

import argparse
import sys

from gpuguide.commands.cli import print_problems, progress_printer
from gpuguide.errors import plural
from gpuguide.project import Project


def run(project: Project, args: argparse.Namespace) -> int:
    from gpuguide.build.pipeline import Options, run as run_pipeline

    def waiting(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    outcome = run_pipeline(project, Options(strict=args.strict, search=not args.no_search), progress=progress_printer(),
                           on_wait=waiting, then_exit=args.then_exit)
    print_problems(outcome.warnings)
    site = f"{project.site_dir.name}/"
    if outcome.unchanged:
        print(f"nothing changed since the last build: {plural(outcome.pages, 'page')} in {site} "
              f"({plural(len(outcome.warnings), 'warning')}), checked in {outcome.seconds:.2f} s")
    else:
        print(f"built {plural(outcome.pages, 'page')} in {outcome.seconds:.2f} s into {site} "
              f"({outcome.rendered:,} rendered, {outcome.pages - outcome.rendered:,} unchanged; "
              f"{plural(len(outcome.warnings), 'warning')})")
    return 0
