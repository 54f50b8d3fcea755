"""Revision gates: submit, approve, reject and release, under the rules of a ``--rules-file``."""

from forgelib.blueprints import released, view
from forgelib.bom import explode
from forgelib.contracts import INVALID, Check
from forgelib.documents import check_name, is_name, parse_object, read_file
from forgelib.errors import ForgeError, conflict
from forgelib.items import find_item
from forgelib.revisions import numbered


def is_flag(value):
    return isinstance(value, bool)


def is_count(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def is_names(value):
    return isinstance(value, list) and all(is_name(tag) for tag in value)


RULES = {
    "submit": {"require_description": (is_flag, False), "min_materials": (is_count, 0),
               "required_tags": (is_names, [])},
    "approve": {"approvals": (lambda value: is_count(value) and value >= 1, 1)},
    "release": {"require_catalogued": (is_flag, False)},
    "allocate": {"require_released": (is_flag, False)},
}
"""Gate -> rule -> (which values are allowed, the default)."""

CHECKS = {
    "submit": {
        "require_description": lambda store, blueprint, rule: not rule or bool(blueprint["description"]),
        "min_materials": lambda store, blueprint, rule: len(blueprint["materials"]) >= rule,
        "required_tags": lambda store, blueprint, rule: set(rule) <= set(blueprint["tags"]),
    },
    "release": {
        "require_catalogued": lambda store, blueprint, rule: not rule or all(
            find_item(store, row["item"]) for row in explode(store, blueprint, 1)["materials"]),
    },
}
"""Gate -> rule -> whether a printed revision passes it."""


def gate_rules(check, document, gate):
    """The rules of ``gate`` in the rules file ``document`` over their defaults, problems in ``check``."""
    member = check.members(document.get(gate, {}), f"$.{gate}", RULES[gate])
    rules = {rule: default for rule, (_, default) in RULES[gate].items()}
    if member is INVALID:
        return rules
    for rule, (allowed, _) in RULES[gate].items():
        rules[rule] = check.ensure(member.get(rule, rules[rule]), f"$.{gate}.{rule}", allowed,
                                   "is not a value this rule takes")
    return rules


def load_rules(options):
    """The rules of every gate: those of ``--rules-file`` over the defaults."""
    if options.rules_file is None:
        return {gate: {rule: default for rule, (_, default) in rules.items()} for gate, rules in RULES.items()}
    check = Check(options.strict)
    document = check.members(parse_object(read_file(options.rules_file, "--rules-file"), "the rules file"), "$",
                             RULES)
    rules = {gate: gate_rules(check, document, gate) for gate in RULES}
    check.done("the rules file")
    return rules


def require(store, gate, blueprint, rules):
    """Fail with a ``gate_error`` listing every rule of ``gate`` the printed revision fails."""
    violations = sorted(rule for rule, check in CHECKS[gate].items() if not check(store, blueprint, rules[gate][rule]))
    if violations:
        raise ForgeError("gate_error", f"{blueprint['name']} revision {blueprint['revision']} fails the {gate} gate",
                         {"gate": gate, "violations": violations})


def require_released(history, number):
    """The released revision, which ``number`` (None: any) must be; a ``gate_error`` otherwise."""
    chosen = released(history)
    if chosen is None or number not in (None, chosen):
        raise ForgeError("gate_error", "only the released revision can be allocated",
                         {"gate": "allocate", "violations": ["require_released"]})
    return chosen


def in_state(history, number, state):
    """Revision ``number`` of ``history``, which must be in ``state``; a ``conflict`` otherwise."""
    revision = history["revisions"][number - 1]
    if revision["state"] != state:
        raise conflict(f"revision {number} is {revision['state']}, not {state}", {"state": revision["state"]})
    return revision


def status(args, number, revision):
    return {"blueprint": args[0], "revision": number, "state": revision["state"], "approvals": revision["approvals"]}


def submit(store, args, options, stdin):
    rules = load_rules(options)
    history, number = numbered(store, args)
    current = len(history["revisions"])
    if number != current:
        raise conflict(f"only the current revision {current} of {args[0]} can be submitted",
                       {"current_revision": current})
    revision = in_state(history, number, "draft")
    require(store, "submit", view(history, number), rules)
    revision["state"] = "review"
    return status(args, number, revision)


def approve(store, args, options, stdin):
    rules = load_rules(options)
    reviewer = check_name(options.by, "--by")
    history, number = numbered(store, args)
    revision = in_state(history, number, "review")
    if reviewer in revision["approvals"]:
        raise conflict(f"{reviewer} has approved already", {"approvals": revision["approvals"]})
    revision["approvals"] = sorted([*revision["approvals"], reviewer])
    if len(revision["approvals"]) >= rules["approve"]["approvals"]:
        revision["state"] = "approved"
    return status(args, number, revision)


def reject(store, args, options, stdin):
    check_name(options.by, "--by")
    history, number = numbered(store, args)
    revision = in_state(history, number, "review")
    revision.update(state="draft", approvals=[])
    return status(args, number, revision)


def release(store, args, options, stdin):
    rules = load_rules(options)
    history, number = numbered(store, args)
    revision = in_state(history, number, "approved")
    require(store, "release", view(history, number), rules)
    for other in history["revisions"]:
        if other["state"] == "released":
            other["state"] = "superseded"
    revision["state"] = "released"
    return status(args, number, revision)
