"""``python build.py serve``: serve ``site/`` on 127.0.0.1 and rebuild on every edit.

- The port is taken first (a busy port is a usage error, before any build). Then every change
  under ``content/``, ``data/`` or ``templates/`` runs the normal build (``pipeline.run``), so
  ``site/`` only ever holds a complete, good site: a failed rebuild leaves the last good one. The
  first build indexes the search; later rebuilds keep that index, so ``site/`` stays deployable.
  The whole project folder is watched, so a folder deleted and restored is still watched.
- Live reload: HTML responses get ``<script src="/__livereload.js">`` (never written into ``site/``).
  The site's Content-Security-Policy allows scripts from the site itself only and no ``fetch``, so
  the script long-polls by loading ``/__livereload?since=<generation>`` as a script: the server
  answers when the build generation changes (or after a while), and the page reloads on a change.
- While the last rebuild failed, every HTML response shows its problems (file, line, message,
  escaped) in an overlay, until the input is fixed.
- It answers its own site only: a request whose ``Host`` is not the server's own address
  (``check_host``: against DNS rebinding) or whose path no file name can hold gets a short plain
  4xx. HEAD gets exactly the headers of GET (the decorated page's length), without the body.
"""

from __future__ import annotations

import errno
import html
import http.server
import ipaddress
import os
import re
import stat
import sys
import threading
import time
import traceback
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import watchfiles

from gpuguide.build.pipeline import Options
from gpuguide.build.session import DevSession
from gpuguide.errors import BuildFailed, Problem, plural
from gpuguide.project import Project

#: How long a live-reload request waits for a new build before answering "no change".
LONG_POLL_SECONDS = 20.0

LIVERELOAD_JS = """\
// gpuguide dev server: reload the page when a rebuild finishes (not part of the built site).
(function () {
  var me = document.currentScript;
  var generation = me ? me.getAttribute("data-generation") : "0";
  window.__gpuguideLivereload = function (latest) {
    if (String(latest) !== String(generation)) { window.location.reload(); }
  };
  function poll() {
    var script = document.createElement("script");
    script.src = "/__livereload?since=" + encodeURIComponent(generation) + "&t=" + Date.now();
    script.onload = function () { script.remove(); poll(); };
    script.onerror = function () { script.remove(); setTimeout(poll, 1000); };
    document.head.appendChild(script);
  }
  // Start after the page has loaded: a script inserted before that would hold the load event
  // for as long as the poll waits.
  if (document.readyState === "complete") { poll(); } else { window.addEventListener("load", poll); }
})();
"""

OVERLAY_CSS = """\
#gpuguide-build-error { position: fixed; inset: auto 0 0 0; max-height: 60vh; overflow: auto; z-index: 2147483647;
  margin: 0; padding: 1rem 1.25rem; background: #fff4f4; color: #5c0000; border-top: 4px solid #c00;
  font: 14px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; box-shadow: 0 -4px 16px #0003; }
#gpuguide-build-error h2 { margin: 0 0 .5rem; font-size: 15px; }
#gpuguide-build-error ol { margin: 0; padding-left: 1.5rem; }
#gpuguide-build-error li { white-space: pre-wrap; overflow-wrap: anywhere; }
"""


