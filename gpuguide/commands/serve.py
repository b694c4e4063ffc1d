"""``python build.py serve``: serve ``site/`` on 127.0.0.1 and rebuild on every edit.

- The port is taken first (a busy port is a usage error, before any build). Then every change
  under ``content/``, ``data/`` or ``templates/`` runs the normal build (``pipeline.run``), so
  ``site/`` only ever holds a complete, good site: a failed rebuild leaves the last good one. The
  first build indexes the search; later rebuilds keep that index, so ``site/`` stays deployable.
  The whole project folder is watched, so a folder deleted and restored is still watched
  (``commands.serve_rebuild``).
- Live reload: HTML responses get ``<script src="/__livereload.js">`` (never written into ``site/``).
  The site's Content-Security-Policy allows scripts from the site itself only and no ``fetch``, so
  the script long-polls by loading ``/__livereload?since=<generation>`` as a script: the server
  answers when the build generation changes (or after a while), and the page reloads on a change.
- While the last rebuild failed, every HTML response shows its problems (file, line, message,
  escaped) in an overlay, until the input is fixed.
- It answers its own site only: a request whose ``Host`` is not the server's own address
  (``check_host``: against DNS rebinding) or whose path no file name can hold gets a short plain
  4xx. HEAD gets exactly the headers of GET (the decorated page's length), without the body
  (``commands.serve_http``).
"""

from __future__ import annotations

import http.server
import threading
from typing import Any

from gpuguide.commands.serve_http import make_handler
from gpuguide.commands.serve_rebuild import DevServer, log
from gpuguide.project import Project


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
        log(f"serve: cannot listen on 127.0.0.1:{port}: {exc.strerror} (choose another with --port)")
        return 2
    # The watch first: setting it up walks the whole project (a second at 10,000 pages), and an
    # edit saved before it is set up would never be seen. It is ready by the end of the first build,
    # and an edit saved during that build is rebuilt after it (``DevServer.rebuild``: one at a time).
    watcher = threading.Thread(target=server.watch, name="watch", daemon=True)
    watcher.start()
    server.rebuild(search=True)
    log(f"serving http://127.0.0.1:{httpd.server_address[1]}/ (every language); "
        f"rebuilding on changes to content/, data/, templates/; Ctrl-C to stop")
    try:
        httpd.serve_forever(poll_interval=0.25)
    except KeyboardInterrupt:
        log("stopped")
    finally:
        server.stop.set()
        with server.changed:  # release the live-reload requests waiting for a build
            server.changed.notify_all()
        httpd.server_close()
        server.builder.close()
    return 0
