"""Reading the sample files (csv, tsv, jsonl, json) into lists of row dicts."""

from __future__ import annotations

import csv
import json
from pathlib import Path

EXTENSIONS = ("csv", "tsv", "jsonl", "json")


def read_table(path: Path, ext: str) -> list[dict]:
    """The rows of ``path``: csv/tsv cells as strings, json/jsonl values as parsed."""
    text = path.read_text(encoding="utf-8")
    if ext in ("csv", "tsv"):
        lines = [line for line in text.splitlines() if line != ""]
        return list(csv.DictReader(lines, delimiter="," if ext == "csv" else "\t"))
    if ext == "jsonl":
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text) if text.strip() else []
