"""The dev server's HTTP answers (``commands.serve``): files of ``site/`` as they are, HTML pages
with the live-reload script and the error overlay (``DevServer.decorate``), the script, its style
and its long poll, and short refusals: a ``Host`` that is not the server's own, an address no
file name can hold.
"""

from __future__ import annotations

import errno
import http.server
import ipaddress
import os
import posixpath
import re
import stat
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from gpuguide.commands.serve_rebuild import LONG_POLL_SECONDS, DevServer, error_overlay
from gpuguide.errors import Problem

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
    script.src = "/__livereload?since=" + encodeURIComponent(generation) + "&page=" +
      encodeURIComponent(window.location.pathname) + "&t=" + Date.now();
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
                query = parse_qs(route.query)
                since = query.get("since", ["0"])[0]
                if "page" in query:  # the page the script polls from is open: rendered first after a change
                    server.page_open(output_of(query["page"][0]))
                generation = server.wait_for_change(since, LONG_POLL_SECONDS if wait else 0)
                return 200, "text/javascript", f"window.__gpuguideLivereload({generation});\n"
            target = Path(self.translate_path(self.path))
            found = _stat(str(target))
            if found is not None and stat.S_ISDIR(found.st_mode) and route.path.endswith("/"):
                target = target / "index.html"
                found = _stat(str(target))
            if found is not None and stat.S_ISREG(found.st_mode) and target.suffix == ".html":
                page = server.preview(os.path.relpath(target, site_dir).replace(os.sep, "/"))
                try:
                    page = page if page is not None else target.read_text(encoding="utf-8")
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


def output_of(address: str) -> str:
    """The output file of the page at the site-absolute ``address`` (``/en/gpu/`` → ``en/gpu/index.html``).

    >>> [output_of(a) for a in ("/", "/en/gpu/", "/en/gpu/%C3%A9t%C3%A9/", "/404.html", "/../en/")]
    ['index.html', 'en/gpu/index.html', 'en/gpu/été/index.html', '404.html', 'en/index.html']
    """
    path = unquote(address)
    relative = posixpath.normpath("/" + path).lstrip("/")
    return posixpath.join(relative, "index.html") if path.endswith("/") or not relative else relative


def _http_version(request_version: str) -> tuple[int, int]:
    """``HTTP/1.1`` as (1, 1); http.server has checked its form."""
    major, _, minor = request_version.partition("/")[2].partition(".")
    return int(major), int(minor or 0)