class DevServer:
    """Rebuilds on change and remembers the outcome: the build generation and the last problems."""

    def __init__(self, project: Project, strict: bool = False):
        self.project = project
        self.strict = strict
        self.generation = 0
        self.problems: list[Problem] = []  # empty when the last build succeeded
        self.changed = threading.Condition()
        self.stop = threading.Event()
        self.session = DevSession(project, Options(strict=strict, search=False, parallel=False), on_wait=_log)

    def rebuild(self, search: bool = False, changed: set[Path] | None = None) -> None:
        """Rebuild after ``changed`` files (None: unknown); on failure keep the last good site and
        remember why.

        The session (``build.session``) keeps the site in memory: an edit of a page's text is
        rebuilt there in milliseconds, anything else runs the normal build. Rebuilds render in this
        process (the server has threads, and forking a threaded process is unsafe) and keep the
        last search index (``search=False``); the first build makes it.
        """
        started = time.perf_counter()
        try:
            outcome = self.session.build(changed, search=search)
            problems: list[Problem] = []
            for warning in outcome.warnings:  # each in full, as the build command prints them
                _log(str(warning))
            _log(f"rebuilt {plural(outcome.pages, 'page')} in {time.perf_counter() - started:.2f} s "
                 f"({outcome.rendered} rendered, {plural(len(outcome.warnings), 'warning')})")
        except BuildFailed as failure:
            problems = failure.problems
            _log("\n".join(str(p) for p in problems))
            errors = sum(1 for p in problems if p.severity == "error")
            _log(f"build failed: {plural(errors, 'error')}, {plural(len(problems) - errors, 'warning')}; "
                 "still serving the last good site")
        except Exception as exc:  # a bug in the generator: keep serving, say what happened
            problems = [Problem("(generator)", 1, 1, f"internal error: {type(exc).__name__}: {exc}",
                                "rerun `python build.py --debug` and report it")]
            _log(traceback.format_exc())
        with self.changed:
            self.problems = problems
            self.generation += 1
            self.changed.notify_all()

    def watch(self) -> None:
        """Rebuild after each batch of changes to the inputs, until ``stop`` is set.

        The project folder is watched, not each input folder: a folder deleted and restored (a
        ``git checkout``) is watched again, since the watch is on its parent.
        """
        inputs = tuple(str(folder) + os.sep for folder in
                       (self.project.content_dir, self.project.data_dir, self.project.templates_dir))

        def is_input(change: watchfiles.Change, path: str) -> bool:
            return path.startswith(inputs) or path + os.sep in inputs

        for changes in watchfiles.watch(self.project.root, watch_filter=is_input, debounce=50, step=25,
                                        stop_event=self.stop, raise_interrupt=False):
            # Files only modified (not added or deleted): the session may rebuild them in memory.
            modified = all(change == watchfiles.Change.modified for change, _ in changes)
            self.rebuild(changed={Path(path) for _, path in changes} if modified else None)

    def wait_for_change(self, since: str, timeout: float = LONG_POLL_SECONDS) -> int:
        """The build generation, as soon as it differs from ``since`` (or after ``timeout``)."""
        with self.changed:
            self.changed.wait_for(lambda: str(self.generation) != since, timeout=timeout)
            return self.generation

    def decorate(self, page: str) -> str:
        """A served HTML page plus the live-reload script and, after a failed build, the error overlay."""
        with self.changed:
            generation, problems = self.generation, list(self.problems)
        head = ('<link rel="stylesheet" href="/__livereload.css">'
                f'<script src="/__livereload.js" data-generation="{generation}" defer></script>')
        at = page.find("</head>")
        page = page[:at] + head + page[at:] if at >= 0 else head + page
        if problems:
            overlay = error_overlay(problems)
            at = page.rfind("</body>")
            page = page[:at] + overlay + page[at:] if at >= 0 else page + overlay
        return page


def error_overlay(problems: list[Problem]) -> str:
    """The problems of the failed build, escaped, as a fixed panel over the page."""
    items = "".join(f"<li>{html.escape(str(problem))}</li>" for problem in problems)
    return (f'<div id="gpuguide-build-error" role="alert"><h2>The last build failed: the page shows the '
            f'last good site. Fix these and save:</h2><ol>{items}</ol></div>')


def _error_page(problems: list[Problem]) -> str:
    return ('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Build failed</title></head>'
            f'<body>{error_overlay(problems) if problems else "<p>Not found.</p>"}</body></html>')


#: Names of this machine's loopback address that a browser may put in ``Host`` (with the bound address).
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")

#: ``Host`` = a name or a bracketed IPv6 address, then an optional port (RFC 9110 §7.2, RFC 3986 §3.2).
_HOST_FIELD = re.compile(r"(?P<name>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~%!$&'()*+,;=-]+)(?::(?P<port>[0-9]+))?")


class Refused(Exception):
    """A request the dev server does not answer: its status and a short reason for the client."""

    def __init__(self, status: HTTPStatus, reason: str):
        super().__init__(reason)
        self.status = status
        self.reason = reason


