"""Parsing raw config and schema text (JSON, YAML restricted to JSON, TOML) into JSON values."""

from __future__ import annotations

import datetime
import json
import math
import re
import tomllib

import yaml
from errors import ApiError


def unprocessable(message: str, reason: str | None = None) -> ApiError:
    return ApiError(422, "unprocessable", message, {"reason": reason} if reason else {})


def yaml_refused(message: str) -> ApiError:
    return unprocessable(message, "yaml_feature_not_allowed")


# ------------------------------------------------------------------ JSON

def reject_constant(name: str):
    raise unprocessable(f"{name} is not valid JSON", "json_parse_error")


def parse_json(text: str):
    try:
        return json.loads(text, parse_constant=reject_constant)
    except ValueError as err:
        raise unprocessable(f"invalid JSON: {err}", "json_parse_error") from None


# ------------------------------------------------------------------ YAML (1.2 core schema)

class CoreLoader(yaml.SafeLoader):
    """SafeLoader with the YAML 1.2 core schema's implicit scalar resolution."""


CoreLoader.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in [
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    ("float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
              r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+0123456789."),
]:
    CoreLoader.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", re.compile(_pattern), list(_first))


def _core_int(loader: CoreLoader, node: yaml.ScalarNode) -> int:
    text = loader.construct_scalar(node)
    if text.startswith(("0o", "0x")):
        return int(text[2:], 8 if text[1] == "o" else 16)
    return int(text, 10)


def _core_bool(loader: CoreLoader, node: yaml.ScalarNode) -> bool:
    return loader.construct_scalar(node).lower() == "true"


CoreLoader.add_constructor("tag:yaml.org,2002:int", _core_int)
CoreLoader.add_constructor("tag:yaml.org,2002:bool", _core_bool)

ALLOWED_TAGS = {f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq")}


def check_yaml_event(event) -> None:
    if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
        raise yaml_refused("YAML anchors and aliases are not allowed")
    tag = getattr(event, "tag", None)
    explicit = tag is not None and not (isinstance(event, yaml.ScalarEvent) and event.implicit[0])
    if explicit and tag not in ALLOWED_TAGS and tag != "!":
        raise yaml_refused(f"YAML tag {tag} is not allowed")


def check_yaml_keys(value) -> None:
    if isinstance(value, list):
        for item in value:
            check_yaml_keys(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str) or key == "<<":
                raise yaml_refused(f"YAML mapping key {key!r} is not allowed")
            check_yaml_keys(item)


def parse_yaml(text: str):
    try:
        for event in yaml.parse(text, Loader=CoreLoader):
            check_yaml_event(event)
        value = yaml.load(text, Loader=CoreLoader)  # noqa: S506 - CoreLoader derives from SafeLoader
    except yaml.YAMLError as err:
        raise unprocessable(f"invalid YAML: {err}", "yaml_parse_error") from None
    check_yaml_keys(value)
    check_json_values(value)
    return value


# ------------------------------------------------------------------ TOML

NON_JSON = (datetime.datetime, datetime.date, datetime.time)


def check_json_values(value) -> None:
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            check_json_values(item)
    elif isinstance(value, NON_JSON) or (isinstance(value, float) and not math.isfinite(value)):
        raise unprocessable(f"value {value!r} has no JSON equivalent", "non_json_type")


def parse_toml(text: str):
    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise unprocessable(f"invalid TOML: {err}", "toml_parse_error") from None
    check_json_values(value)
    return value


PARSERS = {"json": parse_json, "yaml": parse_yaml, "toml": parse_toml}


def parse_raw(text, fmt, allowed: tuple[str, ...]):
    """Parse ``text`` written in ``fmt``, one of ``allowed``."""
    if not isinstance(text, str):
        raise ApiError(400, "invalid_input", "raw text must be a string")
    if fmt not in allowed:
        raise ApiError(415, "unsupported_format", f"raw_format must be one of {', '.join(allowed)}")
    return PARSERS[fmt](text)
