"""Checks shared by every document: names, numbers, JSON input."""

import json
import re
from pathlib import Path

from forgelib.errors import invalid, usage

NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")


def is_name(value):
    return isinstance(value, str) and NAME.fullmatch(value) is not None


def check_name(value, what):
    if not is_name(value):
        raise invalid(f"{what} must be a name (lowercase letters, digits and hyphens), got {value!r}")
    return value


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


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
