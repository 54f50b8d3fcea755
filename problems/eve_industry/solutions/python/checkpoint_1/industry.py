"""Industry planner over an EVE static data export: recipe reports."""

from __future__ import annotations

import argparse
import bz2
import csv
import io
import math
import sys
from pathlib import Path

MANUFACTURING, REACTIONS = 1, 11
BUILD_ACTIVITIES = (MANUFACTURING, REACTIONS)

class Failure(Exception):
    """A request the data cannot answer; the message goes to stderr."""


def _nullable_int(text: str) -> int | None:
    return None if text in ("", "None") else int(text)


class Sde:
    """The tables of one SDE directory, read once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.types = {int(r["typeID"]): r for r in self._rows("invTypes")}
        self.published = {i: r for i, r in self.types.items() if r["published"].strip() == "1"}
        self.by_name = {r["typeName"]: i for i, r in self.published.items()}
        self.groups = {int(r["groupID"]): r for r in self._rows("invGroups")}
        self.categories = {int(r["categoryID"]): r["categoryName"] for r in self._rows("invCategories")}
        self.market = {int(r["marketGroupID"]): r for r in self._rows("invMarketGroups")}
        self.meta_groups = {int(r["metaGroupID"]): r["metaGroupName"] for r in self._rows("invMetaGroups")}
        self.meta_types = {int(r["typeID"]): _nullable_int(r["metaGroupID"]) for r in self._rows("invMetaTypes")}
        self.times = {(int(r["typeID"]), int(r["activityID"])): int(r["time"]) for r in self._rows("industryActivity")}
        self.products = [
            (int(r["typeID"]), int(r["activityID"]), int(r["productTypeID"]), int(r["quantity"]))
            for r in self._rows("industryActivityProducts")
        ]
        self.materials: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for r in self._rows("industryActivityMaterials"):
            key = (int(r["typeID"]), int(r["activityID"]))
            self.materials.setdefault(key, []).append((int(r["materialTypeID"]), int(r["quantity"])))

    def _rows(self, table: str) -> list[dict[str, str]]:
        path = self.root / f"{table}.csv.bz2"
        try:
            text = bz2.decompress(path.read_bytes()).decode("utf-8")
        except OSError as exc:
            raise Failure(f"cannot read {path}: {exc}") from exc
        return list(csv.DictReader(io.StringIO(text, newline="")))

    def ship_volumes(self) -> dict[str, float]:
        """Packaged volume by ship group name, from ship_volumes.yaml (plain `name: number` lines)."""
        volumes = {}
        path = self.root / "ship_volumes.yaml"
        for line in path.read_text(encoding="utf-8").splitlines():
            if ":" in line and not line.lstrip().startswith("#"):
                name, _, value = line.rpartition(":")
                volumes[name.strip()] = float(value)
        return volumes

    def name(self, type_id: int) -> str:
        """The typeName of a type."""
        return self.types[type_id]["typeName"]

    def product_of(self, blueprint_id: int, activities) -> tuple[int, int, int] | None:
        """(activity, product, quantity) of the first row of one of `activities` for a blueprint."""
        for activity in activities:
            for bp, act, product, qty in self.products:
                if bp == blueprint_id and act == activity:
                    return act, product, qty
        return None

    def makers_of(self, product_id: int, activities) -> list[tuple[int, int, int]]:
        """(blueprint, activity, quantity) rows producing a type by one of `activities`, in file order."""
        return [(bp, act, qty) for bp, act, prod, qty in self.products if prod == product_id and act in activities]

    def buildable(self, type_id: int) -> bool:
        """True when some Manufacturing or Reactions job produces the type."""
        return bool(self.makers_of(type_id, BUILD_ACTIVITIES))


def tech_level(sde: Sde, type_id: int) -> str:
    """Tech I, II or III from the type's meta group name."""
    name = sde.meta_groups.get(sde.meta_types.get(type_id), "")
    if "Tech III" in name:
        return "Tech III"
    if "Tech II" in name:
        return "Tech II"
    return "Tech I"


