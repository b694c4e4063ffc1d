"""The dev server over real HTTP: live rebuilds, the last good site kept on errors, the error overlay."""

from __future__ import annotations

import concurrent.futures
import contextlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from sites import ROOT, copy_project

pytestmark = pytest.mark.slow

EN_PAGE = "content/en/llm-training.md"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.read().decode("utf-8")


def wait_for(condition, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = condition()
            if value:
                return value
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.1)


@contextlib.contextmanager
def serving(root: Path, log_path: Path, first_page: str):
    """``build.py serve`` on ``root``, its output in ``log_path``, once ``first_page`` is served;
    yields the base address; always terminated."""
    port = free_port()
    with log_path.open("w") as log:
        process = subprocess.Popen([sys.executable, str(ROOT / "build.py"), "serve", "--root", str(root),
                                    "--port", str(port)], stdout=log, stderr=subprocess.STDOUT)
        try:
            base = f"http://127.0.0.1:{port}"
            wait_for(lambda: "<html" in fetch(f"{base}{first_page}"), 90, "the first build is served")
            yield base
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@pytest.fixture
def server(tmp_path: Path):
    """``build.py serve`` on a copy of the project."""
    root = copy_project(tmp_path / "project")
    with serving(root, tmp_path / "serve.log", "/en/llm-training/") as base:
        yield root, base


def test_dev_server_rebuilds_keeps_the_last_good_site_and_shows_errors(server):
    root, base = server
    page_url = f"{base}/en/llm-training/"
    first = fetch(page_url)
    assert '<script src="/__livereload.js"' in first
    assert "__gpuguideLivereload" in fetch(f"{base}/__livereload.js")
    assert fetch(f"{base}/__livereload?since=0").startswith("window.__gpuguideLivereload(")
    assert "<html" in fetch(f"{base}/fr/entrainement-llm/")  # every language at once
    assert not list((root / "site").rglob("__livereload*"))
    assert "__livereload" not in (root / "site/en/llm-training/index.html").read_text(encoding="utf-8")

    # An edit shows up without restarting (an edit of the text re-renders that page alone).
    page = root / EN_PAGE
    page.write_text(page.read_text(encoding="utf-8").replace(
        "Training a model from scratch", "Training huge language models from scratch"), encoding="utf-8")
    wait_for(lambda: "Training huge language models from scratch" in fetch(page_url), 5, "the edit is served")

    # A broken data file: the last good page is still served, with the error in an overlay.
    gpus = root / "data/gpus.yaml"
    good = gpus.read_text(encoding="utf-8")
    broken = good.replace("memory_gb: 80\n", 'memory_gb: "80 Go"\n', 1)
    line = broken[: broken.index('memory_gb: "80 Go"')].count("\n") + 1
    gpus.write_text(broken, encoding="utf-8")
    served = wait_for(lambda: (html := fetch(page_url)) and "gpuguide-build-error" in html and html, 10,
                      "the error overlay")
    assert "Training huge language models from scratch" in served
    assert f"data/gpus.yaml:{line}:" in served and "`memory_gb`: input should be a valid number" in served
    assert "&#x27;80 Go&#x27;" in served  # escaped

    # Fixed: the overlay goes away.
    gpus.write_text(good, encoding="utf-8")
    wait_for(lambda: "gpuguide-build-error" not in fetch(page_url), 10, "the recovery")


def test_the_open_page_reloads_itself_in_chromium(server, page):
    """Live reload under the site's Content-Security-Policy, in a real browser."""
    root, base = server
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{base}/en/llm-training/")  # the poll starts after "load", so loading finishes
    page.evaluate("window.__beforeReload = true")
    source = root / EN_PAGE
    source.write_text(source.read_text(encoding="utf-8").replace(
        "Training a model from scratch", "Training a model from nothing"), encoding="utf-8")
    page.wait_for_function("() => document.body.innerText.includes('from nothing')", timeout=15_000)
    assert page.evaluate("window.__beforeReload === undefined")  # a real reload, not a patch
    assert errors == []


