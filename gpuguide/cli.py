"""The command line: ``python build.py [build|check] [--strict]``.

Exit codes: 0 success, 1 the input has errors (each printed as ``path:line:column: error: …``),
2 the command was used wrongly.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from pathlib import Path

from .errors import BuildFailed
from .pipeline import Project, build_site, load_site


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="build.py", description="Build the GPU guide site into site/.")
    parser.add_argument("command", nargs="?", default="build", choices=["build", "check"],
                        help="build (default): build into site/; check: validate everything, write nothing")
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="project folder (default: current)")
    parser.add_argument("--no-search", action="store_true", help="skip the Pagefind search index")
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks for internal errors")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)  # exits 2 on usage errors
    project = Project(args.root.resolve())
    try:
        if args.command == "check":
            site = load_site(project, args.strict)
            _print_warnings(site.problems.warnings)
            print(f"check: {len(site.library.pages)} pages, {len(site.dataset.gpus)} GPUs, no errors, "
                  f"{len(site.problems.warnings)} warnings")
            return 0
        result = build_site(project, args.strict, search=not args.no_search)
        _print_warnings(result.warnings)
        print(f"built {result.pages_written} pages in {result.seconds:.2f} s into "
              f"{project.site_dir.relative_to(project.root).as_posix()}/ ({len(result.warnings)} warnings)")
        return 0
    except BuildFailed as failure:
        for problem in failure.problems:
            print(problem, file=sys.stderr)
        errors = sum(1 for p in failure.problems if p.severity == "error")
        warnings = len(failure.problems) - errors
        print(f"{args.command} failed: {errors} errors, {warnings} warnings; site/ was not changed",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; site/ was not changed", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug in the generator, not in the input
        if args.debug:
            traceback.print_exc()
        print(f"internal error: {type(exc).__name__}: {exc} (site/ was not changed; "
              f"rerun with --debug and report it)", file=sys.stderr)
        return 1


def _print_warnings(warnings: list) -> None:
    for warning in warnings:
        print(warning, file=sys.stderr)
