"""``python build.py check``: the build without publishing: every page rendered and its links checked,
nothing written."""

from __future__ import annotations

import argparse
import sys

from gpuguide.commands.cli import print_problems, progress_printer
from gpuguide.errors import plural
from gpuguide.project import Project


def run(project: Project, args: argparse.Namespace) -> int:
    from gpuguide.build.pipeline import Options, run as run_pipeline

    outcome = run_pipeline(project, Options(strict=args.strict, search=False), publish_site=False,
                           progress=progress_printer(), on_wait=lambda message: print(message, file=sys.stderr),
                           then_exit=args.then_exit)
    print_problems(outcome.warnings)
    print(f"check: {plural(outcome.pages, 'page')} rendered, links checked, no errors, "
          f"{plural(len(outcome.warnings), 'warning')}; nothing written")
    return 0