def market_path(sde: Sde, group_id: int | None) -> str:
    """Market group names from the root to the type's own group, or None."""
    names: list[str] = []
    while group_id in sde.market:
        row = sde.market[group_id]
        names.append(row["marketGroupName"])
        group_id = _nullable_int(row["parentGroupID"])
    return " > ".join(reversed(names)) if names else "None"


def header_lines(sde: Sde, type_id: int) -> list[str]:
    """ITEM, Group, Market Group and Tech Level lines of a product."""
    row = sde.types[type_id]
    group = sde.groups[int(row["groupID"])]
    category = sde.categories.get(int(group["categoryID"]), "")
    return [
        f"ITEM: {row['typeName']} ({type_id})",
        f"Group: {category} > {group['groupName']}",
        f"Market Group: {market_path(sde, _nullable_int(row['marketGroupID']))}",
        f"Tech Level: {tech_level(sde, type_id)}",
    ]


def lookup(sde: Sde, name: str) -> int:
    """A published type by its exact name."""
    if name not in sde.by_name:
        raise Failure(f"item not found: {name}")
    return sde.by_name[name]


def resolve_recipe(sde: Sde, name: str) -> tuple[int, int, int, int]:
    """(blueprint, activity, product, output quantity) for a product or blueprint name."""
    type_id = lookup(sde, name)
    made = sde.product_of(type_id, BUILD_ACTIVITIES)
    if made is not None:
        activity, product, qty = made
        return type_id, activity, product, qty
    makers = sde.makers_of(type_id, (MANUFACTURING,)) or sde.makers_of(type_id, (REACTIONS,))
    if not makers:
        raise Failure(f"no recipe produces {name}")
    blueprint, activity, qty = makers[0]
    return blueprint, activity, type_id, qty


def published_product(sde: Sde, name: str) -> tuple[int, int, int, int]:
    """resolve_recipe, where a blueprint's product must be published too."""
    blueprint, activity, product, qty = resolve_recipe(sde, name)
    if product not in sde.published:
        raise Failure(f"{name} makes an unpublished type")
    return blueprint, activity, product, qty


def recipe_report(sde: Sde, name: str) -> list[str]:
    """The recipe block's lines."""
    blueprint, activity, product, qty = published_product(sde, name)
    row = sde.types[product]
    volume = float(row["volume"])
    group_name = sde.groups[int(row["groupID"])]["groupName"]
    volume = sde.ship_volumes().get(group_name, volume)
    lines = header_lines(sde, product) + [f"Volume: {volume}", "", "Recipe:"]
    lines += [
        f"Activity: {'Reactions' if activity == REACTIONS else 'Manufacturing'}",
        f"Output Quantity: {qty}",
        f"Run Time: {math.ceil(sde.times[blueprint, activity] / 60)}",
        "| Item | Quantity | Buildable |",
        "|:---|---:|:---:|",
    ]
    rows = sde.materials.get((blueprint, activity), [])
    materials = [(sde.name(m), q, sde.buildable(m)) for m, q in rows if m in sde.published]
    for mat_name, quantity, buildable in sorted(materials, key=lambda m: m[0].casefold()):
        lines.append(f"| {mat_name} | {quantity} | {'Yes' if buildable else 'No'} |")
    return lines


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The command line: recipe NAME --sde DIR."""
    parser = argparse.ArgumentParser(prog="industry")
    parser.add_argument("command", choices=["recipe"])
    parser.add_argument("name")
    parser.add_argument("--sde", required=True, type=Path)
    return parser.parse_args(argv)


def main(argv: list[str]) -> None:
    """Run one command; print its block, or exit with an error on stderr."""
    args = parse_args(argv)
    try:
        sde = Sde(args.sde)
        lines = recipe_report(sde, args.name)
    except Failure as exc:
        sys.exit(f"ERROR: {exc}")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:])
