"""Schema registry, bindings of config pairs to schema versions, and validation reports."""

from __future__ import annotations

from errors import ApiError, bad_input, conflict, not_found
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from raw_formats import parse_raw

MAX_SCHEMA_VERSIONS = 1000
MAX_RAW = 1024 * 1024
JSON_TYPES = [(bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
              (list, "array"), (dict, "object"), (type(None), "null")]


def pointer(path) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def json_type(value) -> str:
    return next(name for kind, name in JSON_TYPES if isinstance(value, kind))


def schema_invalid(message: str, details: dict | None = None) -> ApiError:
    return ApiError(422, "schema_invalid", message, details)


def external_refs(node) -> list[str]:
    if isinstance(node, list):
        return [ref for item in node for ref in external_refs(item)]
    if not isinstance(node, dict):
        return []
    own = [node["$ref"]] if "$ref" in node and not str(node["$ref"]).startswith("#") else []
    return own + [ref for value in node.values() for ref in external_refs(value)]


def check_schema(schema) -> None:
    if not isinstance(schema, dict):
        raise schema_invalid("a schema must be a JSON object")
    refs = external_refs(schema)
    if refs:
        raise schema_invalid(f"reference {refs[0]!r} leaves the document", {"reason": "external_ref_not_allowed"})
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as err:
        raise schema_invalid(f"not a valid Draft 2020-12 schema: {err.message}") from None


def describe(value) -> str:
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def validation_details(error) -> dict:
    found = json_type(error.instance)
    expected = describe(error.validator_value)
    if error.validator != "type":
        found = describe(error.instance) if not isinstance(error.instance, (dict, list)) else found
    return {"path": pointer(error.absolute_path), "rule": error.validator, "expected": expected, "actual": found}


def validate(schema: dict, document) -> None:
    errors = sorted(Draft202012Validator(schema).iter_errors(document), key=lambda e: pointer(e.absolute_path))
    if errors:
        raise ApiError(422, "validation_failed", "Config does not conform to schema", validation_details(errors[0]))


def parse_ref(value) -> tuple[str, int] | None:
    if value is None:
        return None
    ok = isinstance(value, dict) and isinstance(value.get("name"), str) and value["name"]
    version = value.get("version") if ok else None
    if not ok or not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise bad_input("schema_ref must be {name: non-empty string, version: positive integer}")
    return value["name"], version


def schema_from_body(body: dict):
    has_schema, has_raw = "schema" in body, "raw_schema" in body
    if has_schema == has_raw:
        raise bad_input("give exactly one of schema and raw_schema")
    if has_schema:
        return body["schema"]
    raw = body["raw_schema"]
    if isinstance(raw, str) and len(raw.encode("utf-8")) > MAX_RAW:
        raise ApiError(413, "too_large", "raw_schema exceeds 1 MiB")
    return parse_raw(raw, body.get("raw_format"), ("json", "yaml"))


class Registry:
    """Schema versions per name, and the binding of each config pair."""

    def __init__(self):
        self.schemas: dict[str, list[dict]] = {}
        self.bindings: dict[str, dict] = {}

    def create(self, name: str, body: dict) -> dict:
        schema = schema_from_body(body)
        check_schema(schema)
        versions = self.schemas.setdefault(name, [])
        if len(versions) >= MAX_SCHEMA_VERSIONS:
            raise conflict("schema version limit reached")
        versions.append(schema)
        return {"name": name, "version": len(versions)}

    def versions(self, name: str) -> dict:
        if name not in self.schemas:
            raise not_found(f"no schema named {name!r}")
        return {"name": name, "versions": [{"version": n + 1} for n in range(len(self.schemas[name]))]}

    def get(self, name: str, version: int, missing_version: ApiError | None = None) -> dict:
        if name not in self.schemas:
            raise not_found(f"no schema named {name!r}")
        if not 1 <= version <= len(self.schemas[name]):
            raise missing_version or not_found(f"schema {name!r} has no version {version}")
        return self.schemas[name][version - 1]

    def bind(self, pair_key: str, ref: tuple[str, int]) -> None:
        self.get(*ref, missing_version=conflict(f"schema {ref[0]!r} has no version {ref[1]}"))
        self.bindings[pair_key] = {"name": ref[0], "version": ref[1]}

    def effective(self, pair_key: str, ref: tuple[str, int] | None) -> tuple[dict | None, dict | None]:
        """(schema_ref, schema) that applies to a request, or (None, None)."""
        chosen = {"name": ref[0], "version": ref[1]} if ref else self.bindings.get(pair_key)
        if chosen is None:
            return None, None
        return chosen, self.get(chosen["name"], chosen["version"])
