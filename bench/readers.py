#!/usr/bin/env python3
"""What a reader downloads and what Lighthouse says, page by page: the design's two budgets.

- **weight**: for every page of the site, both languages, the stylesheets and scripts it references,
  each compressed with gzip at level 6 (what web servers use by default), summed; the budget is
  20 KB per page. The planner's program (``#planner-data``, inside the HTML) is the page's content,
  not the design's, and is measured by ``bench/planner.py``. Web fonts: none may be requested
  (the report counts ``@font-face`` rules and font links).
- **Lighthouse** (optional, ``--lighthouse PATH`` to its command line, e.g. from
  ``npm install lighthouse@12``): the four category scores of the first page of each type in both
  languages, on a phone (Lighthouse's default emulation) and on a desktop, served with gzip as a
  real host would (Python's own server does not compress).

A script, not a test: ``python bench/readers.py`` builds the site into a temporary copy of the
project (or measures ``--site DIR``) and prints a Markdown report; ``--json FILE`` writes every figure.
"""

from __future__ import annotations

import argparse
import gzip
import http.server
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from urllib.parse import urljoin

from bs4 import BeautifulSoup

sys.path.insert(0, str(Path(__file__).resolve().parent))
from planner import CHROMIUM, build_site  # noqa: E402  (a sibling script)

BUDGET = 20 * 1024
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")


def page_type(path: str) -> str:
    """A page's type from its address (the same one in both languages)."""
    parts = path.strip("/").split("/")
    if len(parts) < 2:
        return "home" if parts[0] in ("fr", "en") else "root"
    section = parts[1]
    names = {"gpu": "gpus", "comparer": "compare", "modeles": "models", "recherche": "search",
             "methodologie": "methodology"}
    section = names.get(section, section)
    if section in ("gpus", "compare", "models", "guides"):
        return section if len(parts) == 2 else section.rstrip("s") + "-page"
    return "use-case" if section not in ("search", "methodology", "404") else section


def design_weight(site: Path, path: str, cache: dict[str, int]) -> dict[str, int]:
    """The gzipped bytes of each stylesheet and script the page references."""
    soup = BeautifulSoup((site / path.strip("/") / "index.html").read_bytes(), "lxml")
    references = [tag["src"] for tag in soup.find_all("script", src=True)]
    references += [tag["href"] for tag in soup.find_all("link", rel="stylesheet")]
    files = {}
    for reference in references:
        target = urljoin(path, reference).split("?")[0]
        if target.startswith("/pagefind/"):
            continue  # the search library, loaded by the search box when it is used, not by the page
        if target not in cache:
            cache[target] = len(gzip.compress((site / target.lstrip("/")).read_bytes(), 6))
        files[target] = cache[target]
    return files


def indexable(site: Path, path: str) -> bool:
    soup = BeautifulSoup((site / path.strip("/") / "index.html").read_bytes(), "lxml")
    robots = soup.find("meta", attrs={"name": "robots"})
    return robots is None or "noindex" not in robots.get("content", "")


def web_fonts(site: Path) -> int:
    """``@font-face`` rules in the stylesheets and font files under the site."""
    rules = sum(len(re.findall(r"@font-face", css.read_text(encoding="utf-8"))) for css in site.rglob("*.css")
                if "pagefind" not in css.parts)
    files = sum(1 for file in site.rglob("*") if file.suffix in (".woff", ".woff2", ".ttf", ".otf"))
    return rules + files


def serve_gzipped(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """The site served as a host would: gzip for text, when asked for."""
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, directory=str(site), **kwargs)  # type: ignore[arg-type]

        def log_message(self, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            path = Path(self.translate_path(self.path))
            if path.is_dir():
                path = path / "index.html"
            text = path.suffix in (".html", ".css", ".js", ".json", ".svg", ".xml", ".txt")
            if not (text and path.is_file() and "gzip" in self.headers.get("Accept-Encoding", "")):
                return super().do_GET()
            body = gzip.compress(path.read_bytes(), 6)
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(str(path)))
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "max-age=3600")
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def lighthouse(command: str, url: str, desktop: bool) -> dict[str, float]:
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        arguments = [command, url, "--output=json", f"--output-path={report.name}", "--quiet",
                     "--chrome-flags=--headless=new --no-sandbox --disable-gpu"]
        if desktop:
            arguments.append("--preset=desktop")
        subprocess.run(arguments, check=True, env={**os.environ, "CHROME_PATH": CHROMIUM}, timeout=300)
        categories = json.loads(Path(report.name).read_text(encoding="utf-8"))["categories"]
    return {name: round(categories[name]["score"] * 100) for name in CATEGORIES}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, help="a built site/ to measure (default: build one)")
    parser.add_argument("--lighthouse", help="Lighthouse's command line (skipped without it)")
    parser.add_argument("--json", type=Path, help="write every figure to this file")
    args = parser.parse_args()

    site = args.site or build_site()
    pages = sorted("/" + html.parent.relative_to(site).as_posix().removeprefix(".") + "/"
                   for html in site.rglob("index.html") if "pagefind" not in html.parts)
    pages = [page.replace("//", "/") for page in pages]
    cache: dict[str, int] = {}
    weights = {path: sum(design_weight(site, path, cache).values()) for path in pages}
    by_type: dict[tuple[str, str], list[str]] = {}
    for path in pages:
        language = path.split("/")[1] if path.count("/") > 1 else "-"
        by_type.setdefault((page_type(path), language), []).append(path)

    lines = ["# Page weights and Lighthouse", "",
             f"{len(pages)} pages; budget {BUDGET // 1024} KB of CSS + JS per page, gzipped.", "",
             "| page type | language | pages | heaviest CSS + JS (KB gz) | its page |", "|---|---|---:|---:|---|"]
    for (kind, language), paths in sorted(by_type.items()):
        heaviest = max(paths, key=weights.__getitem__)
        lines.append(f"| {kind} | {language} | {len(paths)} | {weights[heaviest] / 1024:.1f} | `{heaviest}` |")
    over = [path for path in pages if weights[path] > BUDGET]
    lines += ["", "Files: " + ", ".join(f"`{name}` {size / 1024:.1f} KB" for name, size in sorted(cache.items())),
              f"Pages over budget: {len(over)}. Web fonts: {web_fonts(site)}."]

    scores: dict[str, dict[str, dict[str, float]]] = {}
    if args.lighthouse:
        server, base = serve_gzipped(site)
        lines += ["", "| page | phone: perf. / a11y / best pr. / SEO | desktop |", "|---|---|---|"]
        for (kind, language), paths in sorted(by_type.items()):
            # The first page search engines may index (a pair's other order is a redirect page);
            # the 404 pages are noindex by design: their SEO score says so.
            path = next((path for path in paths if indexable(site, path)), paths[0])
            scores[path] = {form: lighthouse(args.lighthouse, base + path, form == "desktop")
                            for form in ("phone", "desktop")}
            cells = [" / ".join(str(scores[path][form][name]) for name in CATEGORIES) for form in ("phone", "desktop")]
            lines.append(f"| `{path}` | {cells[0]} | {cells[1]} |")
            print(f"{path}: {cells}", file=sys.stderr)
        server.shutdown()
        lowest = min(score for forms in scores.values() for form in forms.values() for score in form.values())
        lines += ["", f"Lowest score: {lowest}."]
    print("\n".join(lines))
    if args.json:
        args.json.write_text(json.dumps({"weights": weights, "files": cache, "lighthouse": scores}, indent=1) + "\n",
                             encoding="utf-8")


if __name__ == "__main__":
    main()
