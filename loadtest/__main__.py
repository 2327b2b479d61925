"""``python -m loadtest …``: the same as ``tablehub loadtest …``."""

from __future__ import annotations

import sys

from tablehub.loadtest.cli import main

if __name__ == "__main__":
    sys.exit(main())