def check_host(values: list[str], http_version: tuple[int, int], bound_host: str, port: int) -> None:
    """Raise Refused unless the request's ``Host`` fields (``values``) name this server.

    A page of another origin whose name is made to resolve to 127.0.0.1 (DNS rebinding) is
    same-origin with itself, not with us; its requests carry its own name in ``Host``, so only the
    server's own names are answered: the loopback names and the bound address, case aside, with
    the port it listens on. A browser leaves the port out only for http's default, 80. Malformed
    (empty, two fields, missing on HTTP/1.1; RFC 9112 §3.2) is 400; another name is 421.

    >>> check_host(["127.0.0.1:8000"], (1, 1), "127.0.0.1", 8000)
    >>> check_host(["LocalHost:8000"], (1, 1), "127.0.0.1", 8000)
    >>> check_host(["[::1]:8000"], (1, 1), "127.0.0.1", 8000)
    >>> check_host(["localhost"], (1, 1), "127.0.0.1", 80)
    >>> check_host([], (1, 0), "127.0.0.1", 8000)  # HTTP/1.0 did not require Host (a browser sends it)
    >>> def refusal(values: list[str]) -> int:
    ...     try:
    ...         check_host(values, (1, 1), "127.0.0.1", 8000)
    ...     except Refused as refused:
    ...         return refused.status.value
    ...     return 200
    >>> [refusal([host]) for host in ("localhost", "localhost:8001", "evil.example:8000",
    ...                              "127.0.0.1.evil.example:8000", "localhost.:8000", "foo.localhost:8000")]
    [421, 421, 421, 421, 421, 421]
    >>> refusal([]), refusal([""]), refusal(["localhost:8000", "localhost:8000"]), refusal(["user@localhost:8000"])
    (400, 400, 400, 400)
    """
    if not values:
        if http_version >= (1, 1):
            raise Refused(HTTPStatus.BAD_REQUEST, "Bad request: no Host header.")
        return
    if len(values) > 1:
        raise Refused(HTTPStatus.BAD_REQUEST, "Bad request: more than one Host header.")
    field = _HOST_FIELD.fullmatch(values[0].strip(" \t"))
    if field is None:
        raise Refused(HTTPStatus.BAD_REQUEST, "Bad request: a malformed Host header.")
    own_names = {_host_name(name) for name in (*LOOPBACK_NAMES, bound_host)}
    if _host_name(field["name"]) not in own_names or int(field["port"] or 80) != port:
        shown = f"{bound_host}:{port}" if ":" not in bound_host else f"[{bound_host}]:{port}"
        raise Refused(HTTPStatus.MISDIRECTED_REQUEST,
                      f"Misdirected request: this dev server answers http://{shown}/ only "
                      f"(or localhost, with that port).")


def _host_name(name: str) -> str | None:
    """A host name compared as a browser writes it: IP addresses in their usual form
    (``[0:0::1]`` is ``::1``), other names in lower case; None for a bracketed non-address."""
    bracketed = name.startswith("[")
    try:
        return str(ipaddress.ip_address(name.strip("[]")))
    except ValueError:
        return None if bracketed else name.lower()


def _stat(path: str) -> os.stat_result | None:
    """The status of a file of the site, None when there is nothing there to serve; an address the
    file system cannot hold is refused (414 too long, 400 not encodable)."""
    try:
        return os.stat(path)
    except OSError as error:
        if error.errno == errno.ENAMETOOLONG:
            raise Refused(HTTPStatus.REQUEST_URI_TOO_LONG, "Address too long.") from None
        return None  # missing, not a folder, a loop of links, no permission: nothing to serve
    except ValueError:  # a NUL byte, or a lone surrogate from a percent-encoding that is not UTF-8
        raise Refused(HTTPStatus.BAD_REQUEST, "Bad request: the address is not a file name.") from None


