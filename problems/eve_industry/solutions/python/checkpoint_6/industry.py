"""Industry planner over an EVE static data export: recipe and invention reports, build plans as CSV files
(the whole build tree with --build-all, long jobs split, stock used first and stock targets met)."""

from __future__ import annotations

import argparse
import bz2
import csv
import io
import math
import re
import sys
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

MANUFACTURING, REVERSE_ENGINEERING, INVENTION, REACTIONS = 1, 7, 8, 11
SHIP_CATEGORY = 6
BUILD_ACTIVITIES = (MANUFACTURING, REACTIONS)

# name, probability multiplier (percent), runs, ME, TE; None first, then by name
DECRYPTORS = [
    ("None", 0, 0, 0, 0),
    ("Accelerant Decryptor", 20, 1, 2, 10),
    ("Attainment Decryptor", 80, 4, -1, 4),
    ("Augmentation Decryptor", -40, 9, -2, 2),
    ("Optimized Attainment Decryptor", 90, 2, 1, -2),
    ("Optimized Augmentation Decryptor", -10, 7, 2, 0),
    ("Parity Decryptor", 50, 3, 1, -2),
    ("Process Decryptor", 10, 0, 3, 6),
    ("Symmetry Decryptor", 0, 2, 1, 8),
]
# relic quality -> (base chance, base runs), in output order
RELICS = {
    "Intact": (Fraction(26, 100), 20),
    "Malfunctioning": (Fraction(21, 100), 10),
    "Wrecked": (Fraction(14, 100), 3),
}


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
        self.skills: dict[tuple[int, int], list[int]] = {}
        for r in self._rows("industryActivitySkills"):
            self.skills.setdefault((int(r["typeID"]), int(r["activityID"])), []).append(int(r["skillID"]))
        self.probabilities = {
            (int(r["typeID"]), int(r["activityID"]), int(r["productTypeID"])): Fraction(r["probability"])
            for r in self._rows("industryActivityProbabilities")
        }

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
        """(blueprint, activity, quantity) rows of published blueprints producing a type by one of `activities`, in
        file order."""
        return [
            (bp, act, qty) for bp, act, prod, qty in self.products
            if prod == product_id and act in activities and bp in self.published
        ]

    def buildable(self, type_id: int) -> bool:
        """True when some Manufacturing or Reactions job produces the type."""
        return bool(self.makers_of(type_id, BUILD_ACTIVITIES))

    def component_recipe(self, type_id: int) -> tuple[int, int, int]:
        """(blueprint, activity, output per run) of a component: its first Manufacturing row, else Reactions."""
        return (self.makers_of(type_id, (MANUFACTURING,)) or self.makers_of(type_id, (REACTIONS,)))[0]

    def is_ship(self, type_id: int) -> bool:
        """True for a type whose group is of the Ship category."""
        return int(self.groups[int(self.types[type_id]["groupID"])]["categoryID"]) == SHIP_CATEGORY


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


