"""Versioned configuration service: versions, scopes, rollback, includes, schemas, raw formats."""

from __future__ import annotations

import argparse
import json
import signal
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

from errors import ApiError, bad_input, conflict, not_found
from raw_formats import parse_raw
from schemas import Registry, parse_ref, validate

MAX_BODY = 1024 * 1024
MAX_VERSIONS = 10_000
MAX_CHAIN = 64


def too_deep() -> ApiError:
    return ApiError(422, "unprocessable", "include chain too long", {"reason": "max_depth"})


def canonical(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# ------------------------------------------------------------------ input checks

def require_object(value, field: str) -> dict:
    if not isinstance(value, dict):
        raise bad_input(f"{field} must be a JSON object")
    return value


def is_positive_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def positive_int(value, field: str) -> int:
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if not is_positive_int(value):
        raise bad_input(f"{field} must be a positive integer")
    return value


def optional_version(body: dict, field: str = "version") -> int | None:
    value = body.get(field)
    return None if value is None else positive_int(value, field)


def parse_scope(value, field: str = "scope") -> dict:
    scope = require_object(value, field)
    if not all(isinstance(v, str) for v in scope.values()):
        raise bad_input(f"{field} values must be strings")
    return dict(sorted(scope.items()))


def optional_bool(body: dict, field: str) -> bool:
    value = body.get(field, False)
    if not isinstance(value, bool):
        raise bad_input(f"{field} must be a boolean")
    return value


def parse_include(item) -> dict:
    ref = require_object(item, "include")
    name = ref.get("name")
    if not isinstance(name, str) or not name:
        raise bad_input("include name must be a non-empty string")
    return {"name": name, "scope": parse_scope(ref.get("scope"), "include scope"),
            "version": optional_version(ref)}


def parse_includes(value) -> list[dict] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise bad_input("includes must be a list")
    return [parse_include(item) for item in value]


# ------------------------------------------------------------------ deep merge

def pointer(path: tuple) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def kinds_clash(left, right) -> bool:
    return (isinstance(left, dict) != isinstance(right, dict)
            or isinstance(left, list) != isinstance(right, list))


def merge_value(left, right, path: tuple):
    if isinstance(left, dict) and isinstance(right, dict):
        return deep_merge(left, right, path)
    if kinds_clash(left, right):
        raise ApiError(422, "unprocessable", "incompatible types while merging", {"path": pointer(path)})
    return right


def deep_merge(left: dict, right: dict, path: tuple = ()) -> dict:
    merged = dict(left)
    for key, value in right.items():
        merged[key] = merge_value(merged[key], value, path + (key,)) if key in merged else value
    return merged


# ------------------------------------------------------------------ storage

class Pair:
    """All versions of one (name, scope)."""

    def __init__(self, name: str, scope: dict):
        self.name = name
        self.scope = scope
        self.versions: list[dict] = []
        self.active: int | None = None
        self.seen: dict[str, int] = {}

    def get(self, version: int) -> dict | None:
        return self.versions[version - 1] if 1 <= version <= len(self.versions) else None

    def summary(self, version: int) -> dict:
        return {"name": self.name, "scope": self.scope, "version": version, "active": version == self.active}

    def detail(self, version: int) -> dict:
        record = self.get(version)
        return {**self.summary(version), "config": record["config"], "includes": record["includes"]}


class Store:
    def __init__(self):
        self.pairs: dict[tuple[str, str], Pair] = {}
        self.lock = threading.RLock()

    def find(self, name: str, scope: dict) -> Pair | None:
        return self.pairs.get((name, canonical(scope)))

    def pair(self, name: str, scope: dict) -> Pair:
        found = self.find(name, scope)
        if found is None:
            raise not_found(f"no config {name!r} for this scope")
        return found

    def version_of(self, name: str, scope: dict, version: int | None) -> int:
        pair = self.pair(name, scope)
        if version is None:
            return pair.active
        if pair.get(version) is None:
            raise not_found(f"version {version} of {name!r} does not exist")
        return version

    def create(self, name: str, scope: dict, config: dict, includes: list | None, inherit: bool, check):
        key = canonical([config, includes, inherit])
        pair = self.pairs.setdefault((name, canonical(scope)), Pair(name, scope))
        if key in pair.seen:
            return pair.summary(pair.seen[key]), False
        if len(pair.versions) >= MAX_VERSIONS:
            raise conflict("version limit reached for this config")
        base = pair.get(pair.active) if inherit and pair.active else None
        if base is not None:
            config = deep_merge(base["config"], config)
            includes = base["includes"] if includes is None else includes
        check(config)
        pair.versions.append({"config": config, "includes": includes or []})
        pair.active = len(pair.versions)
        pair.seen[key] = pair.active
        return pair.summary(pair.active), True


class Resolver:
    """Depth-first include resolution with cycle detection and provenance."""

    def __init__(self, store: Store):
        self.store = store
        self.graph: list[dict] = []
        self.done: dict[str, dict] = {}
        self.stack: list[str] = []

    def include_version(self, ref: dict) -> int:
        if ref["version"] is not None:
            return ref["version"]
        return self.store.pair(ref["name"], ref["scope"]).active

    def resolve(self, name: str, scope: dict, version: int) -> dict:
        key = canonical([name, scope, version])
        if key in self.done:
            return self.done[key]
        if key in self.stack:
            raise ApiError(409, "cycle_detected", f"include cycle through {name!r} v{version}")
        if len(self.stack) >= MAX_CHAIN:
            raise too_deep()
        record = self.store.pair(name, scope).get(version)
        if record is None:
            raise not_found(f"version {version} of {name!r} does not exist")
        self.stack.append(key)
        merged: dict = {}
        for ref in record["includes"]:
            merged = deep_merge(merged, self.resolve(ref["name"], ref["scope"], self.include_version(ref)))
        merged = deep_merge(merged, record["config"])
        self.stack.pop()
        self.record(key, {"name": name, "scope": scope, "version_used": version}, merged)
        return merged

    def record(self, key: str, node: dict, merged: dict) -> None:
        if len(self.graph) >= MAX_CHAIN:
            raise too_deep()
        self.graph.append(node)
        self.done[key] = merged


# ------------------------------------------------------------------ endpoints

def config_from_body(body: dict) -> dict:
    if ("config" in body) == ("raw_config" in body):
        raise bad_input("give exactly one of config and raw_config")
    if "config" in body:
        return require_object(body["config"], "config")
    parsed = parse_raw(body["raw_config"], body.get("raw_format"), ("json", "yaml", "toml"))
    if not isinstance(parsed, dict):
        raise ApiError(422, "unprocessable", "the parsed config must be a JSON object")
    return parsed


class Service:
    def __init__(self):
        self.store = Store()
        self.registry = Registry()

    def schema_for(self, name: str, scope: dict, body: dict):
        return self.registry.effective(canonical([name, scope]), parse_ref(body.get("schema_ref")))

    def create(self, name: str, body: dict):
        scope = parse_scope(body.get("scope"))
        config = config_from_body(body)
        includes = parse_includes(body.get("includes"))
        inherit = optional_bool(body, "inherits_active")
        _, schema = self.schema_for(name, scope, body)
        summary, created = self.store.create(
            name, scope, config, includes, inherit, lambda stored: schema and validate(schema, stored))
        return (201 if created else 200), summary

    def versions(self, name: str, body: dict):
        pair = self.store.pair(name, parse_scope(body.get("scope")))
        listed = [{"version": n, "active": n == pair.active} for n in range(1, len(pair.versions) + 1)]
        return 200, {"name": name, "scope": pair.scope, "versions": listed}

    def active(self, name: str, body: dict):
        pair = self.store.pair(name, parse_scope(body.get("scope")))
        return 200, pair.detail(pair.active)

    def get_version(self, name: str, version: int, body: dict):
        scope = parse_scope(body.get("scope"))
        return 200, self.store.pair(name, scope).detail(self.store.version_of(name, scope, version))

    def activate(self, name: str, version: int, body: dict):
        pair = self.store.pair(name, parse_scope(body.get("scope")))
        if pair.get(version) is None:
            raise conflict(f"version {version} does not exist for this config")
        pair.active = version
        return 200, pair.summary(version)

    def rollback(self, name: str, body: dict):
        target = positive_int(body.get("to_version"), "to_version")
        pair = self.store.pair(name, parse_scope(body.get("scope")))
        if target > pair.active:
            raise conflict("rollback target must not be newer than the active version")
        return self.activate(name, target, body)

    def resolved(self, name: str, scope: dict, version: int | None):
        used = self.store.version_of(name, scope, version)
        resolver = Resolver(self.store)
        return used, resolver.resolve(name, scope, used), resolver.graph

    def resolve(self, name: str, body: dict):
        scope = parse_scope(body.get("scope"))
        optional_bool(body, "dry_run")
        ref, schema = self.schema_for(name, scope, body)
        used, resolved, graph = self.resolved(name, scope, optional_version(body))
        answer = {"name": name, "scope": scope, "version_used": used,
                  "resolved_config": resolved, "resolution_graph": graph}
        if schema is not None:
            validate(schema, resolved)
            answer["validated_against"] = ref
        return 200, answer

    def validate(self, name: str, body: dict):
        scope = parse_scope(body.get("scope"))
        mode = body.get("mode", "resolved")
        if mode not in ("stored", "resolved"):
            raise bad_input("mode must be 'stored' or 'resolved'")
        ref, schema = self.schema_for(name, scope, body)
        if schema is None:
            raise ApiError(404, "schema_not_bound", "no schema applies to this config")
        version = optional_version(body)
        if mode == "stored":
            used = self.store.version_of(name, scope, version)
            document = self.store.pair(name, scope).get(used)["config"]
        else:
            used, document, _ = self.resolved(name, scope, version)
        validate(schema, document)
        return 200, {"name": name, "scope": scope, "version_used": used, "mode": mode,
                     "valid": True, "validated_against": ref}

    def bind(self, name: str, body: dict):
        scope = parse_scope(body.get("scope"))
        ref = parse_ref(body.get("schema_ref"))
        if ref is None:
            raise bad_input("schema_ref is required")
        self.registry.bind(canonical([name, scope]), ref)
        return 200, {"name": name, "scope": scope, "schema_ref": {"name": ref[0], "version": ref[1]}, "active": True}

    def binding(self, name: str, body: dict):
        scope = parse_scope(body.get("scope"))
        ref = self.registry.bindings.get(canonical([name, scope]))
        if ref is None:
            raise not_found(f"no schema is bound to {name!r} for this scope")
        return 200, {"name": name, "scope": scope, "schema_ref": ref}


NAME_ACTIONS = {None: "create", "versions": "versions", "active": "active", "rollback": "rollback",
                "resolve": "resolve", "bind": "bind", "validate": "validate"}


def split_action(segment: str) -> tuple[str, str | None]:
    base, sep, action = segment.partition(":")
    return unquote(base), (action if sep else None)


def route_schema(service: Service, parts: list[str], body: dict):
    name = unquote(parts[3])
    if len(parts) == 4:
        return 201, service.registry.create(name, body)
    if parts[4] == "versions":
        return 200, service.registry.versions(name)
    version = positive_int(parts[4], "schema_version")
    return 200, {"name": name, "version": version, "schema": service.registry.get(name, version)}


def route_version(service: Service, name: str, segment: str, body: dict):
    if segment == "schema":
        return service.binding(name, body)
    version_text, version_action = split_action(segment)
    version = positive_int(version_text, "version")
    if version_action is None:
        return service.get_version(name, version, body)
    if version_action == "activate":
        return service.activate(name, version, body)
    raise not_found("unknown endpoint")


def route_config(service: Service, parts: list[str], body: dict):
    name, action = split_action(parts[3])
    if len(parts) == 4 and action in NAME_ACTIONS:
        return getattr(service, NAME_ACTIONS[action])(name, body)
    if len(parts) == 5 and action is None:
        return route_version(service, name, parts[4], body)
    raise not_found("unknown endpoint")


def route(service: Service, path: str, body: dict):
    parts = path.split("/")
    if len(parts) not in (4, 5) or parts[:2] != ["", "v1"] or not parts[3]:
        raise not_found("unknown endpoint")
    if parts[2] == "schemas":
        return route_schema(service, parts, body)
    if parts[2] == "configs":
        return route_config(service, parts, body)
    raise not_found("unknown endpoint")


# ------------------------------------------------------------------ HTTP

class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes; avoid 40 ms delayed ACKs
    service: Service

    def log_message(self, *args) -> None:
        pass

    def send(self, status: int, payload: dict) -> None:
        data = (canonical(payload) + "\n").encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def raw_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def json_body(self) -> dict:
        raw = self.raw_body()
        if len(raw) > MAX_BODY:
            raise ApiError(413, "too_large", "request body exceeds 1 MiB")
        try:
            body = json.loads(raw.decode("utf-8")) if raw else {}
        except (UnicodeDecodeError, ValueError):
            raise bad_input("request body is not valid JSON") from None
        return require_object(body, "request body")

    def do_GET(self) -> None:
        if urlsplit(self.path).path == "/healthz":
            self.send(200, {"ok": True})
        else:
            self.reject()

    def do_POST(self) -> None:
        try:
            body = self.json_body()
            with self.service.store.lock:
                self.send(*route(self.service, urlsplit(self.path).path, body))
        except ApiError as err:
            self.send(err.status, err.body())
        except Exception as exc:  # noqa: BLE001 - last-resort 500 in the error envelope
            self.send(500, ApiError(500, "internal", str(exc)).body())

    def reject(self) -> None:
        self.raw_body()
        if urlsplit(self.path).path.startswith("/v1/"):
            self.send(405, ApiError(405, "method_not_allowed", f"{self.command} is not supported here").body())
        else:
            self.send(404, not_found("unknown endpoint").body())

    do_PUT = do_DELETE = do_PATCH = reject


def main() -> None:
    parser = argparse.ArgumentParser(description="Versioned configuration service")
    parser.add_argument("--address", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    server = ThreadingHTTPServer((args.address, args.port), type("BoundHandler", (Handler,), {"service": Service()}))
    server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=server.shutdown).start())
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
