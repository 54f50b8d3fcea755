"""Policy bundles (Rego modules run by rego-cpp), bindings to scope selectors, stacks and evaluation results."""

from __future__ import annotations

import base64
import binascii
import io
import json
import re
import tarfile
import threading
import time
from functools import partial

from errors import ApiError, bad_input
from regopy import Interpreter, RegoError

MAX_BUNDLES = 500
MAX_BUNDLE_VERSIONS = 200
MAX_BINDINGS = 5000
MAX_MODULE_BYTES = 1024 * 1024
MAX_VIOLATIONS = 1000
BUDGET_S = 0.5
DEFAULT_GRAPH_KEYS = ["env", "tenant"]
ENTRYPOINTS = (("deny", "error"), ("warn", "warn"))
SEVERITY_ORDER = {"error": 0, "warn": 1}
FORBIDDEN_CALL = re.compile(r"\b(http\.send|net\.[a-z_.]+|opa\.runtime)\s*\(")
QUERY = ("t := type_name(data.guardrails.{rule}); keys := [k | data.guardrails.{rule}[k]]; "
         "values := [v | v := data.guardrails.{rule}[_]]")


policy_invalid = partial(ApiError, 422, "policy_invalid")
policy_not_found = partial(ApiError, 404, "policy_not_found")
policy_conflict = partial(ApiError, 409, "policy_conflict")


# ------------------------------------------------------------------ the engine

def members(bindings: dict) -> list | None:
    """The violation objects of one entrypoint: a set's or an array's items, or the keys of an object whose
    values are all ``true`` (how a ``deny[v] { ... }`` rule reads); None for anything else."""
    kind, keys, values = bindings.get("t"), bindings.get("keys", []), bindings.get("values", [])
    if kind == "set":
        return keys
    if kind == "array":
        return values
    return keys if kind == "object" and all(value is True for value in values) else None


def entrypoint(interpreter: Interpreter, rule: str) -> list | None:
    """The members of ``data.guardrails.<rule>``; None when it is undefined. Raises policy_invalid when it is not a
    collection of objects or the engine fails."""
    output = interpreter.query(QUERY.format(rule=rule))
    if not output.ok():
        raise policy_invalid(f"evaluating data.guardrails.{rule} failed: {output}")
    if not output.results or "t" not in output.results[0].bindings:
        return None
    found = members(output.results[0].bindings)
    if found is None or not all(isinstance(item, dict) for item in found):
        raise policy_invalid(f"data.guardrails.{rule} must be a set or an array of objects")
    return found


def run_bundle(modules: dict, data: dict, document: dict) -> dict[str, list]:
    """Every entrypoint's violation objects for one input document."""
    interpreter = Interpreter()
    try:
        for name, source in modules.items():
            interpreter.add_module(name, source)
        interpreter.add_data(data)
        interpreter.set_input(document)
        return {rule: entrypoint(interpreter, rule) for rule, _ in ENTRYPOINTS}
    except RegoError as err:
        raise policy_invalid(f"the policy bundle does not load: {err}") from None


def run_within(budget: float, task):
    """``task()`` on a worker thread; ``(True, result)``, or ``(False, None)`` when it takes longer than ``budget``
    seconds (the engine releases the interpreter lock, so it can be left to finish alone)."""
    outcome: dict = {}

    def work() -> None:
        try:
            outcome["value"] = task()
        except ApiError as err:
            outcome["error"] = err

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(budget)
    if worker.is_alive():
        return False, None
    if "error" in outcome:
        raise outcome["error"]
    return True, outcome["value"]


# ------------------------------------------------------------------ bundles

def tarball_contents(text) -> tuple[dict, dict]:
    """``.rego`` members (by path) and the merged ``.json`` members of a base64 gzipped tar archive."""
    try:
        with tarfile.open(fileobj=io.BytesIO(base64.b64decode(text, validate=True)), mode="r:gz") as archive:
            files = [(m.name, archive.extractfile(m).read()) for m in archive.getmembers() if m.isfile()]
        modules = {name: raw.decode("utf-8") for name, raw in files if name.endswith(".rego")}
        data = {}
        for raw in (raw for name, raw in files if name.endswith(".json")):
            data.update(json.loads(raw))
        return modules, data
    except (binascii.Error, tarfile.TarError, OSError, UnicodeDecodeError, ValueError, TypeError, AttributeError):
        raise policy_invalid("tarball_b64 is not a base64 gzipped tar archive of modules and JSON data") from None


