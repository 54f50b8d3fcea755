"""Versioned configuration service: drafts, includes, schemas, raw formats, proposals and reviews."""

from __future__ import annotations

import argparse
import json
import signal
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from operator import itemgetter
from urllib.parse import unquote, urlsplit

from diffs import diff_artifacts
from errors import ApiError, bad_input, conflict, not_found
from raw_formats import parse_raw
from schemas import Registry, parse_ref, validate
from workflow import (
    CLOSED,
    STATUSES,
    Workflow,
    actor,
    approval_required,
    base_version,
    labels,
    optional_text,
    parse_policy,
    policy_violation,
    stale_base,
)

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
        self.activated: set[int] = set()

    def get(self, version: int) -> dict | None:
        return self.versions[version - 1] if 1 <= version <= len(self.versions) else None

    def status(self, version: int) -> str:
        if version == self.active:
            return "active"
        return "inactive" if version in self.activated else "draft"

    def activate(self, version: int) -> None:
        self.active = version
        self.activated.add(version)

    def summary(self, version: int) -> dict:
        return {"name": self.name, "scope": self.scope, "version": version, "active": version == self.active,
                "status": self.status(version)}

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

    def version_of(self, name: str, scope: dict, version: int | None, newest: bool = False) -> int:
        """``version``, checked; without one the active version (the newest one if ``newest`` and none is)."""
        pair = self.pair(name, scope)
        if version is None and pair.active is None and not newest:
            raise not_found(f"{name!r} has no active version for this scope")
        if version is None:
            return pair.active or len(pair.versions)
        if pair.get(version) is None:
            raise not_found(f"version {version} of {name!r} does not exist")
        return version

    def create(self, name: str, scope: dict, config: dict, includes: list | None, inherit: bool, check) -> dict:
        pair = self.pairs.setdefault((name, canonical(scope)), Pair(name, scope))
        if len(pair.versions) >= MAX_VERSIONS:
            raise conflict("version limit reached for this config")
        base = pair.get(pair.active) if inherit and pair.active else None
        if base is not None:
            config = deep_merge(base["config"], config)
            includes = base["includes"] if includes is None else includes
        check(config)
        pair.versions.append({"config": config, "includes": includes or []})
        return pair.summary(len(pair.versions))


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
        active = self.store.pair(ref["name"], ref["scope"]).active
        if active is None:
            raise not_found(f"included config {ref['name']!r} has no active version")
        return active

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
        self.workflow = Workflow()

    def schema_for(self, name: str, scope: dict, body: dict):
        return self.registry.effective(canonical([name, scope]), parse_ref(body.get("schema_ref")))

    def create(self, name: str, body: dict):
        scope = parse_scope(body.get("scope"))
        config = config_from_body(body)
        includes = parse_includes(body.get("includes"))
        inherit = optional_bool(body, "inherits_active")
        _, schema = self.schema_for(name, scope, body)
        return 201, self.store.create(name, scope, config, includes, inherit,
                                      lambda stored: schema and validate(schema, stored))

    def versions(self, name: str, body: dict):
        pair = self.store.pair(name, parse_scope(body.get("scope")))
        listed = [{key: value for key, value in pair.summary(n).items() if key in ("version", "active", "status")}
                  for n in range(1, len(pair.versions) + 1)]
        return 200, {"name": name, "scope": pair.scope, "versions": listed}

    def active(self, name: str, body: dict):
        scope = parse_scope(body.get("scope"))
        return 200, self.store.pair(name, scope).detail(self.store.version_of(name, scope, None))

    def get_version(self, name: str, version: int, body: dict):
        scope = parse_scope(body.get("scope"))
        return 200, self.store.pair(name, scope).detail(self.store.version_of(name, scope, version))

    def activate(self, name: str, version: int, body: dict):
        scope = parse_scope(body.get("scope"))
        proposal_id = body.get("proposal_id")
        if proposal_id is None:
            raise approval_required("activation needs an approved proposal (proposal_id)")
        proposal = self.workflow.find(positive_int(proposal_id, "proposal_id"))
        target = None if proposal is None else itemgetter("name", "scope", "draft_version")(proposal.fields)
        if target != (name, scope, version):
            raise approval_required(f"proposal {proposal_id} is not a proposal for this version")
        if proposal.status not in ("approved", "merged"):
            raise approval_required(f"proposal {proposal_id} is {proposal.status}, not approved")
        return self.merge(proposal)

    def rollback(self, name: str, body: dict):
        if body.get("proposal_id") is None:
            raise approval_required("rollback needs an approved proposal (proposal_id)")
        return self.activate(name, positive_int(body.get("to_version"), "to_version"), body)

    def resolved(self, name: str, scope: dict, version: int | None, newest: bool = False):
        used = self.store.version_of(name, scope, version, newest)
        resolver = Resolver(self.store)
        return used, resolver.resolve(name, scope, used), resolver.graph

    def resolve(self, name: str, body: dict):
        scope = parse_scope(body.get("scope"))
        dry_run = optional_bool(body, "dry_run")
        ref, schema = self.schema_for(name, scope, body)
        used, resolved, graph = self.resolved(name, scope, optional_version(body), dry_run)
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

    # -------------------------------------------------------------- workflow

    def policy(self, name: str, body: dict):
        scope = parse_scope(body.get("scope"))
        key = (name, canonical(scope))
        if any(field in body for field in ("required_approvals", "allow_author_approval", "allowed_reviewers")):
            self.workflow.policies[key] = parse_policy(body)
        return 200, {"name": name, "scope": scope, **self.workflow.policy(key)}

    def version_state(self, pair: Pair, version: int) -> dict:
        """What a diff compares: stored config, includes and resolved config (empty for version 0)."""
        if version == 0:
            return {"config": {}, "includes": [], "resolved": {}}
        record = pair.get(version)
        return {**record, "resolved": Resolver(self.store).resolve(pair.name, pair.scope, version)}

    def checked_draft(self, pair: Pair, version: int) -> dict:
        """The draft's state, validated against the pair's bound schema (stored config, then resolved)."""
        draft = self.version_state(pair, version)
        _, schema = self.registry.effective(canonical([pair.name, pair.scope]), None)
        for document in (draft["config"], draft["resolved"]) if schema else ():
            validate(schema, document)
        return draft

    def propose(self, name: str, version: int, body: dict):
        scope = parse_scope(body.get("scope"))
        fields = {"name": name, "scope": scope, "draft_version": version,
                  "author": actor(body.get("author"), "author"), "base_version": base_version(body.get("base_version")),
                  "title": optional_text(body, "title", 200), "description": optional_text(body, "description", 8192),
                  "labels": labels(body.get("labels")), "pair_key": (name, canonical(scope))}
        pair = self.store.pair(name, scope)
        if pair.get(version) is None or pair.status(version) != "draft":
            raise conflict(f"version {version} of {name!r} is not a draft of this config")
        if (pair.active or 0) != fields["base_version"]:
            raise stale_base(f"the active version is {pair.active or 0}, not {fields['base_version']}")
        draft = self.checked_draft(pair, version)
        fields["diffs"] = diff_artifacts(self.version_state(pair, fields["base_version"]), draft)
        return 201, self.workflow.open(fields).document()

    def proposals(self, name: str, body: dict):
        scope = parse_scope(body.get("scope"))
        wanted = body.get("status", "any")
        if wanted not in STATUSES:
            raise bad_input(f"status must be one of {', '.join(STATUSES)}")
        listed = self.workflow.of_pair((name, canonical(scope)))
        return 200, {"proposals": [p.document() for p in listed if wanted in ("any", p.status)]}

    def merge(self, proposal, body: dict | None = None):
        if proposal.status == "merged":
            return 200, proposal.merge_result
        if proposal.status in ("withdrawn", "superseded"):
            return 200, proposal.document()
        fields = proposal.fields
        if proposal.status != "approved":
            raise approval_required(f"proposal {fields['proposal_id']} is {proposal.status}, not approved")
        pair = self.store.pair(fields["name"], fields["scope"])
        if (pair.active or 0) != fields["base_version"]:
            raise stale_base(f"the active version is {pair.active or 0}, not {fields['base_version']}")
        try:
            self.checked_draft(pair, fields["draft_version"])
        except ApiError as err:
            raise ApiError(409, "not_mergeable", err.message, err.details) from None
        result = {"proposal_id": fields["proposal_id"], "activated_version": fields["draft_version"],
                  "previous_active": pair.active}
        pair.activate(fields["draft_version"])
        return 200, self.workflow.merged(proposal, result)

    def review(self, proposal, body: dict):
        name = actor(body.get("actor"))
        decision = body.get("decision")
        message = body.get("message")
        if decision not in ("approve", "reject"):
            raise bad_input("decision must be 'approve' or 'reject'")
        if message is not None and not isinstance(message, str):
            raise bad_input("message must be a string")
        if proposal.status not in CLOSED:
            proposal.review(name, decision, message)
        return 200, proposal.document()

    def withdraw(self, proposal, body: dict):
        name = actor(body.get("actor"))
        optional_text(body, "reason", MAX_BODY)
        if proposal.status not in CLOSED:
            if name != proposal.fields["author"]:
                raise policy_violation("only the author may withdraw a proposal")
            proposal.status = "withdrawn"
        return 200, proposal.document()

    def get_proposal(self, proposal, body: dict):
        return 200, proposal.document()


