"""synth_configs, checkpoint 4: one canonical spec per run of a manifest, with hardware profiles (their
defaults layered in, their limits enforced) and a JSON Schema every run's spec must satisfy.

    synth_configs [build] --base B --overrides DIR --fragments DIR --manifest CSV --flags F
                  --schema SCHEMA --hardware HW --env E --out OUT
"""

from __future__ import annotations

import csv
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from jsonschema import Draft7Validator
from jsonschema.exceptions import SchemaError

BOOL, FLOAT = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:float"
FLAGS = ("--base", "--overrides", "--fragments", "--manifest", "--flags", "--schema", "--hardware", "--env", "--out")
RUN_ID = re.compile(r"[A-Za-z0-9_-]+")
PLACEHOLDER = re.compile(r"\{\{fragment:(.*)\}\}", re.DOTALL)
FRAGMENT_NAME = re.compile(r"[a-z0-9_]+")
VARIABLE = re.compile(r"\$\{([A-Za-z0-9_]+)\}")


class SynthError(Exception):
    """A blocking problem: its code goes into the error envelope on stderr."""

    def __init__(self, code: str, message: str, path: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.path = path


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
        raise SynthError("MISSING_FILE", f"{label}: cannot read {path}: {error}", label) from error
    try:
        return as_json(yaml.load(text, Loader=UniqueKeyLoader), label)
    except SynthError as error:
        raise SynthError("PARSE_ERROR", f"{label}: {error}", label) from error
    except yaml.YAMLError as error:
        raise SynthError("PARSE_ERROR", f"{label}: {error}", label) from error


def _unique_pairs(pairs: list[tuple[str, object]]) -> dict:
    result = {}
    for key, value in pairs:
        if key in result:
            raise SynthError("PARSE_ERROR", f"duplicate key {key!r}")
        result[key] = value
    return result


def load_flags(path: Path, label: str) -> dict:
    """The flags object: an empty file and `null` are an empty object."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SynthError("MISSING_FILE", f"{label}: cannot read {path}: {error}", label) from error
    if not text.strip():
        return {}
    try:
        data = json.loads(text, object_pairs_hook=_unique_pairs)
    except ValueError as error:
        raise SynthError("PARSE_ERROR", f"{label} is invalid", label) from error
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SynthError("PARSE_ERROR", f"{label} must hold a JSON object", label)
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
    return resolve_env(env)


def resolve_env(raw: dict[str, str]) -> dict[str, str]:
    """Every value with the ${NAME} it holds replaced by that entry's resolved value."""
    resolved: dict[str, str] = {}

    def value_of(name: str, chain: tuple[str, ...]) -> str:
        if name in resolved:
            return resolved[name]
        if name not in raw:
            raise SynthError("UNKNOWN_ENV_VAR", f"{name} is not defined")
        if name in chain:
            raise SynthError("UNKNOWN_ENV_VAR", f"env variables refer to each other: {' -> '.join((*chain, name))}")
        resolved[name] = VARIABLE.sub(lambda match: value_of(match[1], (*chain, name)), raw[name])
        return resolved[name]

    for key in raw:
        value_of(key, ())
    return resolved


def interpolate(value: object, env: dict[str, str], path: tuple[str, ...] = ()) -> object:
    """Every string value (keys aside) with its ${NAME} tokens replaced from the env file."""
    if isinstance(value, dict):
        return {key: interpolate(item, env, (*path, key)) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, env, (*path, str(index))) for index, item in enumerate(value)]
    if isinstance(value, str):
        return VARIABLE.sub(lambda match: env_value(env, match[1], path), value)
    return value


def env_value(env: dict[str, str], name: str, path: tuple[str, ...]) -> str:
    """The value of one variable; an undefined one is blocking."""
    if name not in env:
        raise SynthError("UNKNOWN_ENV_VAR", f"{name} is not defined", pointer(path))
    return env[name]


def require_file(path: Path, label: str) -> Path:
    """`path` when it is a file, otherwise MISSING_FILE."""
    if not path.is_file():
        raise SynthError("MISSING_FILE", f"{label} not found", label)
    return path


# ---------------------------------------------------------------- fragments

