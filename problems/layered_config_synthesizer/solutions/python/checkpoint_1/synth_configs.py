"""synth_configs, checkpoint 1: merge base, defaults, run override and flags into one canonical spec.

    synth_configs [build] --base B --overrides DIR --flags F --env E --out OUT
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import yaml

BOOL, FLOAT = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:float"
FLAGS = ("--base", "--overrides", "--flags", "--env", "--out")


class SynthError(Exception):
    """A blocking problem: its code goes into the error envelope on stderr."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# ---------------------------------------------------------------- command line

def parse_args(argv: list[str]) -> dict[str, str]:
    """Flag -> value (the last occurrence wins); an optional leading `build` subcommand."""
    tokens = list(argv)
    if tokens and not tokens[0].startswith("--"):
        if tokens[0] != "build":
            raise SynthError("INVALID_INPUT", f"unknown subcommand: {tokens[0]}")
        tokens.pop(0)
    values: dict[str, str] = {}
    while tokens:
        flag = tokens.pop(0)
        if flag not in FLAGS:
            raise SynthError("INVALID_INPUT", f"unknown argument: {flag}")
        if not tokens:
            raise SynthError("INVALID_INPUT", f"{flag} needs a value")
        values[flag] = tokens.pop(0)
    missing = [flag for flag in FLAGS if flag not in values]
    if missing:
        raise SynthError("INVALID_INPUT", f"missing flag(s): {', '.join(missing)}")
    return values


# ---------------------------------------------------------------- loading

class UniqueKeyLoader(yaml.SafeLoader):
    """A safe loader that refuses a key given twice in one mapping, with YAML 1.2 booleans and floats
    (`yes`, `no`, `on`, `off` are strings; `1e3` is a number)."""


UniqueKeyLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag not in (BOOL, FLOAT)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
UniqueKeyLoader.add_implicit_resolver(BOOL, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
YAML12_FLOAT = re.compile(r"""^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?
                             |[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$""", re.VERBOSE)
UniqueKeyLoader.add_implicit_resolver(FLOAT, YAML12_FLOAT, list("-+0123456789."))


def _mapping_without_duplicates(loader: UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    written = [loader.construct_object(key, deep=True) for key, _ in node.value if key.tag != "tag:yaml.org,2002:merge"]
    for index, key in enumerate(written):
        if key in written[:index]:
            raise SynthError("PARSE_ERROR", f"duplicate key {key!r}")
    loader.flatten_mapping(node)
    try:
        return {loader.construct_object(key, deep=True): loader.construct_object(value, deep=True)
                for key, value in node.value}
    except TypeError as error:
        raise SynthError("PARSE_ERROR", "a mapping key is not a string") from error


UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)
UniqueKeyLoader.add_constructor("tag:yaml.org,2002:timestamp", UniqueKeyLoader.construct_yaml_str)


def as_json(value: object, label: str) -> object:
    """The value with JSON types only (string keys); anything else is a parse error of `label`."""
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise SynthError("PARSE_ERROR", f"{label}: keys must be strings")
        return {key: as_json(item, label) for key, item in value.items()}
    if isinstance(value, list):
        return [as_json(item, label) for item in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise SynthError("PARSE_ERROR", f"{label}: unsupported value {value!r}")


def load_yaml(path: Path, label: str) -> object:
    """The parsed YAML document at `path` (an empty document is null)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SynthError("MISSING_FILE", f"{label}: cannot read {path}: {error}") from error
    try:
        return as_json(yaml.load(text, Loader=UniqueKeyLoader), label)
    except SynthError as error:
        raise SynthError("PARSE_ERROR", f"{label}: {error}") from error
    except yaml.YAMLError as error:
        raise SynthError("PARSE_ERROR", f"{label}: {error}") from error


def _unique_pairs(pairs: list[tuple[str, object]]) -> dict:
    result = {}
    for key, value in pairs:
        if key in result:
            raise SynthError("PARSE_ERROR", f"flags.json: duplicate key {key!r}")
        result[key] = value
    return result


def load_flags(path: Path) -> dict:
    """The flags object: a missing file, an empty one and `null` are an empty object."""
    if not path.exists():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SynthError("MISSING_FILE", f"flags.json: cannot read {path}: {error}") from error
    if not text.strip():
        return {}
    try:
        data = json.loads(text, object_pairs_hook=_unique_pairs)
    except ValueError as error:
        raise SynthError("PARSE_ERROR", f"flags.json: {error}") from error
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SynthError("PARSE_ERROR", "flags.json must hold a JSON object")
    return data


def load_env(path: Path) -> dict[str, str]:
    """KEY=VALUE lines; blank lines and `#` comments are skipped."""
    if not path.is_file():
        raise SynthError("MISSING_FILE", f"env.list not found: {path}")
    env: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        key, sep, value = stripped.partition("=")
        if not sep or not key.strip():
            raise SynthError("PARSE_ERROR", f"env.list line {number} is not KEY=VALUE")
        env[key.strip()] = value.strip()
    return env


def require_file(path: Path, label: str) -> Path:
    """`path` when it is a file, otherwise MISSING_FILE."""
    if not path.is_file():
        raise SynthError("MISSING_FILE", f"{label} not found: {path}")
    return path


# ---------------------------------------------------------------- merging

def type_of(value: object) -> str:
    """The JSON type name of a value (integers and floats are both numbers)."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "null" if value is None else "string"


def pointer(path: tuple[str, ...]) -> str:
    """The JSON Pointer of a path ("/" for the whole document)."""
    return "/" + "/".join(part.replace("~", "~0").replace("/", "~1") for part in path) if path else "/"


class Merger:
    """Deep-merges layers in order, remembering which layer set each value, and records type conflicts."""

    def __init__(self) -> None:
        self.origin: dict[tuple[str, ...], str] = {}
        self.warnings: list[str] = []
        self.document: object = None
        self.started = False

    def add(self, layer: object, source: str) -> None:
        """Merge one layer over what is there."""
        if not self.started:
            self.started = True
            self.document = layer
            self._claim((), layer, source)
            return
        self.document = self._merge(self.document, layer, (), source)

    def _merge(self, old: object, new: object, path: tuple[str, ...], source: str) -> object:
        if isinstance(old, dict) and isinstance(new, dict):
            merged = dict(old)
            for key, value in new.items():
                child = (*path, key)
                if key in merged:
                    merged[key] = self._merge(merged[key], value, child, source)
                else:
                    merged[key] = value
                    self._claim(child, value, source)
            return merged
        loser = self.origin.get(path)
        if type_of(old) != type_of(new) and loser and loser != source:
            self.warnings.append(self.conflict(path, loser, source))
        self._claim(path, new, source)
        return new

    def conflict(self, path: tuple[str, ...], loser: str, winner: str) -> str:
        """The warning line of a type-changing overwrite."""
        return f"CONFLICT {pointer(path)} {loser} -> {winner}"

    def _claim(self, path: tuple[str, ...], value: object, source: str) -> None:
        depth = len(path)
        for known in [p for p in self.origin if p[:depth] == path]:
            del self.origin[known]
        self._mark(path, value, source)

    def _mark(self, path: tuple[str, ...], value: object, source: str) -> None:
        self.origin[path] = source
        if isinstance(value, dict):
            for key, item in value.items():
                self._mark((*path, key), item, source)


def fill_from_defaults(document: object, defaults: object) -> None:
    """Top-level sections of the defaults the merged document still lacks are copied in."""
    if isinstance(document, dict) and isinstance(defaults, dict):
        for key, value in defaults.items():
            document.setdefault(key, value)


# ---------------------------------------------------------------- validation

def positive_int(value: object) -> bool:
    """True for an integer above zero (a boolean is not one)."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def require_section(spec: dict, name: str) -> dict:
    """The object at a required top-level key."""
    if name not in spec or spec[name] is None:
        raise SynthError("MISSING_KEY", f"{name} is required")
    if not isinstance(spec[name], dict):
        raise SynthError("INVALID_VALUE", f"{name} must be an object")
    return spec[name]


def check_accelerators(accelerators: object) -> None:
    """Each accelerator is an object with a string type and a positive integer count."""
    if not isinstance(accelerators, list):
        raise SynthError("INVALID_VALUE", "resources.accelerators must be an array")
    for index, item in enumerate(accelerators):
        where = f"resources.accelerators[{index}]"
        if not isinstance(item, dict):
            raise SynthError("INVALID_VALUE", f"{where} must be an object")
        if not isinstance(item.get("type"), str):
            raise SynthError("INVALID_VALUE", f"{where}.type must be a string")
        if not positive_int(item.get("count")):
            raise SynthError("INVALID_VALUE", f"{where}.count must be a positive integer")


def validate(spec: object) -> None:
    """The checks of the merged document, in the order the spec lists them."""
    if not isinstance(spec, dict):
        raise SynthError("INVALID_STRUCTURE", "the merged document must be an object")
    name = spec.get("experiment_name")
    if not isinstance(name, str) or not name.strip():
        raise SynthError("MISSING_KEY", "experiment_name is required")
    require_section(spec, "training")
    resources = require_section(spec, "resources")
    if resources.get("accelerators") is None and resources.get("profile") is None:
        raise SynthError("MISSING_KEY", "resources needs accelerators or profile")
    if resources.get("profile") is not None and not isinstance(resources["profile"], str):
        raise SynthError("INVALID_VALUE", "resources.profile must be a string")
    if "world_size" in resources and not positive_int(resources["world_size"]):
        raise SynthError("INVALID_VALUE", "resources.world_size must be a positive integer")
    if resources.get("accelerators") is not None:
        check_accelerators(resources["accelerators"])


# ---------------------------------------------------------------- outputs

def canonical(value: object) -> str:
    """Compact JSON with sorted keys and one final newline."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_outputs(out: Path, spec: object, warnings: list[str]) -> None:
    """final_spec.json and warnings.txt (one newline when there are no warnings)."""
    (out / "final_spec.json").write_text(canonical(spec), encoding="utf-8")
    (out / "warnings.txt").write_text("".join(f"{line}\n" for line in warnings) or "\n", encoding="utf-8")


def build(args: dict[str, str]) -> None:
    """Load every layer, merge, validate, write."""
    out = Path(args["--out"])
    if out.exists() and not out.is_dir():
        raise SynthError("MISSING_FILE", f"--out is not a directory: {out}")
    out.mkdir(parents=True, exist_ok=True)
    base_path = require_file(Path(args["--base"]), "base.yaml")
    overrides = Path(args["--overrides"])
    defaults_path = require_file(overrides / "defaults.yaml", "overrides/defaults.yaml")
    load_env(Path(args["--env"]))
    base = load_yaml(base_path, "base.yaml")
    if not isinstance(base, dict):
        raise SynthError("INVALID_STRUCTURE", "base.yaml must hold an object")
    defaults = load_yaml(defaults_path, "defaults.yaml")
    layers = [(base, "base.yaml"), (defaults, "defaults.yaml")]
    if (overrides / "run.yaml").is_file():
        layers.append((load_yaml(overrides / "run.yaml", "run.yaml"), "run.yaml"))
    layers.append((load_flags(Path(args["--flags"])), "flags.json"))
    merger = Merger()
    for layer, source in layers:
        merger.add(layer, source)
    fill_from_defaults(merger.document, defaults)
    validate(merger.document)
    write_outputs(out, merger.document, merger.warnings)


def main(argv: list[str]) -> int:
    """Run the command; a blocking problem is a one-line JSON envelope on stderr and exit 1."""
    try:
        build(parse_args(argv))
    except SynthError as error:
        envelope = {"error": {"code": error.code, "message": str(error)}}
        sys.stderr.write(json.dumps(envelope) + "\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