NAME_ACTIONS = {None: "create", "versions": "versions", "active": "active", "rollback": "rollback",
                "resolve": "resolve", "bind": "bind", "validate": "validate", "policy": "policy"}
VERSION_ACTIONS = {None: "get_version", "activate": "activate", "propose": "propose"}
PROPOSAL_ACTIONS = {"get": "get_proposal", "review": "review", "withdraw": "withdraw", "merge": "merge"}


def split_action(segment: str) -> tuple[str, str | None]:
    base, sep, action = segment.partition(":")
    return unquote(base), (action if sep else None)


def route_schema(service: Service, parts: list[str], body: dict):
    name = unquote(parts[3])
    if len(parts) > 5:
        raise not_found("unknown endpoint")
    if len(parts) == 4:
        return 201, service.registry.create(name, body)
    if parts[4] == "versions":
        return 200, service.registry.versions(name)
    version = positive_int(parts[4], "schema_version")
    return 200, {"name": name, "version": version, "schema": service.registry.get(name, version)}


def route_version(service: Service, name: str, segment: str, body: dict):
    if segment == "schema":
        return service.binding(name, body)
    if segment == "proposals:list":
        return service.proposals(name, body)
    version_text, version_action = split_action(segment)
    if version_action not in VERSION_ACTIONS:
        raise not_found("unknown endpoint")
    return getattr(service, VERSION_ACTIONS[version_action])(name, positive_int(version_text, "version"), body)