class Fragments:
    """Expands `{{fragment:NAME}}` values from a directory of fragment files, noting deprecations once each."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.loaded: dict[str, object] = {}
        self.reasons = self._metadata()
        self.warned: set[str] = set()
        self.warnings: list[str] = []

    def for_run(self) -> None:
        """Start a new run: deprecations are warned again, once each."""
        self.warned = set()
        self.warnings = []

    def _metadata(self) -> dict[str, str]:
        path = self.directory / "meta.yaml"
        if not path.exists():
            return {}
        meta = load_yaml(path, "fragments/meta.yaml")
        if meta is None:
            return {}
        if not isinstance(meta, dict):
            raise SynthError("INVALID_TEMPLATE", "fragments/meta.yaml must hold a mapping")
        if not all(isinstance(info, dict) for info in meta.values()):
            raise SynthError("INVALID_TEMPLATE", "fragments/meta.yaml: every entry must be an object")
        reasons = {name: reason_of(info, f"fragments/meta.yaml: {name}") for name, info in meta.items()}
        return {name: reason for name, reason in reasons.items() if reason is not None}

    def expand(self, value: object, chain: tuple[str, ...] = (), in_array: bool = False) -> object:
        """The value with every placeholder replaced, recursively."""
        if isinstance(value, dict):
            return {key: self.expand(item, chain) for key, item in value.items()}
        if isinstance(value, list):
            return [self.expand(item, chain, in_array=True) for item in value]
        if isinstance(value, str):
            matched = PLACEHOLDER.fullmatch(value)
            if matched:
                return self._inline(matched[1], chain, in_array)
        return value

    def _inline(self, name: str, chain: tuple[str, ...], in_array: bool) -> object:
        if not FRAGMENT_NAME.fullmatch(name):
            raise SynthError("INVALID_TEMPLATE", f"invalid fragment name {name!r}", f"fragments/{name}.yaml")
        if name in chain:
            cycle = (*chain[chain.index(name):], name)
            raise SynthError("FRAGMENT_CYCLE", f"fragment cycle: {' -> '.join(cycle)}", f"fragments/{name}.yaml")
        content = self._load(name)
        if in_array and isinstance(content, list):
            raise SynthError("INVALID_TEMPLATE", f"fragment {name} is an array inside an array",
                             f"fragments/{name}.yaml")
        expanded = self.expand(content, (*chain, name), in_array)
        if name in self.reasons and name not in self.warned:
            self.warned.add(name)
            self.warnings.append(f"FRAGMENT_DEPRECATED {name} {self.reasons[name]}")
        return expanded

    def _load(self, name: str) -> object:
        if name not in self.loaded:
            path = self.directory / f"{name}.yaml"
            if not path.is_file():
                raise SynthError("UNKNOWN_FRAGMENT", f"fragment {name} not found", f"fragments/{name}.yaml")
            content = load_yaml(path, f"fragments/{name}.yaml")
            if isinstance(content, dict) and "_meta" in content:
                reason = reason_of(content.pop("_meta"), f"fragments/{name}.yaml: _meta")
                if reason is not None:
                    self.reasons.setdefault(name, reason)
            self.loaded[name] = content
        return self.loaded[name]


def reason_of(info: object, label: str) -> str | None:
    """The deprecated_reason of a metadata entry (null or an object), if any."""
    if info is None:
        return None
    if not isinstance(info, dict):
        raise SynthError("INVALID_TEMPLATE", f"{label} must be an object")
    reason = info.get("deprecated_reason")
    if reason is not None and not isinstance(reason, str):
        raise SynthError("INVALID_TEMPLATE", f"{label}: deprecated_reason must be a string")
    return reason


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

    def conflict(self, path: tuple[str, ...], loser: str, winner: str) -> tuple[str, str]:
        """The pointer and the text (after the run id) of a type-changing overwrite."""
        return pointer(path), f"{pointer(path)} {loser} -> {winner}"

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
        raise SynthError("MISSING_KEY", f"{name} is required", f"/{name}")
    if not isinstance(spec[name], dict):
        raise SynthError("INVALID_VALUE", f"{name} must be an object", f"/{name}")
    return spec[name]


def check_accelerators(accelerators: object) -> None:
    """Each accelerator is an object with a string type and a positive integer count."""
    if not isinstance(accelerators, list):
        raise SynthError("INVALID_VALUE", "resources.accelerators must be an array", "/resources/accelerators")
    for index, item in enumerate(accelerators):
        where = f"/resources/accelerators/{index}"
        if not isinstance(item, dict):
            raise SynthError("INVALID_VALUE", f"{where} must be an object", where)
        if not isinstance(item.get("type"), str):
            raise SynthError("INVALID_VALUE", f"{where}/type must be a string", f"{where}/type")
        if not positive_int(item.get("count")):
            raise SynthError("INVALID_VALUE", f"{where}/count must be a positive integer", f"{where}/count")


def validate(spec: object) -> None:
    """The checks of the merged document, in the order the spec lists them."""
    if not isinstance(spec, dict):
        raise SynthError("INVALID_STRUCTURE", "the merged document must be an object", "/")
    name = spec.get("experiment_name")
    if not isinstance(name, str) or not name.strip():
        raise SynthError("MISSING_KEY", "experiment_name is required", "/experiment_name")
    require_section(spec, "training")
    resources = require_section(spec, "resources")
    if resources.get("accelerators") is None and resources.get("profile") is None:
        raise SynthError("MISSING_KEY", "resources needs accelerators or profile", "/resources")
    if resources.get("profile") is not None and not isinstance(resources["profile"], str):
        raise SynthError("INVALID_VALUE", "resources.profile must be a string", "/resources/profile")
    if "world_size" in resources and not positive_int(resources["world_size"]):
        raise SynthError("INVALID_VALUE", "resources.world_size must be a positive integer",
                         "/resources/world_size")
    if resources.get("accelerators") is not None:
        check_accelerators(resources["accelerators"])


# ---------------------------------------------------------------- manifest

MANIFEST_COLUMNS = ("run_id", "override_path")


@dataclass(frozen=True)
class RunEntry:
    """One manifest row: the paths as written (labels) and as resolved against the manifest's directory."""

    run_id: str
    override: str
    flags: str | None
    notes: str | None
    directory: Path

    def resolve(self, written: str) -> Path:
        """A manifest path: absolute as it is, relative to the manifest's directory otherwise."""
        return Path(written) if Path(written).is_absolute() else self.directory / written