def bundle_parts(body: dict) -> tuple[dict, dict, dict]:
    modules, data = tarball_contents(body["tarball_b64"]) if "tarball_b64" in body else ({}, {})
    given = body.get("rego_modules", {})
    if not isinstance(given, dict) or not all(isinstance(v, str) for v in given.values()):
        raise bad_input("rego_modules must map file names to module text")
    extra, metadata = body.get("data", {}), body.get("metadata", {})
    if not isinstance(extra, dict) or not isinstance(metadata, dict):
        raise bad_input("data and metadata must be objects")
    return {**modules, **given}, {**data, **extra}, metadata


def check_modules(modules: dict, data: dict) -> None:
    """Refuse a bundle that is too large, empty, calls a forbidden built-in, does not load, or whose entrypoints
    (evaluated once against an empty input, when that fits in the engine's budget) are missing or malformed."""
    if sum(len(source.encode("utf-8")) for source in modules.values()) > MAX_MODULE_BYTES:
        raise ApiError(413, "too_large", "the bundle's modules exceed 1 MiB")
    if not modules:
        raise policy_invalid("a bundle needs at least one Rego module")
    if any(FORBIDDEN_CALL.search(source) for source in modules.values()):
        raise policy_invalid("policies may not read files, the network or the runtime")
    finished, found = run_within(BUDGET_S, partial(run_bundle, modules, data, {}))
    if finished and all(value is None for value in found.values()):
        raise policy_invalid("a bundle must define data.guardrails.deny or data.guardrails.warn")


class Bundles:
    """Bundle versions by name."""

    def __init__(self):
        self.versions: dict[str, list[dict]] = {}

    def create(self, name: str, body: dict) -> dict:
        modules, data, metadata = bundle_parts(body)
        check_modules(modules, data)
        if name not in self.versions and len(self.versions) >= MAX_BUNDLES:
            raise policy_conflict("bundle limit reached")
        versions = self.versions.setdefault(name, [])
        if len(versions) >= MAX_BUNDLE_VERSIONS:
            raise policy_conflict(f"bundle {name!r} has reached its version limit")
        versions.append({"bundle_name": name, "version": len(versions) + 1, "rego_modules": modules,
                         "data": data, "metadata": metadata})
        return {"bundle_name": name, "version": len(versions)}

    def listing(self, name: str) -> dict:
        if name not in self.versions:
            raise policy_not_found(f"no policy bundle {name!r}")
        return {"bundle_name": name,
                "versions": [{"version": v["version"], "metadata": v["metadata"]} for v in self.versions[name]]}

    def get(self, name: str, version: int) -> dict:
        versions = self.versions.get(name, [])
        if not 1 <= version <= len(versions):
            raise policy_not_found(f"no version {version} of policy bundle {name!r}")
        return versions[version - 1]


# ------------------------------------------------------------------ bindings

def string_map(value, field: str) -> dict:
    if not isinstance(value, dict) or not value or not all(isinstance(v, str) for v in value.values()):
        raise bad_input(f"{field} must be a non-empty object of strings")
    return dict(sorted(value.items()))


def graph_keys(value) -> list[str]:
    if value is None:
        return list(DEFAULT_GRAPH_KEYS)
    if not isinstance(value, list) or not value or not all(isinstance(k, str) and k for k in value):
        raise bad_input("graph_keys must be a non-empty list of non-empty strings")
    return value


def bundle_ref(value) -> tuple[str, int]:
    name, version = (value.get("name"), value.get("version")) if isinstance(value, dict) else (None, None)
    if not isinstance(name, str) or not name or not isinstance(version, int) or isinstance(version, bool):
        raise bad_input("bundle must be {name, version}")
    return name, version


def selects(selector: dict, scope: dict) -> bool:
    return all(scope.get(key) == value for key, value in selector.items())


def identity(binding: dict) -> tuple:
    """What makes two bindings duplicates: the same bundle version, selector and priority."""
    return binding["bundle"]["name"], binding["bundle"]["version"], binding["selector"], binding["priority"]


def stack_order(binding: dict) -> tuple:
    return -binding["priority"], binding["bundle"]["name"], binding["bundle"]["version"], binding["binding_id"]


class Bindings:
    """Bindings of bundle versions to selectors, with their service-wide ids."""

    def __init__(self, bundles: Bundles):
        self.bundles = bundles
        self.all: list[dict] = []

    def create(self, body: dict) -> dict:
        name, version = bundle_ref(body.get("bundle"))
        priority = body.get("priority", 0)
        if not isinstance(priority, int) or isinstance(priority, bool):
            raise bad_input("priority must be an integer")
        binding = {"bundle": {"name": name, "version": version}, "priority": priority,
                   "selector": string_map(body.get("selector"), "selector"),
                   "graph_keys": graph_keys(body.get("graph_keys"))}
        self.bundles.get(name, version)
        if any(identity(other) == identity(binding) for other in self.all):
            raise policy_conflict("the same bundle is already bound to this selector with this priority")
        if len(self.all) >= MAX_BINDINGS:
            raise policy_conflict("binding limit reached")
        self.all.append({"binding_id": len(self.all) + 1, **binding})
        return self.all[-1]

    def stack(self, scope: dict) -> list[dict]:
        return sorted((b for b in self.all if selects(b["selector"], scope)), key=stack_order)


