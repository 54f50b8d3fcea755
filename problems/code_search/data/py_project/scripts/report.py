#!/usr/bin/env python3
"""Print a stock report for every warehouse."""

import sys

from inventory.storage import JsonStore

HEADER = """
Stock report
============
"""


def main(argv):
    store = JsonStore(argv[1] if len(argv) > 1 else "data")
    print(HEADER)
    for name in sorted(store.root.glob("*.json")):
        warehouse = store.load(name.stem)
        print(warehouse.describe())
        for sku, qty in sorted(warehouse.stock.items()):
            print(f"  {sku:<12} {qty:>5}")
    print("Total warehouses:", len(list(store.root.glob("*.json"))))
    # TODO: add a CSV output mode
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