def manifest_error(message: str) -> SynthError:
    """A problem of the manifest as a whole."""
    return SynthError("INVALID_MANIFEST", message)


def read_manifest(path: Path) -> list[RunEntry]:
    """The runs of a CSV manifest, in order; blank lines and `#` comment lines are skipped."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    reader = csv.DictReader(lines)
    header = reader.fieldnames or []
    missing = [column for column in MANIFEST_COLUMNS if column not in header]
    if missing:
        raise manifest_error(f"manifest header lacks {', '.join(missing)}")
    entries: list[RunEntry] = []
    for row in reader:
        entries.append(manifest_row(row, path.parent, {entry.run_id for entry in entries}))
    if not entries:
        raise manifest_error("the manifest lists no run")
    return entries


def cell(row: dict, column: str) -> str:
    """A manifest cell, trimmed ('' when the row has none)."""
    return (row.get(column) or "").strip()


def manifest_row(row: dict, directory: Path, seen: set[str]) -> RunEntry:
    """One checked row."""
    run_id = cell(row, "run_id")
    if not RUN_ID.fullmatch(run_id):
        raise manifest_error(f"invalid run_id {run_id!r}")
    if run_id in seen:
        raise manifest_error(f"run_id {run_id} is listed twice")
    override = cell(row, "override_path")
    if not override:
        raise manifest_error(f"run {run_id} has no override_path")
    return RunEntry(run_id, override, cell(row, "flags_path") or None, cell(row, "notes") or None, directory)


# ---------------------------------------------------------------- hardware and schema

class RunRejected(Exception):
    """A run whose violations are already recorded."""


@dataclass(frozen=True)
class Profile:
    """One hardware profile: its defaults layer and its limits."""

    name: str
    max_world_size: int
    multiple_of: int | None
    defaults: dict | None

    def breaches(self, world_size: object) -> list[str]:
        """What an integer world size breaks: the maximum, then the required multiple."""
        if not positive_int(world_size):
            return []
        found = []
        if world_size > self.max_world_size:
            found.append(f"world_size exceeds max {self.max_world_size}")
        if self.multiple_of and world_size % self.multiple_of:
            found.append(f"world_size must be multiple of {self.multiple_of}")
        return found


@dataclass(frozen=True)
class Hardware:
    """The profiles of hardware.yaml and its default profile."""

    profiles: dict[str, Profile]
    default_profile: str | None

    def profile(self, name: str | None) -> Profile:
        """A profile by name; none named, or an unknown name, is UNKNOWN_PROFILE."""
        if name is None:
            raise SynthError("UNKNOWN_PROFILE", "no resources.profile and no default_profile", "/resources/profile")
        if name not in self.profiles:
            raise SynthError("UNKNOWN_PROFILE", f"Profile {name} not found", "/resources/profile")
        return self.profiles[name]


def hardware_error(message: str) -> SynthError:
    """A problem of hardware.yaml (blocking)."""
    return SynthError("INVALID_VALUE", f"hardware.yaml: {message}")


def check_profile_accelerators(name: str, accelerators: object) -> None:
    """A profile's accelerators: a non-empty array of objects with a string type and a positive count."""
    if not isinstance(accelerators, list) or not accelerators:
        raise hardware_error(f"profile {name}: accelerators must be a non-empty array")
    for item in accelerators:
        if not isinstance(item, dict) or not isinstance(item.get("type"), str) or not positive_int(item.get("count")):
            raise hardware_error(f"profile {name}: each accelerator needs a string type and a positive count")


