#!/usr/bin/env python3
"""Search Python, JavaScript and C++ files with exact and regex rules; print JSON Lines."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

LANGUAGE_EXTENSIONS = {
    "python": (".py",),
    "javascript": (".js", ".mjs", ".cjs"),
    "cpp": (".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"),
}
EXTENSIONS = {ext: language for language, exts in LANGUAGE_EXTENSIONS.items() for ext in exts}
ALL_LANGUAGES = tuple(LANGUAGE_EXTENSIONS)
DEFAULT_LANGUAGES = ALL_LANGUAGES
KINDS = ("exact", "regex")
REGEX_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}


class UsageError(Exception):
    """Invalid rules, root directory or encoding: exit code 1."""


@dataclass(frozen=True)
class Rule:
    rule_id: str
    kind: str
    pattern: str
    languages: tuple[str, ...]
    regex: re.Pattern[str] | None


@dataclass(frozen=True)
class Match:
    rule_id: str
    file: str
    language: str
    start: tuple[int, int]
    end: tuple[int, int]
    text: str

    def sort_key(self) -> tuple:
        return (self.file, self.start, self.rule_id)

    def to_json(self) -> dict:
        return {
            "rule_id": self.rule_id,
            "file": self.file,
            "language": self.language,
            "start": {"line": self.start[0], "col": self.start[1]},
            "end": {"line": self.end[0], "col": self.end[1]},
            "match": self.text,
        }


# ------------------------------------------------------------------ rules

def require(condition: bool, message: str) -> None:
    if not condition:
        raise UsageError(message)


def load_rules(path: str) -> list[Rule]:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read rules file {path}: {exc}") from exc
    require(isinstance(data, list), "rules file must hold a JSON array")
    rules = [parse_rule(entry) for entry in data]
    ids = [rule.rule_id for rule in rules]
    require(len(ids) == len(set(ids)), "rule ids must be unique")
    return rules


def parse_rule(entry: object) -> Rule:
    require(isinstance(entry, dict), "each rule must be an object")
    rule_id, kind, pattern = entry.get("id"), entry.get("kind"), entry.get("pattern")
    require(isinstance(rule_id, str) and rule_id != "", "rule id must be a non-empty string")
    require(kind in KINDS, f"rule {rule_id}: unknown kind {kind!r}")
    require(isinstance(pattern, str) and pattern != "", f"rule {rule_id}: pattern must be a non-empty string")
    languages = parse_languages(rule_id, entry.get("languages"))
    regex = compile_regex(rule_id, pattern, entry.get("regex_flags")) if kind == "regex" else None
    return Rule(rule_id, kind, pattern, languages, regex)


def parse_languages(rule_id: str, value: object) -> tuple[str, ...]:
    if value is None:
        return DEFAULT_LANGUAGES
    require(isinstance(value, list), f"rule {rule_id}: languages must be an array")
    for language in value:
        require(language in ALL_LANGUAGES, f"rule {rule_id}: unsupported language {language!r}")
    return tuple(value)


def compile_regex(rule_id: str, pattern: str, flags: object) -> re.Pattern[str]:
    flags = [] if flags is None else flags
    require(isinstance(flags, list), f"rule {rule_id}: regex_flags must be an array")
    bits = 0
    for flag in flags:
        require(flag in REGEX_FLAGS, f"rule {rule_id}: unsupported regex flag {flag!r}")
        bits |= REGEX_FLAGS[flag]
    try:
        return re.compile(pattern, bits)
    except re.error as exc:
        raise UsageError(f"rule {rule_id}: invalid regex: {exc}") from exc


# ------------------------------------------------------------------ files

def source_files(root: Path) -> list[tuple[str, Path, str]]:
    """(relative posix path, absolute path, language) of every scanned file, sorted."""
    found = []
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            language = EXTENSIONS.get(os.path.splitext(name)[1])
            path = Path(dirpath) / name
            if language and path.is_file():
                found.append((path.relative_to(root).as_posix(), path, language))
    return sorted(found)


def read_text(path: Path, encoding: str) -> str | None:
    try:
        return path.read_bytes().decode(encoding)
    except (OSError, UnicodeDecodeError):
        return None


# --------------------------------------------------------------- matching

class LineIndex:
    """Converts character offsets into 1-based (line, column) positions."""

    def __init__(self, text: str) -> None:
        self.text = text

    def position(self, offset: int) -> tuple[int, int]:
        line = self.text.count("\n", 0, offset) + 1
        line_start = self.text.rfind("\n", 0, offset) + 1
        return line, offset - line_start + 1


def spans(rule: Rule, text: str):
    """Yield (start, end) character offsets of the rule's matches, left to right."""
    if rule.regex is not None:
        for found in rule.regex.finditer(text):
            yield found.start(), found.end()
        return
    start = text.find(rule.pattern)
    while start != -1:
        yield start, start + len(rule.pattern)
        start = text.find(rule.pattern, start + len(rule.pattern))


def search_file(rules: list[Rule], rel: str, language: str, text: str) -> list[Match]:
    index = LineIndex(text)
    return [
        Match(rule.rule_id, rel, language, index.position(start), index.position(end), text[start:end])
        for rule in rules
        if language in rule.languages
        for start, end in spans(rule, text)
    ]


def search(root: Path, rules: list[Rule], encoding: str) -> list[Match]:
    matches: list[Match] = []
    for rel, path, language in source_files(root):
        text = read_text(path, encoding)
        if text is not None:
            matches.extend(search_file(rules, rel, language, text))
    return sorted(matches, key=Match.sort_key)


# -------------------------------------------------------------------- cli

def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="code_search", description=__doc__)
    parser.add_argument("root_dir")
    parser.add_argument("--rules", required=True)
    parser.add_argument("--encoding", default="utf-8")
    return parser.parse_args(argv)


def check_environment(args: argparse.Namespace) -> Path:
    root = Path(args.root_dir)
    require(root.is_dir(), f"root directory not found: {args.root_dir}")
    try:
        "".encode(args.encoding)
    except LookupError as exc:
        raise UsageError(f"unknown encoding: {args.encoding}") from exc
    return root


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    try:
        root = check_environment(args)
        matches = search(root, load_rules(args.rules), args.encoding)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    out = sys.stdout
    for match in matches:
        out.write(json.dumps(match.to_json(), ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.stdout.reconfigure(encoding="utf-8")
    sys.exit(main(sys.argv[1:]))
