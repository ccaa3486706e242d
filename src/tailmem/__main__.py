"""Entry point: `python -m tailmem <stage> key=value ...` (Hydra overrides are the only CLI)."""

import sys

from tailmem.cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