def read_profile(name: str, raw: object) -> Profile:
    """One checked profile entry."""
    if not isinstance(raw, dict):
        raise hardware_error(f"profile {name} must be an object")
    check_profile_accelerators(name, raw.get("accelerators"))
    if not positive_int(raw.get("max_world_size")):
        raise hardware_error(f"profile {name}: max_world_size must be a positive integer")
    defaults = raw.get("defaults")
    if defaults is not None and not isinstance(defaults, dict):
        raise hardware_error(f"profile {name}: defaults must be an object")
    constraints = raw.get("constraints") or {}
    if not isinstance(constraints, dict):
        raise hardware_error(f"profile {name}: constraints must be an object")
    multiple = constraints.get("world_size_multiple_of")
    if multiple is not None and not positive_int(multiple):
        raise hardware_error(f"profile {name}: world_size_multiple_of must be a positive integer")
    return Profile(name, raw["max_world_size"], multiple, defaults)


def load_hardware(path: Path) -> Hardware:
    """hardware.yaml: profiles under `profiles`, or every top-level key but `default_profile`."""
    data = load_yaml(path, "hardware.yaml")
    if not isinstance(data, dict):
        raise SynthError("PARSE_ERROR", "hardware.yaml must hold a mapping")
    default = data.get("default_profile")
    if default is not None and not isinstance(default, str):
        raise hardware_error("default_profile must be a string")
    raw = data["profiles"] if "profiles" in data else {k: v for k, v in data.items() if k != "default_profile"}
    if not isinstance(raw, dict) or not raw:
        raise hardware_error("no profiles")
    profiles = {name: read_profile(name, entry) for name, entry in raw.items()}
    if default is not None and default not in profiles:
        raise hardware_error(f"default_profile {default} is not a profile")
    return Hardware(profiles, default)


def load_schema(path: Path) -> Draft7Validator:
    """The JSON Schema (draft 7) of schema.json; one that is not valid JSON or not a valid schema is a parse error."""
    try:
        schema = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=_unique_pairs)
    except (ValueError, SynthError) as error:
        raise SynthError("PARSE_ERROR", f"schema.json: {error}") from error
    try:
        Draft7Validator.check_schema(schema)
    except SchemaError as error:
        raise SynthError("PARSE_ERROR", f"schema.json is not a valid schema: {error.message}") from error
    return Draft7Validator(schema)


