#!/usr/bin/env python3
"""Build the GPU guide site: ``python build.py`` (see ``python build.py --help``)."""

import sys

from gpuguide.cli import main

if __name__ == "__main__":
    sys.exit(main())