def test_an_open_page_shows_a_price_edit_before_the_build_ends_and_reloads_once(server, page):
    """The server renders the pages readers have open first and serves them from memory until the
    build ends; the page then published is the one shown, so it does not reload a second time."""
    root, base = server
    loads: list[str] = []
    page.on("framenavigated", lambda frame: loads.append(frame.url) if frame == page.main_frame else None)
    with page.expect_request(lambda request: "/__livereload?" in request.url):  # sent once the page has loaded
        page.goto(f"{base}/en/gpus/h100-sxm/")
    assert "$7.77" not in page.inner_text("body")
    time.sleep(0.3)  # the poll reaches the server: the page is open
    loads.clear()
    log = root.parent / "serve.log"
    rebuilt = log.read_text().count("rebuilt ")
    prices = root / "data/prices.yaml"
    prices.write_text(prices.read_text(encoding="utf-8").replace("h100-sxm: 2.88", "h100-sxm: 7.77"), encoding="utf-8")
    page.wait_for_function("() => document.body.innerText.includes('$7.77')", timeout=30_000)
    shown_while_building = log.read_text().count("rebuilt ") == rebuilt
    wait_for(lambda: log.read_text().count("rebuilt ") > rebuilt, 60, "the end of the rebuild")
    published = (root / "site/en/gpus/h100-sxm/index.html").read_text(encoding="utf-8")
    assert "$7.77" in published
    time.sleep(1.5)  # a second reload would come now
    assert loads == [f"{base}/en/gpus/h100-sxm/"]
    assert shown_while_building  # on screen before the server said "rebuilt"
    assert "$7.77" in page.inner_text("body")


def test_an_open_page_shown_first_from_a_build_that_then_fails_goes_back_to_the_last_good_site(server):
    """What the server shows first lives in its memory only: when the build fails after (here at the
    link check), ``site/`` is as it was and the page is served from it again, with the errors."""
    root, base = server
    page_url = f"{base}/en/llm-training/"
    served = fetch(page_url)
    published = (root / "site/en/llm-training/index.html").read_bytes()
    generation = fetch(f"{base}/__livereload?since=-1&page=/en/llm-training/")  # the page is open
    assert generation.startswith("window.__gpuguideLivereload(")
    source = root / EN_PAGE
    text = source.read_text(encoding="utf-8")
    title = next(line for line in text.splitlines() if line.startswith("title: "))
    source.write_text(text.replace(title, 'title: "LLM training, retitled"', 1)
                      + "\nSee [the missing part](#no-such-anchor).\n", encoding="utf-8")
    wait_for(lambda: "LLM training, retitled" in fetch(page_url), 30, "the open page, rendered first")
    failed = wait_for(lambda: (html := fetch(page_url)) and "gpuguide-build-error" in html and html, 60,
                      "the failed build's overlay")
    assert "link to a missing anchor: `#no-such-anchor`" in failed
    assert "LLM training, retitled" not in failed  # the last good page again
    assert (root / "site/en/llm-training/index.html").read_bytes() == published
    assert served.split("<script src=\"/__livereload.js\"")[0] == failed.split("<script src=\"/__livereload.js\"")[0]


