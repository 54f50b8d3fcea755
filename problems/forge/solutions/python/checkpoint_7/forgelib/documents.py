"""Checks shared by every document: names, numbers, JSON input."""

import json
import re
from pathlib import Path

from forgelib.errors import ForgeError, invalid, not_found, usage

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


def read_file(path, option):
    """The text of the file ``option`` names; a ``usage_error`` when it cannot be read."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise usage(f"cannot read {option} {path}: {error}") from None


def parse_object(text, what):
    """The JSON object ``text`` holds; otherwise a ``validation_error`` naming ``what``, with the
    single problem ``$``."""
    try:
        document = json.loads(text)
    except ValueError as error:
        raise ForgeError("validation_error", f"{what} is not valid JSON",
                         {"problems": [{"path": "$", "message": f"not valid JSON: {error}"}]}) from None
    if not isinstance(document, dict):
        raise ForgeError("validation_error", f"{what} is not a JSON object",
                         {"problems": [{"path": "$", "message": "must be a JSON object"}]})
    return document


def read_document(options, stdin):
    """The JSON document of ``--file`` or standard input; must be an object."""
    text = stdin.read() if options.file is None else read_file(options.file, "--file")
    return parse_object(text, "the document")
