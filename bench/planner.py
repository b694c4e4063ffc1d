#!/usr/bin/env python3
"""The serving planner's two targets, measured: each page that carries it stays under 60 KB
gzipped with everything it loads (HTML, stylesheet, scripts, the planner's program), and a change
of input updates the table within 50 ms in Chromium with its CPU slowed down four times.

A script, not a test (nothing fails on a slow machine): ``python bench/planner.py`` builds the site
into a temporary copy of the project (or measures ``--site DIR``), serves it, and for every page
with a planner (every language-model page, every GPU page, the LLM-inference page, both languages):

- **weight**: the page and each stylesheet and script it references, each compressed with gzip at
  level 6 (what web servers use by default), summed;
- **update time**: Chromium (Debian's), CPU throttled 4× through the DevTools protocol
  (``Emulation.setCPUThrottlingRate``); for ``--changes`` random workloads, the time from the form's
  ``change`` event to the end of the layout it causes (the handler runs, then ``offsetHeight`` forces
  style and layout), read with ``performance.now()`` in the page. Paint is not included: it follows
  on the next frame, whose timing is the display's, not the planner's.

Prints a Markdown report; ``--json FILE`` writes every figure.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from urllib.parse import urljoin

from bs4 import BeautifulSoup
from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
CHROMIUM = "/usr/bin/chromium"
WEIGHT_LIMIT = 60 * 1024
UPDATE_LIMIT_MS = 50.0
THROTTLE = 4

# One change of the form, timed in the page: set the fields, fire "change", force style and layout.
TIMED_CHANGE = """async (values) => {
  const form = document.querySelector("[data-planner] form");
  for (const [name, value] of Object.entries(values)) if (form.elements[name]) form.elements[name].value = String(value);
  const section = document.querySelector("[data-planner]");
  const shown = new Promise((resolve) => section.addEventListener("planner-shown", resolve, {once: true}));
  const start = performance.now();
  form.elements.ctx.dispatchEvent(new Event("change", {bubbles: true}));
  await shown;  // at once on a model's page; after a promise on the inference page
  document.body.offsetHeight;
  return performance.now() - start;
}"""


def build_site() -> Path:
    """The real project built into a temporary copy; its site/ folder."""
    work = Path(tempfile.mkdtemp(prefix="planner-bench-"))
    root = work / "project"
    shutil.copytree(REPO, root, ignore=shutil.ignore_patterns(".git", "site", ".build-cache", "node_modules",
                                                              ".venv", "venv", "bench", "__pycache__"))
    subprocess.run([sys.executable, "build.py", "--no-search"], cwd=root, check=True, capture_output=True)
    return root / "site"


def planner_pages(site: Path) -> list[str]:
    """Every page with a planner, as a path under the site."""
    pages = []
    for html in sorted(site.rglob("index.html")):
        if 'id="planner-data"' in html.read_text(encoding="utf-8"):
            pages.append("/" + html.parent.relative_to(site).as_posix() + "/")
    return pages


def page_weight(site: Path, path: str) -> dict[str, int]:
    """The gzipped bytes of the page and of each stylesheet and script it references."""
    html_file = site / path.strip("/") / "index.html"
    html = html_file.read_bytes()
    soup = BeautifulSoup(html, "lxml")
    files = {"html": len(gzip.compress(html, 6))}
    references = [tag["src"] for tag in soup.find_all("script", src=True)]
    references += [tag["href"] for tag in soup.find_all("link", rel="stylesheet")]
    for reference in references:
        target = urljoin(path, reference).split("?")[0]
        files[target] = len(gzip.compress((site / target.lstrip("/")).read_bytes(), 6))
    return files


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def random_changes(count: int, seed: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    return [{"ctx": rng.choice([512, 2048, 8192, 16384, 32768, 131072]), "users": rng.choice([1, 4, 10, 20, 64, 256]),
             "kv": rng.choice(["bf16", "fp8"]), "tps": rng.choice(["", "10", "30"])} for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="a built site/ to measure (default: build one)")
    parser.add_argument("--changes", type=int, default=20, help="timed changes per page")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args()

    site = args.site or build_site()
    pages = planner_pages(site)
    server, base = serve(site)
    results = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        cdp = page.context.new_cdp_session(page)
        for index, path in enumerate(pages):
            weight = page_weight(site, path)
            page.goto(base + path)
            page.wait_for_selector("[data-planner]:not([hidden])")
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": THROTTLE})
            times = [page.evaluate(TIMED_CHANGE, change) for change in random_changes(args.changes, index)]
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
            results.append({"path": path, "gzip_bytes": sum(weight.values()), "files": weight, "update_ms": times,
                            "update_ms_median": statistics.median(times), "update_ms_max": max(times)})
            print(f"{path}: {sum(weight.values()) / 1024:.1f} KB, median {statistics.median(times):.1f} ms, "
                  f"max {max(times):.1f} ms", file=sys.stderr)
        browser.close()
    server.shutdown()

    heaviest = max(results, key=lambda r: r["gzip_bytes"])
    slowest = max(results, key=lambda r: r["update_ms_max"])
    print(f"# Planner: {len(results)} pages, CPU throttled {THROTTLE}×, {args.changes} changes each\n")
    print("| Page | Gzipped, all it loads | Update, median | Update, max |")
    print("|---|---:|---:|---:|")
    for row in sorted(results, key=lambda r: -r["gzip_bytes"])[:10]:
        print(f"| {row['path']} | {row['gzip_bytes'] / 1024:.1f} KB | {row['update_ms_median']:.1f} ms "
              f"| {row['update_ms_max']:.1f} ms |")
    print(f"\nHeaviest: {heaviest['path']} at {heaviest['gzip_bytes'] / 1024:.1f} KB "
          f"(limit {WEIGHT_LIMIT / 1024:.0f} KB): {'met' if heaviest['gzip_bytes'] <= WEIGHT_LIMIT else 'NOT met'}.")
    print(f"Slowest update: {slowest['path']} at {slowest['update_ms_max']:.1f} ms "
          f"(limit {UPDATE_LIMIT_MS:.0f} ms): {'met' if slowest['update_ms_max'] <= UPDATE_LIMIT_MS else 'NOT met'}.")
    every = sorted(t for r in results for t in r["update_ms"])
    print(f"Every change ({len(every)}): median {statistics.median(every):.1f} ms, 95th percentile "
          f"{every[int(len(every) * 0.95)]:.1f} ms, 99th {every[int(len(every) * 0.99)]:.1f} ms, "
          f"{sum(t > UPDATE_LIMIT_MS for t in every)} over {UPDATE_LIMIT_MS:.0f} ms.")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