def make_handler(server: DevServer) -> type[http.server.SimpleHTTPRequestHandler]:
    site_dir = server.project.site_dir

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any):
            super().__init__(*args, directory=str(site_dir), **kwargs)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # one line per rebuild is enough

        def handle(self) -> None:
            try:
                super().handle()
            except (ConnectionError, TimeoutError):
                pass  # the browser went away (a reload, a closed tab): nothing to report

        def translate_path(self, path: str) -> str:
            translated = super().translate_path(path)
            if "\0" in translated:
                raise Refused(HTTPStatus.BAD_REQUEST, "Bad request: a NUL byte in the address.")
            return translated

        def do_GET(self) -> None:
            self._answer(with_body=True)

        def do_HEAD(self) -> None:
            self._answer(with_body=False)

        def _answer(self, with_body: bool) -> None:
            """GET and HEAD take one route, so HEAD gets exactly GET's headers (the length of the
            decorated page, not of the file) and no body. A HEAD of the live-reload poll does not wait."""
            try:
                bound_host, port = self.connection.getsockname()[:2]  # the address this client reached
                check_host(self.headers.get_all("Host") or [], _http_version(self.request_version),
                           bound_host, port)
                if not self.path.startswith("/"):  # absolute-form: for proxies, and naming a host
                    raise Refused(HTTPStatus.BAD_REQUEST, "Bad request: the address must be a path.")
                reply = self._reply(wait=with_body)
            except Refused as refused:
                self.close_connection = True
                reply = (refused.status, "text/plain; charset=utf-8", refused.reason + "\n")
            if reply is not None:
                return self._send(*reply, with_body=with_body)
            # A file of the site as it is: http.server's own answer (types, 304, folder redirects).
            file = self.send_head()
            if file is not None:
                try:
                    if with_body:
                        self.copyfile(file, self.wfile)
                finally:
                    file.close()

        def _reply(self, wait: bool) -> tuple[int, str, str] | None:
            """What the dev server itself answers (its scripts, decorated HTML pages, the 404 while a
            build failed), None for a file served as it is; raises Refused for a malformed address."""
            route = urlsplit(self.path)
            if route.path == "/__livereload.js":
                return 200, "text/javascript", LIVERELOAD_JS
            if route.path == "/__livereload.css":
                return 200, "text/css", OVERLAY_CSS
            if route.path == "/__livereload":
                since = parse_qs(route.query).get("since", ["0"])[0]
                generation = server.wait_for_change(since, LONG_POLL_SECONDS if wait else 0)
                return 200, "text/javascript", f"window.__gpuguideLivereload({generation});\n"
            target = Path(self.translate_path(self.path))
            found = _stat(str(target))
            if found is not None and stat.S_ISDIR(found.st_mode) and route.path.endswith("/"):
                target = target / "index.html"
                found = _stat(str(target))
            if found is not None and stat.S_ISREG(found.st_mode) and target.suffix == ".html":
                try:
                    page = target.read_text(encoding="utf-8")
                except FileNotFoundError:  # swapped out by a rebuild this very moment
                    page = _error_page(server.problems)
                return 200, "text/html; charset=utf-8", server.decorate(page)
            if found is None:
                with server.changed:
                    problems = list(server.problems)
                if problems or not site_dir.exists():
                    return 404, "text/html; charset=utf-8", server.decorate(_error_page(problems))
            return None

        def _send(self, status: int, content_type: str, body: str, with_body: bool = True) -> None:
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            if with_body:
                self.wfile.write(data)

        def end_headers(self) -> None:
            self.send_header("Cache-Control", "no-store")  # always the latest build
            super().end_headers()

    return Handler


def _http_version(request_version: str) -> tuple[int, int]:
    """``HTTP/1.1`` as (1, 1); http.server has checked its form."""
    major, _, minor = request_version.partition("/")[2].partition(".")
    return int(major), int(minor or 0)


class _ThreadingServer(http.server.ThreadingHTTPServer):
    """A thread per client, none of which holds the exit (long polls wait for minutes)."""

    daemon_threads = True
    # A page loads its files over many connections at once (one per request: http.server speaks
    # HTTP/1.0). With http.server's queue of 5 the kernel drops the others, which retry a second later.
    request_queue_size = 128


def run(project: Project, args: Any) -> int:
    """``build.py serve``: the command line's entry."""
    return serve(project, args.port, args.strict)


def serve(project: Project, port: int = 8000, strict: bool = False) -> int:
    """Take the port, build, then serve ``site/`` (every language) on 127.0.0.1:``port`` and rebuild on change."""
    server = DevServer(project, strict)
    try:  # the port first: a busy one is a usage error, before any build
        httpd = _ThreadingServer(("127.0.0.1", port), make_handler(server))
    except OSError as exc:
        _log(f"serve: cannot listen on 127.0.0.1:{port}: {exc.strerror} (choose another with --port)")
        return 2
    server.rebuild(search=True)
    watcher = threading.Thread(target=server.watch, name="watch", daemon=True)
    watcher.start()
    _log(f"serving http://127.0.0.1:{httpd.server_address[1]}/ (every language); "
         f"rebuilding on changes to content/, data/, templates/; Ctrl-C to stop")
    try:
        httpd.serve_forever(poll_interval=0.25)
    except KeyboardInterrupt:
        _log("stopped")
    finally:
        server.stop.set()
        with server.changed:  # release the live-reload requests waiting for a build
            server.changed.notify_all()
        httpd.server_close()
    return 0


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