def efficient_quantity(quantity: int, me: int, runs: int = 1) -> int:
    """Units of a material for `runs` runs at material efficiency `me`: ceil(max(1, q * (1 - me/100) * runs))."""
    return max(runs, -(-quantity * (100 - me) * runs // 100))


def efficient_minutes(seconds: int, te: int) -> int:
    """Minutes of a run at time efficiency `te`: whole seconds (rounded down) first, then minutes rounded up."""
    return math.ceil(seconds * (100 - te) // 100 / 60)


def material_rows(sde: Sde, blueprint: int, activity: int, args: argparse.Namespace) -> list[str]:
    """The table of a recipe, with the Waste column when asked for and the recipe is Manufacturing."""
    me = args.material_efficiency if activity == MANUFACTURING else 0
    waste = args.display_waste and activity == MANUFACTURING
    rows = sde.materials.get((blueprint, activity), [])
    materials = [(sde.name(m), q, sde.buildable(m)) for m, q in rows if m in sde.published]
    materials.sort(key=lambda m: m[0].casefold())
    lines = ["| Item | Quantity | Waste | Buildable |", "|---|---|---|---|"] if waste else [
        "| Item | Quantity | Buildable |", "|---|---|---|"]
    for mat_name, quantity, buildable in materials:
        needed = efficient_quantity(quantity, me)
        cells = [mat_name, str(needed)]
        if waste:
            cells.append(str(needed - efficient_quantity(quantity, 10)))
        cells.append("Yes" if buildable else "No")
        lines.append(f"| {' | '.join(cells)} |")
    return lines


def recipe_report(sde: Sde, args: argparse.Namespace) -> list[str]:
    """The recipe block's lines."""
    name = args.name
    blueprint, activity, product, qty = published_product(sde, name)
    row = sde.types[product]
    volume = float(row["volume"])
    group_name = sde.groups[int(row["groupID"])]["groupName"]
    volume = sde.ship_volumes().get(group_name, volume)
    lines = header_lines(sde, product) + [f"Volume: {volume}", "", "Recipe:"]
    lines += [
        f"Activity: {'Reactions' if activity == REACTIONS else 'Manufacturing'}",
        f"Output Quantity: {qty}",
        f"Run Time: {efficient_minutes(sde.times[blueprint, activity], args.time_efficiency)}",
    ]
    return lines + material_rows(sde, blueprint, activity, args)


def chance(base: Fraction, science_skills: int, level: int, multiplier: int) -> str:
    """The success chance in percent, clamped to [0, 100], rounded half up to two decimals."""
    value = base * (1 + Fraction(science_skills * level, 30) + Fraction(level, 40)) * (1 + Fraction(multiplier, 100))
    value = min(max(value, Fraction(0)), Fraction(1)) * 100
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    return str(exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def invention_target(sde: Sde, name: str) -> tuple[int, int]:
    """(product, its manufacturing blueprint) of a Tech II or Tech III product or blueprint name."""
    type_id = lookup(sde, name)
    made = sde.product_of(type_id, (MANUFACTURING,))
    product = made[1] if made else type_id
    if tech_level(sde, product) == "Tech I":
        raise Failure(f"{name} is not a Tech II or Tech III item")
    makers = sde.makers_of(product, (MANUFACTURING,))
    if not makers:
        raise Failure(f"no blueprint manufactures {name}")
    return product, makers[0][0]


def science_count(sde: Sde, skills: list[int]) -> int:
    """Skills of an invention that are not encryption skills."""
    return sum(1 for s in skills if "Encryption" not in sde.name(s))


def common_lines(sde: Sde, source: int, activity: int) -> tuple[list[str], list[int]]:
    """Datacores, Required Per Run, Skills and Time lines of an invention job, and its skills."""
    materials = [(sde.name(m), q) for m, q in sde.materials.get((source, activity), [])]
    cores = sorted((m for m in materials if m[0].startswith("Datacore - ")), key=lambda m: m[0].casefold())
    skills = sde.skills.get((source, activity), [])
    skill_names = sorted((sde.name(s) for s in skills), key=str.casefold)
    lines = [
        f"Datacores: {', '.join(n for n, _ in cores)}",
        f"Required Per Run: {cores[0][1]}",
        f"Skills: {', '.join(skill_names)}",
        f"Time: {math.ceil(sde.times[source, activity] / 60)}",
        "Probabilities:",
    ]
    return lines, skills


def invention_report(sde: Sde, args: argparse.Namespace) -> list[str]:
    """The invention block's lines."""
    name, level = args.name, args.skill
    product, blueprint = invention_target(sde, name)
    sources = [(bp, act, qty) for bp, act, qty in sde.makers_of(blueprint, (INVENTION, REVERSE_ENGINEERING))]
    if not sources:
        raise Failure(f"nothing invents {name}")
    lines = header_lines(sde, product) + ["", "Invention:"]
    if tech_level(sde, product) == "Tech III":
        return lines + t3_lines(sde, sources, level)
    source, activity, runs = sources[0]
    base = sde.probabilities.get((source, activity, blueprint))
    if base is None:
        raise Failure(f"no invention probability for {name}")
    lines.append(f"Base: {sde.name(source)} ({source})")
    block, skills = common_lines(sde, source, activity)
    lines += block + ["| Decryptor | Probability | Runs | ME | TE |", "|---|---|---|---|---|"]
    science = science_count(sde, skills)
    for dec, mult, d_runs, d_me, d_te in DECRYPTORS:
        lines.append(f"| {dec} | {chance(base, science, level, mult)} | {runs + d_runs} | {2 + d_me} | {4 + d_te} |")
    return lines


def relic_quality(relic_name: str) -> str | None:
    """Intact, Malfunctioning or Wrecked, as the relic's name says."""
    return next((q for q in RELICS if q in relic_name.split()), None)


def t3_lines(sde: Sde, sources: list[tuple[int, int, int]], level: int) -> list[str]:
    """Lines after `Invention:` for a Tech III product: every relic by every decryptor."""
    relics = [(sde.name(s), s, act) for s, act, _ in sources if relic_quality(sde.name(s))]
    if not relics:
        raise Failure("no relic invents this item")
    order = list(RELICS)
    relics.sort(key=lambda r: (order.index(relic_quality(r[0])), r[0].casefold()))
    block, skills = common_lines(sde, relics[0][1], relics[0][2])
    lines = block + ["| Invented From | Decryptor | Probability | Runs | ME | TE |", "|---|---|---|---|---|---|"]
    science = science_count(sde, skills)
    for relic_name, _, _ in relics:
        base, runs = RELICS[relic_quality(relic_name)]
        for dec, mult, d_runs, d_me, d_te in DECRYPTORS:
            prob = chance(base, science, level, mult)
            lines.append(f"| {relic_name} | {dec} | {prob} | {runs + d_runs} | {2 + d_me} | {4 + d_te} |")
    return lines


def skill_level(text: str) -> int:
    """--skill: an integer from 1 to 5."""
    try:
        level = int(text)
    except ValueError:
        level = 0
    if not 1 <= level <= 5:
        raise argparse.ArgumentTypeError("skill level must be an integer from 1 to 5")
    return level


@dataclass(frozen=True)
class BuildSpec:
    """One parsed build string."""

    item: str
    runs: int
    count: int
    me: int = 0
    te: int = 0
    decryptor: str | None = None
    relic: str | None = None


DECRYPTOR_NAMES = [d[0] for d in DECRYPTORS]
INTEGER = re.compile(r"\d+")


def _decryptor_at(tokens: list[str], start: int) -> str | None:
    """The decryptor name (or None) spelled by the tokens from `start` on, if any."""
    for name in DECRYPTOR_NAMES:
        words = name.split()
        if tokens[start:start + len(words)] == words:
            return name
    return None


def parse_build(text: str) -> BuildSpec:
    """A build string: ITEM [RUNS [ME TE | DECRYPTOR [RELIC]]] [xCOUNT]."""
    tokens = text.split()
    count = 1
    if tokens and re.fullmatch(r"x\d+", tokens[-1]):
        count = int(tokens.pop()[1:])
    for i in range(1, len(tokens) - 1):
        decryptor = _decryptor_at(tokens, i + 1) if INTEGER.fullmatch(tokens[i]) else None
        if decryptor is not None:
            relic = " ".join(tokens[i + 1 + len(decryptor.split()):]) or None
            return BuildSpec(" ".join(tokens[:i]), int(tokens[i]), count, decryptor=decryptor, relic=relic)
    if len(tokens) >= 4 and all(INTEGER.fullmatch(t) for t in tokens[-3:]):
        runs, me, te = map(int, tokens[-3:])
        return BuildSpec(" ".join(tokens[:-3]), runs, count, me, te)
    if len(tokens) >= 2 and INTEGER.fullmatch(tokens[-1]):
        return BuildSpec(" ".join(tokens[:-1]), int(tokens[-1]), count)
    return BuildSpec(" ".join(tokens), 1, count)


@dataclass(frozen=True)
class BuildConfig:
    """The build configuration: skills, the split limit and the components' blueprints."""

    te_bonus: int
    skill: int
    split_days: Fraction
    component_me: int
    component_te: int


# key, default, lowest, highest; split_days must be above its lowest value
CONFIG_KEYS = [
    ("te_bonus", "0", 0, 30),
    ("invention_skill", "5", 1, 5),
    ("split_days", "3", 0, 30),
    ("component_bpo_defaults.me", "10", 0, 10),
    ("component_bpo_defaults.te", "20", 0, 20),
]


def yaml_scalars(path: Path) -> dict[str, str]:
    """The scalars of a block-style YAML mapping two levels deep, a nested key as `parent.key`."""
    values = {}
    parent = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.split("#", 1)[0]
        key, sep, value = text.partition(":")
        if not sep:
            continue
        if text[:1].isspace():
            key = f"{parent}.{key.strip()}"
        else:
            parent = key = key.strip()
        values[key] = value.strip().strip("'\"")
    return values


def read_config(path: Path) -> BuildConfig:
    """The build configuration of a YAML file, every value checked against its range."""
    values = yaml_scalars(path)
    try:
        numbers = [Fraction(values.get(key) or default) for key, default, _, _ in CONFIG_KEYS]
    except ValueError as exc:
        raise Failure(f"bad build configuration: {exc}") from exc
    for (key, _, low, high), number in zip(CONFIG_KEYS, numbers, strict=True):
        if not low <= number <= high or (key == "split_days" and number == low):
            raise Failure(f"{key} must be from {low} to {high}")
    te_bonus, skill, split_days, me, te = numbers
    if any(n.denominator != 1 for n in (te_bonus, skill, me, te)):
        raise Failure("te_bonus, invention_skill and the component ME and TE must be integers")
    return BuildConfig(int(te_bonus), int(skill), split_days, int(me), int(te))


def per_run(quantity: int, me: int) -> Fraction:
    """Units of a material one run takes at material efficiency `me`: at least one."""
    return max(Fraction(1), Fraction(quantity * (100 - me), 100))


def units_for_jobs(quantity: int, me: int, runs: list[int]) -> int:
    """Units of a material the jobs of `runs` runs each take, each job rounded up on its own."""
    return sum(math.ceil(per_run(quantity, me) * job_runs) for job_runs in runs)


def split_runs(runs: int, run_days: Fraction, limit: Fraction) -> list[int]:
    """The runs of each job when `runs` runs of `run_days` days each are split to stay within `limit` days."""
    most = max(1, math.floor(limit / run_days))
    if runs <= 1 or (runs <= most and runs * run_days < limit):
        return [runs]
    jobs = max(2, -(-runs // most))
    base, extra = divmod(runs, jobs)
    if base + 1 == most and most * run_days == limit and extra > jobs // 2 and runs // (jobs + 1) + 1 < most:
        jobs += 1
        base, extra = divmod(runs, jobs)
    return [base + 1] * extra + [base] * (jobs - extra)


class Plan:
    """Units used and made of every type, the stock and the stock targets, and the jobs to run."""

    def __init__(self, sde: Sde, config: BuildConfig, stock: dict[int, int], targets: dict[int, int]) -> None:
        self.sde = sde
        self.config = config
        self.stock = stock
        self.targets = targets
        self.used: dict[int, int] = {}
        self.made: dict[int, int] = {}
        self.jobs: dict[tuple[str, int], tuple[Fraction, int]] = {}

    def add(self, type_id: int, quantity: int) -> None:
        """Use `quantity` more units of a type."""
        self.used[type_id] = self.used.get(type_id, 0) + quantity

    def unit_volume(self, type_id: int) -> float:
        """A type's volume, packaged for ships."""
        row = self.sde.types[type_id]
        group_name = self.sde.groups[int(row["groupID"])]["groupName"]
        return self.sde.ship_volumes().get(group_name, float(row["volume"]))

    def run_days(self, blueprint: int, activity: int, te: int) -> Fraction:
        """Days one run of a recipe takes at blueprint TE `te` and the configured skill bonus."""
        seconds = self.sde.times[blueprint, activity] * (100 - te) * (100 - self.config.te_bonus)
        return Fraction(seconds, 10000 * 86400)

    def add_jobs(self, blueprint: int, activity: int, runs: list[int], te: int, count: int) -> None:
        """Job rows for `count` times the jobs of `runs` runs each; rows of one blueprint and runs merge."""
        days = self.run_days(blueprint, activity, te)
        for job_runs in runs:
            key = (self.sde.name(blueprint), job_runs)
            self.jobs[key] = (days * job_runs, self.jobs.get(key, (0, 0))[1] + count)

    def split(self, blueprint: int, activity: int, runs: int, te: int) -> list[int]:
        """split_runs under the configured split limit."""
        return split_runs(runs, self.run_days(blueprint, activity, te), self.config.split_days)

    def manufacture(self, blueprint: int, activity: int, spec: BuildSpec, me: int, te: int) -> None:
        """The materials of every job of a build, bought, and its job row."""
        total_runs = spec.runs * spec.count
        for material, quantity in self.sde.materials.get((blueprint, activity), []):
            if activity == MANUFACTURING:
                self.add(material, math.ceil(per_run(quantity, me) * total_runs))
            else:
                self.add(material, quantity * total_runs)
        self.add_jobs(blueprint, activity, [spec.runs], te, spec.count)

    def build_all(self, blueprint: int, activity: int, spec: BuildSpec, me: int, te: int) -> None:
        """Jobs for the request, every buildable material below it and every buildable target; the rest is
        bought."""
        me = me if activity == MANUFACTURING else 0
        runs = self.split(blueprint, activity, spec.runs, te)
        self.add_jobs(blueprint, activity, runs, te, spec.count)
        materials = self.sde.materials.get((blueprint, activity), [])
        for material, quantity in materials:
            self.add(material, units_for_jobs(quantity, me, runs) * spec.count)
        roots = [m for m, _ in materials] + list(self.targets)
        for component in self.top_down([t for t in roots if self.sde.buildable(t)]):
            self.build_component(component)

    def top_down(self, roots: list[int]) -> list[int]:
        """The buildable types under `roots`, each before every type it is built from."""
        order: list[int] = []
        seen: set[int] = set()

        def visit(type_id: int) -> None:
            seen.add(type_id)
            blueprint, activity, _ = self.sde.component_recipe(type_id)
            for material, _ in self.sde.materials.get((blueprint, activity), []):
                if material not in seen and self.sde.buildable(material):
                    visit(material)
            order.append(type_id)

        for root in roots:
            if root not in seen:
                visit(root)
        return order[::-1]

    def shortfall(self, type_id: int) -> int:
        """Units of a type the stock lacks for its uses and its target."""
        return max(0, self.used.get(type_id, 0) + self.targets.get(type_id, 0) - self.stock.get(type_id, 0))

    def build_component(self, type_id: int) -> None:
        """The jobs making what the stock lacks of a component; its materials used."""
        blueprint, activity, output = self.sde.component_recipe(type_id)
        runs = -(-self.shortfall(type_id) // output)
        self.made[type_id] = runs * output
        if runs == 0:
            return
        me, te, bought_te = self.efficiencies(type_id, activity, runs)
        self.add_jobs(blueprint, activity, self.split(blueprint, activity, runs, te), te, 1)
        bought_runs = self.split(blueprint, activity, runs, bought_te)
        for material, quantity in self.sde.materials.get((blueprint, activity), []):
            self.add(material, units_for_jobs(quantity, me, [runs] if self.sde.buildable(material) else bought_runs))

    def efficiencies(self, type_id: int, activity: int, runs: int) -> tuple[int, int, int]:
        """(ME, TE, TE of the bought materials' split) of a component's blueprint; a Tech II or Tech III target's
        blueprints are invented (their inventions bought)."""
        if activity == REACTIONS:
            return 0, 0, 0
        if type_id in self.targets and tech_level(self.sde, type_id) != "Tech I":
            return self.invent_target(type_id, runs)
        te = self.config.component_te
        if self.sde.is_ship(type_id):
            return 0, te, 0
        return self.config.component_me, te, te

    def invent_target(self, type_id: int, runs: int) -> tuple[int, int, int]:
        """Buy the inventions of the blueprints for `runs` runs of a target, without a decryptor (a Tech III
        target from its first Intact relic by name); the invented blueprints' (ME, TE, TE)."""
        item = self.sde.name(type_id)
        relic = intact_relic(self.sde, item)
        source, activity, base, bp_runs = invention_source(self.sde, item, relic)
        buy_attempts(self, (source, activity, base), "None", relic, -(-runs // bp_runs))
        return 2, 4, 4

    def amounts(self, type_id: int) -> tuple[int, int, int]:
        """(to_buy, start_amount, end_amount) of a type."""
        start, used = self.stock.get(type_id, 0), self.used.get(type_id, 0)
        if type_id in self.made:
            return 0, start, start + self.made[type_id] - used
        to_buy = max(0, used + self.targets.get(type_id, 0) - start)
        return to_buy, start, start + to_buy - used

    def write(self, directory: Path) -> None:
        """materials.csv and jobs.csv in `directory`."""
        directory.mkdir(parents=True, exist_ok=True)
        materials = []
        for type_id in set(self.used) | set(self.made) | set(self.stock) | set(self.targets):
            to_buy, start, end = self.amounts(type_id)
            if to_buy or start != end:
                volume = round_half_up(to_buy * Fraction(self.unit_volume(type_id)))
                materials.append([self.sde.name(type_id), to_buy, volume, start, end])
        with open(directory / "materials.csv", "w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(["name", "to_buy", "buy_volume", "start_amount", "end_amount"])
            writer.writerows(sorted(materials))
        jobs = sorted((name, runs, count, round_half_up(days)) for (name, runs), (days, count) in self.jobs.items())
        with open(directory / "jobs.csv", "w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(["name", "runs", "days", "count"])
            writer.writerows([name, runs, days, count] for name, runs, count, days in jobs)


def round_half_up(value: Fraction) -> str:
    """A number with two decimals, halves rounded up."""
    return str((Decimal(value.numerator) / Decimal(value.denominator)).quantize(Decimal("0.01"), ROUND_HALF_UP))


def invention_source(sde: Sde, item: str, relic: str | None) -> tuple[int, int, Fraction, int]:
    """(source, activity, base chance, runs per invented blueprint without a decryptor) of the invention of a
    Tech II item (`relic` None) or of a Tech III item from `relic`."""
    product, blueprint = invention_target(sde, item)
    sources = sde.makers_of(blueprint, (INVENTION, REVERSE_ENGINEERING))
    if (tech_level(sde, product) == "Tech III") != (relic is not None):
        raise Failure(f"{item}: a relic is named for Tech III items, and only for them")
    if relic is not None:
        matching = [s for s in sources if sde.name(s[0]) == relic and relic_quality(relic)]
        if not matching:
            raise Failure(f"{relic} does not invent {item}")
        base, runs = RELICS[relic_quality(relic)]
        return matching[0][0], matching[0][1], base, runs
    if not sources or (sources[0][0], sources[0][1], blueprint) not in sde.probabilities:
        raise Failure(f"nothing invents {item}")
    source, activity, runs = sources[0]
    return source, activity, sde.probabilities[source, activity, blueprint], runs


def intact_relic(sde: Sde, item: str) -> str | None:
    """The first Intact relic by name inventing a Tech III item; None for a Tech II item."""
    product, blueprint = invention_target(sde, item)
    if tech_level(sde, product) != "Tech III":
        return None
    sources = sde.makers_of(blueprint, (INVENTION, REVERSE_ENGINEERING))
    relics = sorted((sde.name(s) for s, _, _ in sources if relic_quality(sde.name(s)) == "Intact"), key=str.casefold)
    if not relics:
        raise Failure(f"no Intact relic invents {item}")
    return relics[0]


def buy_attempts(plan: Plan, invention: tuple[int, int, Fraction], decryptor: str, relic: str | None,
                 blueprints: int) -> None:
    """Use what the attempts inventing `blueprints` blueprints take: datacores, the relic, the decryptor."""
    source, activity, base = invention
    mult = DECRYPTORS[DECRYPTOR_NAMES.index(decryptor)][1]
    science = science_count(plan.sde, plan.sde.skills.get((source, activity), []))
    attempts = math.ceil(blueprints / (Fraction(chance(base, science, plan.config.skill, mult)) / 100))
    for material, quantity in plan.sde.materials.get((source, activity), []):
        if plan.sde.name(material).startswith("Datacore - "):
            plan.add(material, quantity * attempts)
    if relic is not None:
        plan.add(source, attempts)
    if decryptor != "None":
        plan.add(plan.sde.by_name[decryptor], attempts)


def invented_blueprint(sde: Sde, spec: BuildSpec, plan: Plan) -> tuple[int, int]:
    """Use what the inventions of the request's blueprints take; the (ME, TE) of the invented blueprints."""
    source, activity, base, runs = invention_source(sde, spec.item, spec.relic)
    _, _, d_runs, d_me, d_te = DECRYPTORS[DECRYPTOR_NAMES.index(spec.decryptor)]
    blueprints = -(-spec.runs * spec.count // (runs + d_runs)) if spec.relic else spec.count
    buy_attempts(plan, (source, activity, base), spec.decryptor, spec.relic, blueprints)
    return 2 + d_me, 4 + d_te


def amount_line(sde: Sde, words: list[str]) -> tuple[int, int]:
    """(type, quantity) of a stocks or targets line: the longest leading words naming a published type, then a
    whole number; anything after it is ignored."""
    for end in range(len(words) - 1, 0, -1):
        name = " ".join(words[:end])
        if name in sde.by_name and INTEGER.fullmatch(words[end]):
            return sde.by_name[name], int(words[end])
    raise Failure(f"not an item name and a quantity: {' '.join(words)}")


def read_amounts(sde: Sde, path: Path | None) -> dict[int, int]:
    """Quantities by type of a stocks or targets file (none without a file); an item's lines add up."""
    amounts: dict[int, int] = {}
    if path is None:
        return amounts
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise Failure(f"cannot read {path}: {exc}") from exc
    for line in text.splitlines():
        if line.split():
            type_id, quantity = amount_line(sde, line.split())
            amounts[type_id] = amounts.get(type_id, 0) + quantity
    return amounts


def plan_report(sde: Sde, args: argparse.Namespace) -> list[str]:
    """Write the build plan's CSV files; nothing to print."""
    config = read_config(args.config)
    spec = parse_build(args.build)
    if (args.stocks or args.targets) and not args.build_all:
        raise Failure("--stocks and --targets need --build-all")
    blueprint, activity, product, _ = published_product(sde, spec.item)
    stock, targets = read_amounts(sde, args.stocks), read_amounts(sde, args.targets)
    for amounts in (stock, targets):
        amounts.pop(product, None)
    plan = Plan(sde, config, stock, targets)
    me, te = spec.me, spec.te
    if spec.decryptor is not None:
        me, te = invented_blueprint(sde, spec, plan)
    build = plan.build_all if args.build_all else plan.manufacture
    build(blueprint, activity, spec, me, te)
    plan.write(args.output)
    return []


def material_efficiency(text: str) -> int:
    """-me: an integer from 0 to 10."""
    level = int(text) if text.lstrip("-").isdigit() else -1
    if not 0 <= level <= 10:
        raise argparse.ArgumentTypeError("material efficiency must be an integer from 0 to 10")
    return level


def time_efficiency(text: str) -> int:
    """-te: an even integer from 0 to 20."""
    level = int(text) if text.lstrip("-").isdigit() else -1
    if not 0 <= level <= 20 or level % 2:
        raise argparse.ArgumentTypeError("time efficiency must be an even integer from 0 to 20")
    return level


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The command line: recipe, invention or plan, each with its arguments."""
    parser = argparse.ArgumentParser(prog="industry")
    commands = parser.add_subparsers(dest="command", required=True)
    recipe = commands.add_parser("recipe")
    recipe.add_argument("name")
    recipe.add_argument("--sde", required=True, type=Path)
    recipe.add_argument("-me", "--material-efficiency", type=material_efficiency, default=0)
    recipe.add_argument("-te", "--time-efficiency", type=time_efficiency, default=0)
    recipe.add_argument("-waste", "--display-waste", action="store_true")
    invention = commands.add_parser("invention")
    invention.add_argument("name")
    invention.add_argument("--sde", required=True, type=Path)
    invention.add_argument("--skill", type=skill_level, default=5)
    plan = commands.add_parser("plan")
    plan.add_argument("build")
    plan.add_argument("--sde", required=True, type=Path)
    plan.add_argument("--config", required=True, type=Path)
    plan.add_argument("--output", required=True, type=Path)
    plan.add_argument("--build-all", action="store_true")
    plan.add_argument("--stocks", type=Path)
    plan.add_argument("--targets", type=Path)
    return parser.parse_args(argv)


REPORTS = {"recipe": recipe_report, "invention": invention_report, "plan": plan_report}


def main(argv: list[str]) -> None:
    """Run one command; print its block, or exit with an error on stderr."""
    args = parse_args(argv)
    try:
        sde = Sde(args.sde)
        lines = REPORTS[args.command](sde, args)
    except Failure as exc:
        sys.exit(f"ERROR: {exc}")
    if lines:
        print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:])