def test_a_busy_port_is_a_usage_error_before_any_build(tmp_path: Path):
    from sites import tiny_project

    root = tiny_project(tmp_path / "tiny")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run([sys.executable, str(ROOT / "build.py"), "serve", "--root", str(root), "--port", str(port)],
                                capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "cannot listen on 127.0.0.1" in result.stderr and "Traceback" not in result.stderr
    assert not (root / "site").exists()  # nothing was built


@pytest.fixture
def tiny_server(tmp_path: Path):
    """``build.py serve`` on the tiny site; its log for checking that nothing printed a traceback."""
    from sites import tiny_project

    root = tiny_project(tmp_path / "tiny")
    log_path = tmp_path / "serve.log"
    with serving(root, log_path, "/en/training/") as base:
        yield root, base, log_path


def test_what_a_client_does_never_prints_a_traceback(tiny_server):
    root, base, log = tiny_server
    with pytest.raises(urllib.error.HTTPError) as bad:
        urllib.request.urlopen(f"{base}/fr/%00", timeout=10)
    assert bad.value.code == 400
    for _ in range(5):  # a browser that goes away mid-request
        with socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1]))) as client:
            client.sendall(f"GET /fr/ HTTP/1.1\r\nHost: {base.removeprefix('http://')}\r\n\r\n".encode())
    assert "<html" in fetch(f"{base}/fr/")
    time.sleep(0.5)
    assert "Traceback" not in log.read_text(encoding="utf-8")


def test_the_served_site_stays_deployable_and_restored_folders_are_watched(tiny_server):
    root, base, log = tiny_server
    assert (root / "site" / "pagefind" / "pagefind.js").is_file()  # the first build indexes the search
    # templates/ deleted and restored (a checkout): template edits are still seen.
    shutil.move(root / "templates", root.parent / "templates-aside")
    time.sleep(1)
    shutil.move(root.parent / "templates-aside", root / "templates")
    time.sleep(1)
    guide = root / "templates" / "guide.html"
    guide.write_text(guide.read_text(encoding="utf-8").replace("{{ main_html }}", "{{ main_html }}<p>Restored.</p>"),
                     encoding="utf-8")
    wait_for(lambda: "Restored." in fetch(f"{base}/en/guides/first-guide/"), 15, "the template edit is served")
    assert (root / "site" / "pagefind" / "pagefind.js").is_file()  # a rebuild keeps the index
    assert "Traceback" not in log.read_text(encoding="utf-8")


# --- Only its own site, to anyone, in any form: raw requests, so the test writes every byte. ---

