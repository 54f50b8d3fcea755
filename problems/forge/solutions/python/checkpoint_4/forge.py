"""forge: a command-line catalogue of manufacturing blueprints kept in a data directory."""

import sys

from forgelib.cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