def pointer_of(error: object) -> str:
    """The JSON Pointer of the value a schema error is about."""
    return pointer(tuple(str(part) for part in error.absolute_path))


# ---------------------------------------------------------------- runs

@dataclass
class RunResult:
    """What one run leaves: its spec (None when it failed), its warnings, its violation."""

    entry: RunEntry
    spec: dict | None = None
    conflicts: list[tuple[str, str]] = field(default_factory=list)
    deprecations: list[str] = field(default_factory=list)
    violations: list[dict] = field(default_factory=list)

    def warning_lines(self) -> list[str]:
        """Conflicts sorted by pointer (stable), then deprecations, each with the run id."""
        ordered = [text for _, text in sorted(self.conflicts, key=lambda conflict: conflict[0])]
        return [f"CONFLICT {self.entry.run_id} {text}" for text in ordered] + [
            line.replace("FRAGMENT_DEPRECATED ", f"FRAGMENT_DEPRECATED {self.entry.run_id} ", 1)
            for line in self.deprecations]

    def summary(self) -> dict:
        """The run's entry in summary.json."""
        return {"run_id": self.entry.run_id, "status": "ok" if self.spec is not None else "error",
                "warnings": len(self.conflicts) + len(self.deprecations), "conflicts": len(self.conflicts),
                "notes": self.entry.notes}


@dataclass(frozen=True)
class Shared:
    """The inputs every run shares, loaded once."""

    base: object
    defaults: object
    global_flags: tuple[dict, str] | None
    env: dict[str, str]
    fragments: Fragments
    hardware: Hardware
    schema: Draft7Validator


class Run:
    """One manifest row taken through expansion, merging, interpolation and validation."""

    def __init__(self, shared: Shared, entry: RunEntry) -> None:
        self.shared = shared
        self.result = RunResult(entry)
        self.merger = Merger()

    def execute(self) -> RunResult:
        """The run's result; a blocking problem becomes its violation."""
        self.shared.fragments.for_run()
        try:
            self.result.spec = self._build()
        except SynthError as error:
            self.violation(error.code, str(error), error.path or self.result.entry.override)
        except RunRejected:
            pass
        self.result.conflicts = list(self.merger.warnings)
        self.result.deprecations = list(self.shared.fragments.warnings)
        return self.result

    def violation(self, code: str, message: str, path: str) -> None:
        """Record one violation of this run."""
        self.result.violations.append({"run_id": self.result.entry.run_id, "code": code, "message": message,
                                       "path": path})

    def _layers(self) -> list[tuple[object, str]]:
        expand = self.shared.fragments.expand
        base = expand(self.shared.base)
        if not isinstance(base, dict):
            raise SynthError("INVALID_STRUCTURE", "base.yaml must hold an object", "base.yaml")
        entry = self.result.entry
        shared_layers = [(base, "base.yaml"), (expand(self.shared.defaults), "overrides/defaults.yaml")]
        override = require_file(entry.resolve(entry.override), entry.override)
        layers = [(expand(load_yaml(override, entry.override)), entry.override)]
        if entry.flags:
            flags = require_file(entry.resolve(entry.flags), entry.flags)
            layers.append((expand(load_flags(flags, entry.flags)), entry.flags))
        if self.shared.global_flags is not None:
            flags, label = self.shared.global_flags
            layers.append((expand(flags), label))
        self.profile = self._profile([layer for layer, _ in shared_layers + layers])
        return shared_layers + self._hardware_layers() + layers

    def _profile(self, layers: list[object]) -> Profile:
        """The profile the layers name last (interpolated), else the hardware file's default profile."""
        named = [layer["resources"]["profile"] for layer in layers
                 if isinstance(layer, dict) and isinstance(layer.get("resources"), dict)
                 and layer["resources"].get("profile") is not None]
        self.profile_named = bool(named)
        if not named:
            return self.shared.hardware.profile(self.shared.hardware.default_profile)
        if not isinstance(named[-1], str):
            raise SynthError("INVALID_VALUE", "resources.profile must be a string", "/resources/profile")
        name = interpolate(named[-1], self.shared.env, ("resources", "profile"))
        return self.shared.hardware.profile(name)

    def _hardware_layers(self) -> list[tuple[object, str]]:
        source = f"hardware:{self.profile.name}"
        layers = [] if self.profile_named else [({"resources": {"profile": self.profile.name}}, source)]
        if self.profile.defaults is not None:
            layers.append((self.shared.fragments.expand(self.profile.defaults), source))
        return layers

    def _build(self) -> dict:
        for layer, source in self._layers():
            self.merger.add(layer, source)
        fill_from_defaults(self.merger.document, self.shared.defaults)
        spec = interpolate(self.merger.document, self.shared.env)
        validate(spec)
        self._check(spec)
        return spec

    def _check(self, spec: dict) -> None:
        """The profile's limits, then the schema; every failure is a violation, and any rejects the run."""
        for message in self.profile.breaches(spec["resources"].get("world_size")):
            self.violation("HARDWARE_CONSTRAINT", message, "/resources/world_size")
        if not self.result.violations:
            for error in sorted(self.shared.schema.iter_errors(spec), key=lambda error: pointer_of(error)):
                self.violation("SCHEMA_ERROR", error.message, pointer_of(error))
        if self.result.violations:
            raise RunRejected


