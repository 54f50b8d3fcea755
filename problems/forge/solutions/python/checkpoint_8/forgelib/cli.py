"""Argument parsing and dispatch: ``--data-dir DIR RESOURCE COMMAND [ARGS] [OPTIONS]``."""

import argparse
import json
import sys
from dataclasses import dataclass

from forgelib import (
    allocations,
    audit,
    blueprints,
    bom,
    gates,
    item_commands,
    module_commands,
    revisions,
    stock,
    unit_commands,
)
from forgelib.access import CHANGES, authorize, role_of
from forgelib.contracts import load_contract
from forgelib.documents import check_name
from forgelib.errors import ForgeError, usage
from forgelib.store import Store


@dataclass(frozen=True)
class Command:
    """A handler, the names of its positional arguments, the options it takes and those it needs,
    and the permission it needs (:data:`forgelib.access.ROLES`)."""

    run: object
    arguments: tuple = ()
    options: frozenset = frozenset()
    required: frozenset = frozenset()
    permission: str = "read"


COMMANDS = {
    ("blueprint", "create"): Command(blueprints.create, options=frozenset({"file"}), permission="write"),
    ("blueprint", "get"): Command(blueprints.get, ("name",)),
    ("blueprint", "list"): Command(blueprints.list_all, options=frozenset({"tag"})),
    ("blueprint", "update"): Command(blueprints.update, ("name",), frozenset({"file", "revision"}),
                                     permission="write"),
    ("blueprint", "delete"): Command(blueprints.delete, ("name",), frozenset({"revision"}), permission="write"),
    ("revision", "list"): Command(revisions.list_all, ("blueprint",)),
    ("revision", "get"): Command(revisions.get, ("blueprint", "number")),
    ("revision", "restore"): Command(revisions.restore, ("blueprint", "number"), frozenset({"revision"}),
                                     permission="write"),
    ("unit", "list"): Command(unit_commands.list_all, options=frozenset({"dimension"})),
    ("unit", "get"): Command(unit_commands.get, ("name",)),
    ("unit", "create"): Command(unit_commands.create, options=frozenset({"file"}), permission="catalogue"),
    ("unit", "delete"): Command(unit_commands.delete, ("name",), permission="catalogue"),
    ("unit", "convert"): Command(unit_commands.convert_quantity, ("quantity", "from", "to")),
    ("item", "create"): Command(item_commands.create, options=frozenset({"file"}), permission="catalogue"),
    ("item", "get"): Command(item_commands.get, ("name",)),
    ("item", "list"): Command(item_commands.list_all, options=frozenset({"dimension"})),
    ("item", "delete"): Command(item_commands.delete, ("name",), permission="catalogue"),
    ("module", "create"): Command(module_commands.create, options=frozenset({"file"}), permission="catalogue"),
    ("module", "get"): Command(module_commands.get, ("name",)),
    ("module", "list"): Command(module_commands.list_all),
    ("module", "update"): Command(module_commands.update, ("name",), frozenset({"file"}), permission="catalogue"),
    ("module", "delete"): Command(module_commands.delete, ("name",), permission="catalogue"),
    ("blueprint", "bom"): Command(bom.bill, ("name",), frozenset({"quantity"})),
    ("stock", "add"): Command(stock.add, ("item", "quantity"), frozenset({"unit"}), permission="catalogue"),
    ("stock", "remove"): Command(stock.remove, ("item", "quantity"), frozenset({"unit"}), permission="catalogue"),
    ("stock", "get"): Command(stock.get, ("item",)),
    ("stock", "list"): Command(stock.list_all),
    ("allocation", "create"): Command(allocations.create, ("blueprint",),
                                      frozenset({"quantity", "revision", "rules_file"}), permission="write"),
    ("allocation", "get"): Command(allocations.get, ("id",)),
    ("allocation", "list"): Command(allocations.list_all, options=frozenset({"status", "blueprint"})),
    ("allocation", "consume"): Command(allocations.consume, ("id",), permission="write"),
    ("allocation", "release"): Command(allocations.release, ("id",), permission="write"),
    ("revision", "submit"): Command(gates.submit, ("blueprint", "number"), frozenset({"rules_file"}),
                                    permission="write"),
    ("revision", "approve"): Command(gates.approve, ("blueprint", "number"), frozenset({"by", "rules_file"}),
                                     frozenset({"by"}), permission="review"),
    ("revision", "reject"): Command(gates.reject, ("blueprint", "number"), frozenset({"by"}), frozenset({"by"}),
                                    permission="review"),
    ("revision", "release"): Command(gates.release, ("blueprint", "number"), frozenset({"rules_file"}),
                                     permission="review"),
    ("audit", "list"): Command(audit.list_all, options=frozenset({"limit"}), permission="audit"),
}
OPTIONS = ("file", "tag", "revision", "dimension", "quantity", "unit", "status", "blueprint", "rules_file", "by",
           "config", "role", "scope", "limit")
EVERYWHERE = frozenset({"config", "role", "scope"})
"""Options every command takes."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise usage(message)


def value(text):
    """An option's value as written; an empty one is no value (a ``usage_error``)."""
    if not text:
        raise argparse.ArgumentTypeError("the value may not be empty")
    return text


def parser():
    parsed = Parser(prog="forge", add_help=False, allow_abbrev=False)
    parsed.add_argument("--data-dir", type=value)
    for option in OPTIONS:
        parsed.add_argument(f"--{option.replace('_', '-')}", type=value)
    parsed.add_argument("words", nargs="*")
    return parsed


def resolve(options):
    """The command the words name, checked against its arguments and options."""
    if options.data_dir is None:
        raise usage("--data-dir is required")
    if len(options.words) < 2:
        raise usage("expected a resource and a command")
    key = tuple(options.words[:2])
    if key not in COMMANDS:
        raise usage(f"unknown command: {' '.join(key)}")
    command = COMMANDS[key]
    given = {name for name in OPTIONS if getattr(options, name) is not None}
    extra = given - command.options - EVERYWHERE
    if extra:
        raise usage(f"{' '.join(key)} does not take --{min(extra)}")
    if command.required - given:
        raise usage(f"{' '.join(key)} needs --{min(command.required - given)}")
    if len(options.words) - 2 != len(command.arguments):
        raise usage(f"{' '.join(key)} takes {len(command.arguments)} argument(s)")
    return command


def execute(options, command, stdin):
    """Run ``command`` in its data directory under the access rules; returns what it prints.
    Changes and denied attempts are audited."""
    role, key = role_of(options), " ".join(options.words[:2])
    store = Store(options.data_dir, options.scope or "default")
    args = options.words[2:]
    try:
        authorize(role, command.permission, key)
    except ForgeError:
        audit.append(store, role, key, args[0] if args else None, "denied")
        store.save()
        raise
    options.strict = load_contract(options) == 2
    check_name(store.scope, "--scope")
    result = command.run(store, args, options, stdin)
    if command.permission in CHANGES:
        audit.append(store, role, key, args[0] if args else result.get("name"), "ok")
    store.save()
    return result


def main(argv, stdin=sys.stdin, stdout=sys.stdout, stderr=sys.stderr):
    """Run one invocation; returns its exit status."""
    try:
        options = parser().parse_intermixed_args(argv)
        result = execute(options, resolve(options), stdin)
    except ForgeError as error:
        print(json.dumps(error.envelope()), file=stderr)
        return error.exit_status
    print(json.dumps(result, indent=2), file=stdout)
    return 0
