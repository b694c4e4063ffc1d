#!/usr/bin/env python3
"""Build the GPU guide site: ``python build.py`` (see ``python build.py --help``)."""

import os
import sys

from pathlib import Path

from gpuguide.commands.cli import main

if __name__ == "__main__":
    code = main(default_root=Path(__file__).resolve().parent, then_exit=True)
    sys.stdout.flush()
    sys.stderr.flush()
    # Leave without freeing every object of the build one by one (a third of a second on ten
    # thousand pages): the files are written and closed, the worker pool is joined, and the
    # system reclaims the memory at once.
    os._exit(code)