# ---------------------------------------------------------------- outputs

def canonical(value: object) -> str:
    """Compact JSON with sorted keys and one final newline."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_outputs(out: Path, results: list[RunResult]) -> None:
    """out/<run_id>.json of each run that succeeded, summary.json, warnings.txt, violations.ndjson."""
    (out / "out").mkdir(exist_ok=True)
    for result in results:
        if result.spec is not None:
            (out / "out" / f"{result.entry.run_id}.json").write_text(canonical(result.spec), encoding="utf-8")
    succeeded = sum(result.spec is not None for result in results)
    summary = {"total_runs": len(results), "succeeded": succeeded, "failed": len(results) - succeeded,
               "runs": [result.summary() for result in results]}
    (out / "summary.json").write_text(canonical(summary), encoding="utf-8")
    lines = [line for result in results for line in result.warning_lines()]
    (out / "warnings.txt").write_text("".join(f"{line}\n" for line in lines) or "\n", encoding="utf-8")
    violations = [item for result in results for item in result.violations]
    (out / "violations.ndjson").write_text("".join(canonical(item) for item in violations), encoding="utf-8")


def load_shared(args: dict[str, str]) -> tuple[Shared, list[RunEntry]]:
    """Everything loaded before the runs; any problem here is blocking for the whole command."""
    base_path = require_file(Path(args["--base"]), "base.yaml")
    defaults_path = require_file(Path(args["--overrides"]) / "defaults.yaml", "overrides/defaults.yaml")
    manifest_path = require_file(Path(args["--manifest"]), "manifest")
    schema_path = require_file(Path(args["--schema"]), "schema.json")
    hardware_path = require_file(Path(args["--hardware"]), "hardware.yaml")
    env = load_env(Path(args["--env"]))
    fragments = Fragments(Path(args["--fragments"]))
    base = load_yaml(base_path, "base.yaml")
    defaults = load_yaml(defaults_path, "overrides/defaults.yaml")
    entries = read_manifest(manifest_path)
    flags_path = Path(args["--flags"])
    global_flags = (load_flags(flags_path, args["--flags"]), args["--flags"]) if flags_path.exists() else None
    hardware = load_hardware(hardware_path)
    schema = load_schema(schema_path)
    return Shared(base, defaults, global_flags, env, fragments, hardware, schema), entries


def build(args: dict[str, str]) -> None:
    """Load what the runs share, run every manifest row, write the outputs; all runs failing is blocking."""
    out = Path(args["--out"])
    if out.exists() and not out.is_dir():
        raise SynthError("MISSING_FILE", f"--out is not a directory: {out}")
    out.mkdir(parents=True, exist_ok=True)
    shared, entries = load_shared(args)
    results = [Run(shared, entry).execute() for entry in entries]
    write_outputs(out, results)
    if not any(result.spec is not None for result in results):
        raise SynthError("RUN_FAILURE", "every run failed")


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
