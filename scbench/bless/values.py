"""The values bless writes: the reference's output read as the expectation reads it, with the
author's wildcards, subset and ignored paths kept; and new expectations inferred from an output."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from typing import Any

import tomli_w
import yaml

from scbench.formats import PARSERS, ini_parser
from scbench.grade import text
from scbench.grade.structured import ANY, prune, subset_of
from scbench.problem.model import OutputExpectation


def _wildcard_holds(old: Any, new: Any) -> bool:
    return old == ANY or (isinstance(old, str) and isinstance(new, str) and text.matches(old, new))


def _merge_dicts(old: dict, new: dict) -> dict:
    return {key: keep_wildcards(old[key], value) if key in old else value for key, value in new.items()}


def _merge_lists(old: list, new: list) -> list:
    return [keep_wildcards(o, n) for o, n in zip(old, new, strict=True)] if len(old) == len(new) else new


MERGERS: dict[tuple[type, type], Callable[[Any, Any], Any]] = {(dict, dict): _merge_dicts, (list, list): _merge_lists}


def keep_wildcards(old: Any, new: Any) -> Any:
    """``new``, except where ``old`` holds a wildcard that still matches it (recursively
    through objects and equal-length lists): there ``old`` is kept."""
    if _wildcard_holds(old, new):
        return old
    merge = MERGERS.get((type(old), type(new)))
    return merge(old, new) if merge else new


def refreshed(spec: OutputExpectation, actual: str) -> Any:
    """The value ``spec`` should expect for the output ``actual``: parsed with its format, its
    ignored paths left out, cut to its keys if it is a subset, its wildcards kept where they
    still match (line by line for text). Raises ``ValueError`` if ``actual`` does not parse."""
    if spec.format == "text":
        old = (spec.value or "").split("\n")
        return "\n".join(keep_wildcards(old, actual.split("\n")))
    value = prune(PARSERS[spec.format](actual), spec.ignore)
    if spec.subset and spec.value is not None:
        value = subset_of(spec.value, value)
    return keep_wildcards(spec.value, value)


def inferred(actual: str) -> Any:
    """A new expectation for the output ``actual``: ``json`` when it is one JSON object or list,
    ``jsonl`` when every non-empty line is one, else exact text (a bare string)."""
    for format_name in ("json", "jsonl"):
        try:
            value = PARSERS[format_name](actual)
        except ValueError:
            continue
        items = value if format_name == "jsonl" else [value]
        if actual.strip() and all(isinstance(item, dict | list) for item in items):
            return {"format": format_name, "value": value}
    return actual


def _delimited(delimiter: str) -> Callable[[list[dict]], str]:
    def write(rows: list[dict]) -> str:
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else [], delimiter=delimiter,
                                lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return buffer.getvalue()
    return write


def _markdown_table(rows: list[dict]) -> str:
    """The rows as a GFM table (``|`` in a cell escaped); no rows give an empty text (a table needs a header)."""
    def line(cells: list) -> str:
        return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |\n"
    return "".join([line(list(rows[0])), line(["---"] * len(rows[0])), *(line(list(row.values())) for row in rows)]
                   ) if rows else ""


def _fields_table(value: dict[str, Any]) -> str:
    return "".join(f"{key}: {field}\n" for key, field in value["fields"].items()) + _markdown_table(value["table"])


def _ini(sections: dict[str, dict[str, str]]) -> str:
    parser = ini_parser()
    parser.read_dict(sections)
    buffer = io.StringIO()
    parser.write(buffer)
    return buffer.getvalue()


SERIALIZERS: dict[str, Callable[[Any], str]] = {
    "text": str,
    "lines": lambda lines: "".join(f"{line}\n" for line in lines),
    "json": lambda value: json.dumps(value, indent=2, ensure_ascii=False) + "\n",
    "jsonl": lambda values: "".join(json.dumps(v, ensure_ascii=False) + "\n" for v in values),
    "yaml": lambda value: yaml.safe_dump(value, sort_keys=False, allow_unicode=True),
    "csv": _delimited(","),
    "tsv": _delimited("\t"),
    "markdown_table": _markdown_table,
    "fields_table": _fields_table,
    "toml": tomli_w.dumps,
    "ini": _ini,
}
"""Format -> writer of an expected-output file (the inverse of ``formats.PARSERS``)."""
