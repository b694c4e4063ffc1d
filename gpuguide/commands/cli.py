"""The command line: ``python build.py [build|check|serve|translations] [options]``, each command with
its own options and ``--help``.

Exit codes: 0 success, 1 the input has errors (each printed as ``path:line:column: error: …``),
2 the command was used wrongly. The pipeline (pydantic, Jinja2, Babel, markdown-it) is imported by
the commands that need it, so a build with nothing to do answers at once.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Callable, TextIO

from gpuguide.errors import BuildFailed, Problem, plural, system_error_message
from gpuguide.project import Project

if TYPE_CHECKING:  # the pipeline is imported only by the command that runs it
    from gpuguide.build.workers import Progress


def _parser(default_root: Path) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="build.py", description="Build the GPU guide site into site/.")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--root", type=Path, default=default_root,
                        help=f"project folder (default: the folder of build.py, {default_root})")
    common.add_argument("--debug", action="store_true",
                        help="show Python tracebacks for internal errors, and how long each stage took")
    strict = argparse.ArgumentParser(add_help=False)
    strict.add_argument("--strict", action="store_true", help="treat warnings as errors")
    commands = parser.add_subparsers(dest="command", metavar="command")
    build = commands.add_parser("build", parents=[common, strict], help="build into site/ (the default command)",
                                description="Validate, render the pages that changed, check links, index the search "
                                            "and publish into site/.")
    build.add_argument("--no-search", action="store_true", help="skip the Pagefind search index (faster)")
    commands.add_parser("check", parents=[common, strict], help="validate and render everything, write nothing",
                        description="Everything build does, without publishing: errors and broken links are "
                                    "reported, site/ is not touched.")
    serve = commands.add_parser("serve", parents=[common, strict], help="serve the site and rebuild on every change",
                                description="Build, serve site/ on 127.0.0.1 and rebuild on every change to "
                                            "content/, data/ or templates/; the open page reloads itself.")
    serve.add_argument("--port", type=_port, default=8000, help="port on 127.0.0.1 (default: 8000)")
    translations = commands.add_parser("translations", parents=[common, strict],
                                       help="report missing and stale translations, or stamp one",
                                       description="For each page of the default language: its translations, up "
                                                   "to date, stale, of unknown freshness, or missing.")
    translations.add_argument("--stamp", type=Path, metavar="PATH",
                              help="record that the translation PATH is up to date with its source")
    return parser


COMMANDS = ("build", "check", "serve", "translations")
_TAKES_VALUE = ("--root", "--port", "--stamp")


def _command_first(argv: list[str]) -> list[str]:
    """The command moved before the options (``--root X check`` works as ``check --root X``), and
    ``build`` when none is named (``python build.py``, ``python build.py --strict``).

    >>> _command_first(["--root", "/site", "check"]), _command_first(["--strict"]), _command_first(["-h"])
    (['check', '--root', '/site'], ['build', '--strict'], ['-h'])
    """
    index = 0
    while index < len(argv):
        word = argv[index]
        if word in COMMANDS:
            return [word, *argv[:index], *argv[index + 1:]]
        index += 2 if word in _TAKES_VALUE else 1
    return argv if argv[:1] in (["-h"], ["--help"]) else ["build", *argv]


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is between 1 and 65535, not {port}")
    return port


def progress_printer(stream: TextIO = sys.stderr) -> "Progress | None":
    """``rendering 200/431``, then ``drawing cards 64/431``, rewritten in place, only on a terminal
    (logs and pipes stay clean)."""
    if not stream.isatty():
        return None

    def show(done: int, total: int, stage: str = "rendering") -> None:
        end = "\n" if done == total else ""
        if done == total or done % 10 == 0 or stage != "rendering":
            stream.write(f"\r{stage} {done}/{total}{end}")
            stream.flush()

    return show


def main(argv: list[str] | None = None, default_root: Path | None = None, then_exit: bool = False) -> int:
    """Run a command. ``then_exit``: the process ends right after, by ``os._exit`` (``build.py``), so
    a build's memory is left for the exit to give back (``pipeline.run``)."""
    parser = _parser((default_root or Path.cwd()).resolve())
    args = parser.parse_args(_command_first(list(sys.argv[1:] if argv is None else argv)))  # exits 2 on usage errors
    args.then_exit = then_exit
    project = Project(args.root.resolve())
    if args.debug:  # our own debug messages only (markdown-it logs every line it parses)
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        logging.getLogger("gpuguide").addHandler(handler)
        logging.getLogger("gpuguide").setLevel(logging.DEBUG)
    if not (project.root / "data").is_dir() and not (project.root / "content").is_dir():
        parser.error(f"{project.root} is not a site project (no content/ or data/ folder); use --root")
    # Only the command run is imported (``serve`` would bring the whole pipeline into a no-change build).
    command: Callable[[Project, argparse.Namespace], int] = importlib.import_module(f"gpuguide.commands.{args.command}").run
    try:
        return command(project, args)
    except BuildFailed as failure:
        print_problems(failure.problems)
        errors = sum(1 for p in failure.problems if p.severity == "error")
        print(f"{args.command} failed: {plural(errors, 'error')}, {plural(len(failure.problems) - errors, 'warning')}; "
              f"{project.site_dir.name}/ was not changed", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"interrupted; {project.site_dir.name}/ is as the last finished build left it", file=sys.stderr)
        return 130
    except OSError as exc:  # the machine, not the input: a full disk, a read-only folder…
        if args.debug:
            traceback.print_exc()
        print(f"error: {system_error_message(exc, project.root)}", file=sys.stderr)
        print(f"{args.command} failed; {project.site_dir.name}/ was not changed", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug in the generator, not in the input
        if args.debug:
            traceback.print_exc()
        print(f"internal error: {type(exc).__name__}: {exc} ({project.site_dir.name}/ was not changed; "
              f"rerun with --debug and report it)", file=sys.stderr)
        return 1


def print_problems(problems: list[Problem]) -> None:
    for problem in sorted(set(problems)):
        print(problem, file=sys.stderr)
