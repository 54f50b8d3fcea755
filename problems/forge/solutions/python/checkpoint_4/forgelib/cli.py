"""Argument parsing and dispatch: ``--data-dir DIR RESOURCE COMMAND [ARGS] [OPTIONS]``."""

import argparse
import json
import sys
from dataclasses import dataclass

from forgelib import blueprints, bom, item_commands, module_commands, revisions, unit_commands
from forgelib.errors import ForgeError, usage
from forgelib.store import Store


@dataclass(frozen=True)
class Command:
    """A handler, the names of its positional arguments and the options it takes."""

    run: object
    arguments: tuple = ()
    options: frozenset = frozenset()


COMMANDS = {
    ("blueprint", "create"): Command(blueprints.create, options=frozenset({"file"})),
    ("blueprint", "get"): Command(blueprints.get, ("name",)),
    ("blueprint", "list"): Command(blueprints.list_all, options=frozenset({"tag"})),
    ("blueprint", "update"): Command(blueprints.update, ("name",), frozenset({"file", "revision"})),
    ("blueprint", "delete"): Command(blueprints.delete, ("name",), frozenset({"revision"})),
    ("revision", "list"): Command(revisions.list_all, ("blueprint",)),
    ("revision", "get"): Command(revisions.get, ("blueprint", "number")),
    ("revision", "restore"): Command(revisions.restore, ("blueprint", "number"), frozenset({"revision"})),
    ("unit", "list"): Command(unit_commands.list_all, options=frozenset({"dimension"})),
    ("unit", "get"): Command(unit_commands.get, ("name",)),
    ("unit", "create"): Command(unit_commands.create, options=frozenset({"file"})),
    ("unit", "delete"): Command(unit_commands.delete, ("name",)),
    ("unit", "convert"): Command(unit_commands.convert_quantity, ("quantity", "from", "to")),
    ("item", "create"): Command(item_commands.create, options=frozenset({"file"})),
    ("item", "get"): Command(item_commands.get, ("name",)),
    ("item", "list"): Command(item_commands.list_all, options=frozenset({"dimension"})),
    ("item", "delete"): Command(item_commands.delete, ("name",)),
    ("module", "create"): Command(module_commands.create, options=frozenset({"file"})),
    ("module", "get"): Command(module_commands.get, ("name",)),
    ("module", "list"): Command(module_commands.list_all),
    ("module", "update"): Command(module_commands.update, ("name",), frozenset({"file"})),
    ("module", "delete"): Command(module_commands.delete, ("name",)),
    ("blueprint", "bom"): Command(bom.bill, ("name",), frozenset({"quantity"})),
}
OPTIONS = ("file", "tag", "revision", "dimension", "quantity")


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
    if given - command.options:
        raise usage(f"{' '.join(key)} does not take --{min(given - command.options)}")
    if len(options.words) - 2 != len(command.arguments):
        raise usage(f"{' '.join(key)} takes {len(command.arguments)} argument(s)")
    return command


def main(argv, stdin=sys.stdin, stdout=sys.stdout, stderr=sys.stderr):
    """Run one invocation; returns its exit status."""
    try:
        options = parser().parse_intermixed_args(argv)
        command = resolve(options)
        store = Store(options.data_dir)
        result = command.run(store, options.words[2:], options, stdin)
        store.save()
    except ForgeError as error:
        print(json.dumps(error.envelope()), file=stderr)
        return error.exit_status
    print(json.dumps(result, indent=2), file=stdout)
    return 0