def exchange(base: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``request`` as it is and read the answer to its end (the server closes the connection
    after each answer): the status, the headers but ``Date``, and every byte after them."""
    with socket.create_connection(("127.0.0.1", port_of(base)), timeout=10) as client:
        client.sendall(request)
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
    assert answer, f"no answer to {request[:60]!r}"
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *fields = head.decode("latin-1").split("\r\n")
    headers = dict(field.split(": ", 1) for field in fields)
    headers.pop("Date", None)
    return int(status_line.split(" ")[1]), headers, body


def port_of(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


def request(method: str, target: str, host_fields: str) -> bytes:
    """An HTTP/1.1 request; ``host_fields`` are its header lines (``Host: …\r\n``), as they are."""
    return f"{method} {target} HTTP/1.1\r\n{host_fields}Connection: close\r\n\r\n".encode("latin-1")


def own(base: str) -> str:
    return f"Host: 127.0.0.1:{port_of(base)}\r\n"


def assert_head_is_get_without_body(base: str, targets: list[str]) -> None:
    for target in targets:
        get_status, get_headers, get_body = exchange(base, request("GET", target, own(base)))
        head_status, head_headers, head_body = exchange(base, request("HEAD", target, own(base)))
        assert (head_status, head_headers) == (get_status, get_headers), target
        assert head_body == b"", target
        assert int(get_headers["Content-Length"]) == len(get_body), target


def every_address(site: Path) -> list[str]:
    """Every file and folder of the built site as the browser asks for it, plus the dev server's own
    addresses, a missing page and a folder without its slash (a redirect)."""
    files = [f"/{path.relative_to(site).as_posix()}" for path in sorted(site.rglob("*")) if path.is_file()]
    folders = ["/"] + [f"/{path.relative_to(site).as_posix()}/" for path in sorted(site.rglob("*")) if path.is_dir()]
    return [*files, *folders, "/__livereload.js", "/__livereload.css", "/__livereload?since=-1",
            "/en/no-such-page/", "/en/training"]


def test_head_answers_the_headers_of_get_for_every_address(tiny_server):
    """The pages are decorated (live-reload script, error overlay), so a HEAD that measured the file
    on disk would announce another length: HEAD and GET agree on every address, in both states."""
    root, base, log = tiny_server
    addresses = every_address(root / "site")
    assert len(addresses) > 150 and "/en/gpus/big/" in addresses and "/pagefind/pagefind.js" in addresses
    assert_head_is_get_without_body(base, addresses)

    gpus = root / "data/gpus.yaml"
    gpus.write_text(gpus.read_text(encoding="utf-8").replace("memory_gb: 80\n", 'memory_gb: "80 Go"\n', 1),
                    encoding="utf-8")
    wait_for(lambda: "gpuguide-build-error" in fetch(f"{base}/en/no-such-page/"), 15, "the error overlay")
    assert_head_is_get_without_body(base, addresses)
    assert "Traceback" not in log.read_text(encoding="utf-8")


def test_a_request_for_another_host_is_refused(tiny_server):
    """DNS rebinding: a page of evil.example, its name made to resolve to 127.0.0.1, would read the
    served site. Only the server's own names with its port are answered; a name that merely looks
    like one (``127.0.0.1.evil.example``, ``localhost.``, ``foo.localhost``, all resolved by DNS for
    some client) is another name, and so is the right name on another port or without the port (a
    browser always sends a port other than 80)."""
    root, base, log = tiny_server
    port = port_of(base)
    hostile = {
        "another name": "Host: evil.example\r\n",
        "another name, our port": f"Host: evil.example:{port}\r\n",
        "our address as a subdomain": f"Host: 127.0.0.1.evil.example:{port}\r\n",
        "localhost as a subdomain": f"Host: localhost.evil.example:{port}\r\n",
        "localhost with the root dot": f"Host: localhost.:{port}\r\n",
        "a name under localhost": f"Host: foo.localhost:{port}\r\n",
        "another port": f"Host: localhost:{port + 1}\r\n",
        "no port": "Host: 127.0.0.1\r\n",
        "another loopback address": f"Host: 127.0.0.2:{port}\r\n",
        "empty": "Host: \r\n",
        "missing": "",
        "two, ours first": f"Host: 127.0.0.1:{port}\r\nHost: evil.example:{port}\r\n",
        "two, both ours": f"Host: 127.0.0.1:{port}\r\nHost: 127.0.0.1:{port}\r\n",
        "user information": f"Host: user@127.0.0.1:{port}\r\n",
        "a name after the port": f"Host: 127.0.0.1:{port}.evil.example\r\n",
        "a name after the brackets": f"Host: [::1]evil.example:{port}\r\n",
        "a space inside": f"Host: 127.0.0.1:{port} evil.example\r\n",
        "a folded line": f"Host: 127.0.0.1:{port}\r\n evil.example\r\n",
    }
    for what, fields in hostile.items():
        for method in ("GET", "HEAD"):
            for target in ("/en/training/", "/__livereload.js", "/en/no-such-page/"):
                status, headers, body = exchange(base, request(method, target, fields))
                assert status in (400, 421), (what, method, target, status)
                assert headers["Content-Type"] == "text/plain; charset=utf-8", what
                if method == "GET":
                    assert b"Bad request" in body or b"Misdirected request" in body, what
                    assert len(body) < 200 and b"<" not in body, what
    # The absolute form names a host too: a browser never sends it to a server, only to a proxy.
    status, _, _ = exchange(base, request("GET", f"http://evil.example:{port}/en/training/", own(base)))
    assert status == 400

    welcome = [f"Host: 127.0.0.1:{port}\r\n", f"Host: localhost:{port}\r\n", f"Host: LocalHost:{port}\r\n",
               f"Host: [::1]:{port}\r\n", f"Host: [0:0:0:0:0:0:0:1]:{port}\r\n", f"Host:  localhost:{port} \r\n"]
    for fields in welcome:
        status, _, body = exchange(base, request("GET", "/en/training/", fields))
        assert status == 200 and b"<html" in body, fields
    status, _, body = exchange(base, b"GET /en/training/ HTTP/1.0\r\n\r\n")  # HTTP/1.0 did not require Host
    assert status == 200 and b"<html" in body
    time.sleep(0.5)
    assert "Traceback" not in log.read_text(encoding="utf-8")


def test_a_malformed_address_gets_a_4xx_and_no_traceback(tiny_server):
    root, base, log = tiny_server
    malformed = {
        "/%00": 400,
        "/a%00b": 400,
        "/en/%00/": 400,
        "/a\0b": 400,
        "/%ed%a0%80": 400,  # a lone surrogate: no file name holds it
        "/" + "a/" * 3000: 414,  # longer than a path may be
        "/" + "a" * 300: 414,  # longer than a file name may be
        "/en/" + "a" * 300 + "/": 414,
        "/" + "a/" * 40_000: 414,  # longer than http.server reads
        "/%": 404,
        "/%zz": 404,
        "/%ff": 404,  # not UTF-8, but a file name could be that
    }
    for target, expected in malformed.items():
        for method in ("GET", "HEAD"):
            status, headers, body = exchange(base, request(method, target, own(base)))
            assert status == expected, (method, target[:40], status)
            if method == "HEAD" and len(target) < 65_536:  # a line too long to read is not known as HEAD
                assert body == b"", target[:40]
    assert "<html" in fetch(f"{base}/en/training/")  # still serving
    time.sleep(0.5)
    assert "Traceback" not in log.read_text(encoding="utf-8")


def test_no_address_reaches_outside_the_site_folder(tiny_server):
    root, base, log = tiny_server
    (root / "secret.txt").write_text("the project's own file\n", encoding="utf-8")
    traversals = ["/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt", "/..%2fsecret.txt",
                  "/en/../../secret.txt", "/en/%2e%2e/%2e%2e/secret.txt", "//../secret.txt", "/..\\secret.txt",
                  "/..%5csecret.txt", "/%252e%252e/secret.txt", "/./../secret.txt", "/en/.%2e/.%2e/secret.txt",
                  "/../content/en/training.md", f"/{root}/secret.txt", f"/%2F{str(root)[1:]}/secret.txt"]
    for target in traversals:
        for method in ("GET", "HEAD"):
            status, _, body = exchange(base, request(method, target, own(base)))
            assert 400 <= status < 500 and b"own file" not in body, (method, target, status)
    assert "Traceback" not in log.read_text(encoding="utf-8")


def test_clients_waiting_for_a_rebuild_do_not_hold_the_others(tiny_server):
    """32 pages open (each one long-polls) and 32 more clients at once: every one is answered at
    once, not after the long polls' 20 s, nor after the second a dropped connection waits to retry."""
    root, base, log = tiny_server
    generation = fetch(f"{base}/__livereload?since=-1").removeprefix("window.__gpuguideLivereload(").split(")")[0]
    started = time.monotonic()
    waiting = [socket.create_connection(("127.0.0.1", port_of(base)), timeout=10) for _ in range(32)]
    try:
        for client in waiting:
            client.sendall(request("GET", f"/__livereload?since={generation}", own(base)))
        with concurrent.futures.ThreadPoolExecutor(32) as clients:
            answers = list(clients.map(lambda _: exchange(base, request("GET", "/en/training/", own(base))), range(32)))
        assert time.monotonic() - started < 3  # a queue of 5 connections took 5 to 10 s here
        assert {status for status, _, _ in answers} == {200}
        assert len({body for _, _, body in answers}) == 1
    finally:
        for client in waiting:
            client.close()
    assert "Traceback" not in log.read_text(encoding="utf-8")