def public(binding: dict) -> dict:
    return {key: binding[key] for key in ("bundle", "selector", "graph_keys", "priority")}


# ------------------------------------------------------------------ evaluation

def violation(binding: dict, target: dict, severity: str, found: dict) -> dict:
    entry = {"policy": binding["bundle"], "target": target, "rule_id": str(found.get("id", "")), "severity": severity,
             "path": str(found.get("path", "")), "message": str(found.get("message", ""))}
    return {**entry, "evidence": found["evidence"]} if "evidence" in found else entry


def violation_order(entry: dict) -> tuple:
    return (entry["target"]["name"], entry["policy"]["name"], entry["policy"]["version"], entry["rule_id"],
            entry["path"], SEVERITY_ORDER[entry["severity"]], entry["message"])


def result(stack: list[dict], found: list[dict], graph_truncated: bool) -> dict:
    ordered = sorted(found, key=violation_order)
    answer = {"policy_stack": [public(b) for b in stack], "violations": ordered[:MAX_VIOLATIONS],
              "tally": {"errors": sum(v["severity"] == "error" for v in ordered[:MAX_VIOLATIONS]),
                        "warnings": sum(v["severity"] == "warn" for v in ordered[:MAX_VIOLATIONS])}}
    answer |= {"truncated": True} if len(ordered) > MAX_VIOLATIONS else {}
    return answer | ({"details": {"graph_truncated": True}} if graph_truncated else {})


class Guardrails:
    """Bundles, bindings and evaluation. ``graph(binding_keys)`` gives ``(by_name, truncated)`` for a target."""

    def __init__(self):
        self.bundles = Bundles()
        self.bindings = Bindings(self.bundles)

    def evaluate(self, target: dict, document: dict, graph) -> dict:
        """The evaluation result for ``target`` ({name, scope, version_used}) whose input target is ``document``.
        Raises 408 evaluation_timeout with the finished bindings' result when the engine needs more than 0.5 s."""
        stack, found, truncated = self.bindings.stack(target["scope"]), [], False
        started = time.monotonic()
        for position, binding in enumerate(stack):
            bundle = self.bundles.get(binding["bundle"]["name"], binding["bundle"]["version"])
            by_name, cut = graph(binding["graph_keys"])
            truncated |= cut
            source = {"target": document, "graph": {"by_name": by_name},
                      "now": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
            finished, outputs = run_within(BUDGET_S - (time.monotonic() - started),
                                           partial(run_bundle, bundle["rego_modules"], bundle["data"], source))
            if not finished:
                raise ApiError(408, "evaluation_timeout", "the policy engine exceeded its 500 ms budget",
                               result(stack[:position], found, truncated))
            found += [violation(binding, target, severity, item) for rule, severity in ENTRYPOINTS
                      for item in outputs[rule] or []]
        return result(stack, found, truncated)

    def explain(self, body: dict) -> dict:
        """Lines describing why a violation fired: the matching binding, the rule and path, the decision."""
        found = body.get("violation")
        if not isinstance(found, dict):
            raise bad_input("violation must be an object")
        target = found.get("target") or {}
        lines = self.binding_lines(found.get("policy") or {}, target.get("scope"))
        lines.append(f"Resolved {target.get('name', '')} {found.get('path') or '/'} triggered rule "
                     f"{found.get('rule_id') or found.get('id', '')}")
        lines += [str(found["message"])] if found.get("message") else []
        error = str(found.get("severity", "error")).lower() == "error"
        return {"explain": lines + ["Decision: DENY (error)" if error else "Decision: WARN (warning)"]}

    def binding_lines(self, policy: dict, scope) -> list[str]:
        """The first binding of ``policy`` that applies to ``scope``, as two lines; none when there is none."""
        bundle = {"name": policy.get("name"), "version": policy.get("version")}
        scope = scope if isinstance(scope, dict) else {}
        matching = [b for b in self.bindings.all if b["bundle"] == bundle and selects(b["selector"], scope)]
        if not matching:
            return []
        first = matching[0]
        return [f"Selector matched: {' '.join(f'{k}={v}' for k, v in first['selector'].items())}",
                f"Binding priority={first['priority']} graph_keys={','.join(first['graph_keys'])} "
                f"policy={bundle['name']}@{bundle['version']}"]
