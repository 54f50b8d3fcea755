"""Checks shared by every document: names, numbers, JSON input."""

import json
import re
from pathlib import Path

from forgelib.errors import invalid, not_found, usage

NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
WHOLE = re.compile(r"[1-9][0-9]*")
DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")


def is_name(value):
    return isinstance(value, str) and NAME.fullmatch(value) is not None


def check_name(value, what):
    if not is_name(value):
        raise invalid(f"{what} must be a name (lowercase letters, digits and hyphens), got {value!r}")
    return value


def find_named(store, kind, name, finder):
    """What ``finder(store, name)`` finds: ``name`` must be a name and the thing must exist."""
    check_name(name, f"{kind} name")
    found = finder(store, name)
    if found is None:
        raise not_found(kind, name)
    return found


def whole_number(text, what):
    """The whole number of at least 1 that ``text`` writes in decimal digits (a revision number, a count)."""
    if WHOLE.fullmatch(text) is None:
        raise invalid(f"{what} must be a whole number of at least 1 (1, 2, ...), got {text!r}")
    return int(text)


def decimal_number(text, what):
    """The number ``text`` writes as a decimal (an optional ``-``, digits, optionally ``.`` and digits)."""
    if DECIMAL.fullmatch(text) is None:
        raise invalid(f"{what} must be a decimal number, got {text!r}")
    return float(text)


def optional_revision(options):
    """The ``--revision`` the caller last saw, or None."""
    return None if options.revision is None else whole_number(options.revision, "--revision")


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_quantity(value, what):
    """``value``, which must be a JSON number greater than zero."""
    if not is_number(value) or value <= 0:
        raise invalid(f"{what} must be a number greater than zero")
    return value


def check_whole(value, what):
    """``value``, which must be a JSON number without a fractional part, at least 1."""
    if not is_number(value) or value < 1 or value != int(value):
        raise invalid(f"{what} must be a whole number of at least 1")
    return value


def check_string(value, what):
    if not isinstance(value, str):
        raise invalid(f"{what} must be a string")
    return value


def read_document(options, stdin):
    """The JSON document of ``--file`` or standard input; must be an object."""
    if options.file is None:
        text = stdin.read()
    else:
        try:
            text = Path(options.file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise usage(f"cannot read --file {options.file}: {error}") from None
    try:
        document = json.loads(text)
    except ValueError as error:
        raise invalid(f"the document is not valid JSON: {error}") from None
    if not isinstance(document, dict):
        raise invalid("the document must be a JSON object")
    return document
