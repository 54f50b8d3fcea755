#!/usr/bin/env python3
"""Search Python, JavaScript and C++ files with exact, regex and structural pattern rules.

Every match is printed as one JSON object per line."""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ast_grep_py import SgNode, SgRoot

LANGUAGE_EXTENSIONS = {
    "python": (".py",),
    "javascript": (".js", ".mjs", ".cjs"),
    "cpp": (".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"),
}
EXTENSIONS = {ext: language for language, exts in LANGUAGE_EXTENSIONS.items() for ext in exts}
ALL_LANGUAGES = tuple(LANGUAGE_EXTENSIONS)
DEFAULT_LANGUAGES = ALL_LANGUAGES
KINDS = ("exact", "regex", "pattern")
METAVARIABLE = re.compile(r"\$(?:(\$)|([A-Z_][A-Z0-9_]*)(\?)?)")
REGEX_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}


class UsageError(Exception):
    """Invalid rules, root directory or encoding: exit code 1."""


@dataclass(frozen=True)
class Rule:
    rule_id: str
    kind: str
    pattern: str
    languages: tuple[str, ...]
    regex: re.Pattern[str] | None = None
    variants: tuple[Variant, ...] = ()


@dataclass(frozen=True)
class Match:
    rule_id: str
    file: str
    language: str
    start: tuple[int, int]
    end: tuple[int, int]
    text: str
    captures: dict | None = None

    def sort_key(self) -> tuple:
        return (self.file, self.start, self.end, self.rule_id)

    def to_json(self) -> dict:
        record = {
            "rule_id": self.rule_id,
            "file": self.file,
            "language": self.language,
            "start": point(self.start),
            "end": point(self.end),
            "match": self.text,
        }
        if self.captures is not None:
            record["captures"] = {name: self.captures[name] for name in sorted(self.captures)}
        return record


def point(position: tuple[int, int]) -> dict:
    return {"line": position[0], "col": position[1]}


@dataclass(frozen=True)
class Variant:
    """One concrete structural pattern: optional metavariables either kept or dropped.

    Every occurrence of a metavariable gets its own alias so that all of its ranges can be
    reported; ``aliases`` maps each alias to the metavariable name.
    """

    source: str
    aliases: tuple[tuple[str, str], ...] = field(default=())


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
    if kind == "regex":
        return Rule(rule_id, kind, pattern, languages, regex=compile_regex(rule_id, pattern, entry.get("regex_flags")))
    if kind == "pattern":
        return Rule(rule_id, kind, pattern, languages, variants=compile_pattern(rule_id, pattern))
    return Rule(rule_id, kind, pattern, languages)


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


def compile_pattern(rule_id: str, pattern: str) -> tuple[Variant, ...]:
    """Expand a pattern into one variant per choice of present/absent optional metavariables."""
    pieces = split_pattern(rule_id, pattern)
    optional = sorted({piece[1] for piece in pieces if isinstance(piece, tuple) and piece[2]})
    variants = []
    for present in itertools.product((True, False), repeat=len(optional)):
        kept = {name for name, keep in zip(optional, present, strict=True) if keep}
        variants.append(build_variant(pieces, kept))
    return tuple(variants)


def split_pattern(rule_id: str, pattern: str) -> list:
    """Literal text pieces and (alias, name, optional) metavariable occurrences."""
    pieces: list = []
    position, counts = 0, {}
    for found in METAVARIABLE.finditer(pattern):
        pieces.append(pattern[position:found.start()])
        if found.group(1):
            pieces.append("$")
        else:
            name = found.group(2)
            counts[name] = counts.get(name, 0) + 1
            pieces.append((f"{name}_OCC{counts[name]}", "$" + name, bool(found.group(3))))
        position = found.end()
    pieces.append(pattern[position:])
    literal = "".join(piece for piece in pieces if isinstance(piece, str))
    require(literal.count("$") == pattern.count("$$"), f"rule {rule_id}: a '$' must start $NAME or be written $$")
    return pieces


def build_variant(pieces: list, kept: set[str]) -> Variant:
    source, aliases = [], []
    for piece in pieces:
        if isinstance(piece, str):
            source.append(piece)
        elif not piece[2] or piece[1] in kept:
            source.append("$" + piece[0])
            aliases.append((piece[0], piece[1]))
    return Variant("".join(source), tuple(aliases))


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


def text_matches(rule: Rule, rel: str, language: str, text: str) -> list[Match]:
    index = LineIndex(text)
    return [
        Match(rule.rule_id, rel, language, index.position(start), index.position(end), text[start:end])
        for start, end in spans(rule, text)
    ]


def node_span(node: SgNode) -> tuple[tuple[int, int], tuple[int, int]]:
    found = node.range()
    return (found.start.line + 1, found.start.column + 1), (found.end.line + 1, found.end.column + 1)


def bind_captures(node: SgNode, variant: Variant) -> dict | None:
    """Captures of one structural match, or None when a repeated metavariable differs."""
    captures: dict = {}
    for alias, name in variant.aliases:
        bound = node.get_match(alias)
        if bound is None:
            return None
        start, end = node_span(bound)
        entry = captures.setdefault(name, {"text": bound.text(), "ranges": []})
        if entry["text"] != bound.text():
            return None
        entry["ranges"].append({"start": point(start), "end": point(end)})
    for entry in captures.values():
        entry["ranges"].sort(key=lambda r: (r["start"]["line"], r["start"]["col"]))
    return captures


def find_nodes(root: SgNode, source: str) -> list[SgNode]:
    try:
        return root.find_all(pattern=source)
    except Exception:  # the pattern is not a single node of this language: no match
        return []


def pattern_matches(rule: Rule, rel: str, language: str, root: SgNode) -> list[Match]:
    found: dict[tuple, Match] = {}
    for variant in rule.variants:
        for node in find_nodes(root, variant.source):
            captures = bind_captures(node, variant)
            start, end = node_span(node)
            if captures is not None and (start, end) not in found:
                found[(start, end)] = Match(rule.rule_id, rel, language, start, end, node.text(), captures)
    return list(found.values())


def search_file(rules: list[Rule], rel: str, language: str, text: str) -> list[Match]:
    matches: list[Match] = []
    tree = None
    for rule in (rule for rule in rules if language in rule.languages):
        if rule.kind != "pattern":
            matches.extend(text_matches(rule, rel, language, text))
            continue
        if tree is None:
            tree = SgRoot(text, language).root()
        matches.extend(pattern_matches(rule, rel, language, tree))
    return matches


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
