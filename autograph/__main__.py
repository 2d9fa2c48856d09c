"""``python -m autograph``: see :mod:`autograph.cli`."""
import sys

from autograph.cli import main

if __name__ == "__main__":
    sys.exit(main())