def route_config(service: Service, parts: list[str], body: dict):
    name, action = split_action(parts[3])
    if len(parts) == 4 and action in NAME_ACTIONS:
        return getattr(service, NAME_ACTIONS[action])(name, body)
    if len(parts) == 5 and action is None:
        return route_version(service, name, parts[4], body)
    if len(parts) == 6 and action is None and parts[4] == "versions" and parts[5].endswith(":activate"):
        return route_version(service, name, parts[5], body)
    raise not_found("unknown endpoint")


def route_proposal(service: Service, parts: list[str], body: dict):
    number, action = split_action(parts[3])
    if len(parts) != 4 or action not in PROPOSAL_ACTIONS:
        raise not_found("unknown endpoint")
    proposal = service.workflow.get(positive_int(number, "proposal_id"))
    return getattr(service, PROPOSAL_ACTIONS[action])(proposal, body)


ROUTES = {"schemas": route_schema, "configs": route_config, "proposals": route_proposal}


def route(service: Service, path: str, body: dict):
    parts = path.split("/")
    if not 4 <= len(parts) <= 6 or parts[:2] != ["", "v1"] or not parts[3] or parts[2] not in ROUTES:
        raise not_found("unknown endpoint")
    return ROUTES[parts[2]](service, parts, body)


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
