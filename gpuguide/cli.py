"""The command line: ``python build.py [build|check|serve|translations] [--strict]``.

Exit codes: 0 success, 1 the input has errors (each printed as ``path:line:column: error: …``),
2 the command was used wrongly.
"""

from __future__ import annotations

import argparse
import logging
import sys
import traceback
from pathlib import Path
from typing import Callable, TextIO

from .errors import BuildFailed, Problem
from .project import Project

# The pipeline (pydantic, Jinja2, Babel, markdown-it) is imported by the commands that need it, so
# that a rebuild with nothing to do answers at once (see fastpath).


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="build.py", description="Build the GPU guide site into site/.")
    parser.add_argument("command", nargs="?", default="build", choices=["build", "check", "serve", "translations"],
                        help="build (default): build into site/; check: validate and render everything, "
                             "write nothing; serve: serve the site with live reload; translations: report "
                             "missing and stale translations")
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="project folder (default: current)")
    parser.add_argument("--no-search", action="store_true", help="skip the Pagefind search index")
    parser.add_argument("--port", type=int, default=8000, help="serve: port on 127.0.0.1 (default: 8000)")
    parser.add_argument("--stamp", type=Path, metavar="PATH",
                        help="translations: record that the translation PATH is up to date with its source")
    parser.add_argument("--debug", action="store_true",
                        help="show Python tracebacks for internal errors, and how long each stage of a build took")
    return parser


def progress_printer(stream: TextIO = sys.stderr) -> "Callable[[int, int], None] | None":
    """``rendering 200/431`` rewritten in place, only on a terminal (logs and pipes stay clean)."""
    if not stream.isatty():
        return None

    def show(done: int, total: int) -> None:
        end = "\n" if done == total else ""
        if done == total or done % 10 == 0:
            stream.write(f"\rrendering {done}/{total}{end}")
            stream.flush()

    return show


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)  # exits 2 on usage errors
    if args.stamp is not None and args.command != "translations":
        parser.error("--stamp goes with the translations command")
    project = Project(args.root.resolve())
    if args.debug:  # our own debug messages only (markdown-it logs every line it parses)
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        logging.getLogger("gpuguide").addHandler(handler)
        logging.getLogger("gpuguide").setLevel(logging.DEBUG)
    commands: dict[str, Callable[[Project, argparse.Namespace], int]] = {
        "build": _build, "check": _check, "serve": _serve, "translations": _translations}
    try:
        return commands[args.command](project, args)
    except BuildFailed as failure:
        print_problems(failure.problems)
        errors = sum(1 for p in failure.problems if p.severity == "error")
        warnings = len(failure.problems) - errors
        print(f"{args.command} failed: {errors} errors, {warnings} warnings; site/ was not changed",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        from .publish import update_pending
        print("interrupted while updating site/: the next build finishes the update"
              if update_pending(project.site_dir) else "interrupted; site/ was not changed", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug in the generator, not in the input
        if args.debug:
            traceback.print_exc()
        print(f"internal error: {type(exc).__name__}: {exc} (site/ was not changed; "
              f"rerun with --debug and report it)", file=sys.stderr)
        return 1


def _build(project: Project, args: argparse.Namespace) -> int:
    import time

    from . import fastpath

    started = time.perf_counter()
    options = {"strict": args.strict, "search": not args.no_search}
    summary = fastpath.up_to_date(project, options)
    if summary is not None:
        for warning in summary["warnings"]:
            print(warning, file=sys.stderr)
        print(f"built {summary['pages']} pages in {time.perf_counter() - started:.2f} s into "
              f"{project.site_dir.relative_to(project.root).as_posix()}/ (nothing changed since the last build; "
              f"{len(summary['warnings'])} warnings)")
        return 0
    from .pipeline import build_site

    result = build_site(project, args.strict, progress_printer(), search=not args.no_search)
    print_problems(result.warnings)
    print(f"built {result.pages_written} pages in {result.seconds:.2f} s into "
          f"{project.site_dir.relative_to(project.root).as_posix()}/ ({result.pages_rendered} rendered, "
          f"{result.pages_written - result.pages_rendered} unchanged; {len(result.warnings)} warnings)")
    return 0


def _check(project: Project, args: argparse.Namespace) -> int:
    from .pipeline import check_site

    checked = check_site(project, args.strict, progress_printer())
    print_problems(checked.warnings)
    print(f"check: {len(checked.pages)} pages rendered, {len(checked.loaded.dataset.gpus)} GPUs, links checked, "
          f"no errors, {len(checked.warnings)} warnings; nothing written")
    return 0


def _serve(project: Project, args: argparse.Namespace) -> int:
    from .serve import serve

    return serve(project, args.port, args.strict)


def _translations(project: Project, args: argparse.Namespace) -> int:
    from .pipeline import load_site
    from .translations import stamp, translation_statuses

    site = load_site(project, strict=False)
    if args.stamp is not None:
        path = args.stamp if args.stamp.is_absolute() else Path.cwd() / args.stamp
        if not path.exists() and not args.stamp.is_absolute():
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
        if item.page is not None:
            print(f"{relative(item.page.source)}: {item.status} (source {relative(item.source.source)})")
        else:
            print(f"{relative(item.source.source)}: no `{item.lang}` translation "
                  f"(translation_key `{item.translation_key}`)")
    warnings = site.problems.warnings
    print_problems(warnings)
    counts = {status: sum(1 for item in statuses if item.status == status)
              for status in ("up to date", "stale", "unknown freshness", "missing")}
    print("translations: " + ", ".join(f"{count} {status}" for status, count in counts.items()))
    if args.strict and warnings:
        print(f"translations failed: {len(warnings)} warnings (--strict)", file=sys.stderr)
        return 1
    return 0


def print_problems(problems: list[Problem]) -> None:
    for problem in sorted(set(problems)):
        print(problem, file=sys.stderr)
