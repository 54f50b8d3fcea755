#!/usr/bin/env python3
"""Search Python, JavaScript and C++ files with exact, regex, token pattern and syntax selector rules,
and preview or apply the fixes of rules that have one.

Every match (and, with --dry-run or --apply-fixes, every fix) is printed as one JSON object per line."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from functools import cached_property
from itertools import groupby
from pathlib import Path

import tree_sitter_cpp
import tree_sitter_javascript
import tree_sitter_python
from tree_sitter import Language, Node, Parser

LANGUAGE_EXTENSIONS = {
    "python": (".py",),
    "javascript": (".js", ".mjs", ".cjs"),
    "cpp": (".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"),
}
EXTENSIONS = {ext: language for language, exts in LANGUAGE_EXTENSIONS.items() for ext in exts}
ALL_LANGUAGES = tuple(LANGUAGE_EXTENSIONS)
DEFAULT_LANGUAGES = ALL_LANGUAGES
KINDS = ("exact", "regex", "pattern", "selector")
GRAMMARS = {"python": tree_sitter_python, "javascript": tree_sitter_javascript, "cpp": tree_sitter_cpp}
SELECTORS = json.loads(Path(__file__).with_name("selectors.json").read_text(encoding="utf-8"))
"""Selector -> language -> node entries: ``kind``, ``kind<parent``, ``kind^ancestor``, ``kind:first-word``
(``*`` in a kind matches any characters), or ``-kind`` for a kind never matched."""
REGEX_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}

# A pattern is literal text, `$$` (a literal `$`) and metavariables `$NAME` / `$NAME?`.
PATTERN_PIECE = re.compile(r"\$\$|\$(\w+)(\?)?|\$")
# A fix template is literal text, `$$` (a literal `$`) and placeholders `$NAME`.
TEMPLATE_PIECE = re.compile(r"\$\$|\$(\w+)|\$")

# ------------------------------------------------------------------ tokens

OPERATORS = (">>>=", "<<=", ">>=", "**=", "//=", "...", "->*", "::", "->", "==", "!=", "<=", ">=", "+=", "-=",
             "*=", "/=", "%=", "&=", "|=", "^=", "//", "**", "&&", "||", "??", "?.", "=>", "++", "--", "<<", ">>")
QUOTED = r"{q}(?:\\[\s\S]?|[^{q}\\])*{q}?"
LINE_COMMENT, BLOCK_COMMENT = r"{}[^\r\n]*", r"/\*[\s\S]*?(?:\*/|\Z)"
C_COMMENTS = (LINE_COMMENT.format("//"), BLOCK_COMMENT)
LEXICON = {
    "python": ((LINE_COMMENT.format("#"),),
               (r"'''[\s\S]*?(?:'''|\Z)", r'"""[\s\S]*?(?:"""|\Z)', QUOTED.format(q="'"), QUOTED.format(q='"'))),
    "javascript": (C_COMMENTS, (QUOTED.format(q="'"), QUOTED.format(q='"'), QUOTED.format(q="`"))),
    "cpp": (C_COMMENTS, (QUOTED.format(q="'"), QUOTED.format(q='"'))),
}
"""Language -> (comment forms, string literal forms)."""
NUMBER = r"0[xX]\w*|(?=\.?\d)[\w.']+"
WORD = r"(?:[^\W\d]|\$)(?:\w|\$)*"


def lexer(language: str) -> re.Pattern[str]:
    """Skips whitespace and comments (never backing into them); group 1 is the next token."""
    comments, strings = LEXICON[language]
    token = "|".join((*strings, NUMBER, WORD, *map(re.escape, OPERATORS), r"[\s\S]"))
    return re.compile(rf"(?:[ \t\v\f\r\n]+|{'|'.join(comments)})*+({token})")


LEXERS = {language: lexer(language) for language in LEXICON}


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int


def tokenize(text: str, language: str) -> list[Token]:
    tokens, scan, position = [], LEXERS[language], 0
    while found := scan.match(text, position):
        tokens.append(Token(found.group(1), found.start(1), found.end(1)))
        position = found.end()
    return tokens


class UsageError(Exception):
    """Invalid rules, root directory or encoding: exit code 1."""


@dataclass(frozen=True)
class Element:
    """One step of a compiled pattern: a literal token text, or a metavariable ``name``."""

    literal: str | None = None
    name: str | None = None
    optional: bool = False


@dataclass(frozen=True)
class Rule:
    """A checked rule; ``pattern`` holds the selector of a selector rule."""

    rule_id: str
    kind: str
    pattern: str
    languages: tuple[str, ...]
    regex: re.Pattern[str] | None = None
    elements: dict[str, tuple[Element, ...]] | None = None
    fix: str | None = None


@dataclass(frozen=True)
class Match:
    rule_id: str
    file: str
    language: str
    start: tuple[int, int]
    end: tuple[int, int]
    text: str
    offsets: tuple[int, int] = field(compare=False)
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
        if self.captures:
            record["captures"] = {name: self.captures[name] for name in sorted(self.captures)}
        return record


def point(position: tuple[int, int]) -> dict:
    return {"line": position[0], "col": position[1]}


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
    rule_id, kind = entry.get("id"), entry.get("kind")
    require(isinstance(rule_id, str) and rule_id != "", "rule id must be a non-empty string")
    require(kind in KINDS, f"rule {rule_id}: unknown kind {kind!r}")
    field_name, other = ("selector", "pattern") if kind == "selector" else ("pattern", "selector")
    require(other not in entry, f"rule {rule_id}: a {kind} rule has no {other} field")
    pattern = entry.get(field_name)
    require(isinstance(pattern, str) and pattern != "", f"rule {rule_id}: {field_name} must be a non-empty string")
    rule = Rule(rule_id, kind, pattern, parse_languages(rule_id, entry.get("languages")))
    return replace(rule, **COMPILERS[kind](rule, entry), fix=parse_fix(rule, entry.get("fix")))


COMPILERS = {
    "exact": lambda rule, entry: {},
    "regex": lambda rule, entry: {"regex": compile_regex(rule.rule_id, rule.pattern, entry.get("regex_flags"))},
    "pattern": lambda rule, entry: {"elements": compile_pattern(rule.rule_id, rule.pattern)},
    "selector": lambda rule, entry: check_selector(rule),
}
"""Rule kind -> the compiled fields it adds to its :class:`Rule`."""


def check_selector(rule: Rule) -> dict:
    require(rule.pattern in SELECTORS, f"rule {rule.rule_id}: unknown selector {rule.pattern!r}")
    return {}


def parse_fix(rule: Rule, fix: object) -> str | None:
    """The fix template, checked: ``$$``, ``$MATCH`` and (pattern rules) the pattern's metavariables."""
    if fix is None:
        return None
    require(isinstance(fix, dict) and fix.get("kind") == "replace", f"rule {rule.rule_id}: fix.kind must be 'replace'")
    template = fix.get("template")
    require(isinstance(template, str), f"rule {rule.rule_id}: fix.template must be a string")
    names = {"MATCH"} | ({found.group(1) for found in PATTERN_PIECE.finditer(rule.pattern) if found.group(1)}
                         if rule.kind == "pattern" else set())
    for found in TEMPLATE_PIECE.finditer(template):
        require(found.group() == "$$" or found.group(1) in names,
                f"rule {rule.rule_id}: fix template placeholder {found.group()!r} names no capture")
    return template


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


def compile_pattern(rule_id: str, pattern: str) -> dict[str, tuple[Element, ...]]:
    """The pattern's elements in each language (literal text is split into that language's tokens)."""
    require(all(found.group() != "$" for found in PATTERN_PIECE.finditer(pattern)),
            f"rule {rule_id}: a '$' must start $NAME or be written $$")
    return {language: pattern_elements(pattern, language) for language in ALL_LANGUAGES}


def pattern_elements(pattern: str, language: str) -> tuple[Element, ...]:
    elements: list[Element] = []
    literal, position = "", 0
    for found in PATTERN_PIECE.finditer(pattern):
        literal += pattern[position:found.start()]
        position = found.end()
        if found.group(1) is None:
            literal += "$"
            continue
        elements += [Element(token.text) for token in tokenize(literal, language)]
        elements.append(Element(name="$" + found.group(1), optional=found.group(2) is not None))
        literal = ""
    literal += pattern[position:]
    return (*elements, *(Element(token.text) for token in tokenize(literal, language)))


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
        Match(rule.rule_id, rel, language, index.position(start), index.position(end), text[start:end], (start, end))
        for start, end in spans(rule, text)
    ]


CLOSING = {")": "(", "]": "[", "}": "{"}
OPENING = set(CLOSING.values())
SEPARATORS = {";", ","}


def capture_ends(tokens: list[Token], start: int):
    """End indices (exclusive), shortest first, of the runs from ``start`` a metavariable may bind:
    no ``;`` or ``,`` token, brackets balanced."""
    open_brackets: list[str] = []
    for end in range(start, len(tokens)):
        text = tokens[end].text
        if text in SEPARATORS:
            return
        if text in OPENING:
            open_brackets.append(text)
        elif text in CLOSING and (not open_brackets or open_brackets.pop() != CLOSING[text]):
            return
        if not open_brackets:
            yield end + 1


@dataclass(frozen=True)
class TokenMatcher:
    """Matches one pattern's elements against one file's tokens."""

    elements: tuple[Element, ...]
    tokens: list[Token]

    def texts(self, start: int, end: int) -> list[str]:
        return [token.text for token in self.tokens[start:end]]

    def extend(self, at: int, step: int, bound: dict[str, list]) -> tuple[int, dict[str, list]] | None:
        """Match elements ``step``... from token ``at``: (end token, metavariable -> [(start, end)])."""
        if step == len(self.elements):
            return at, bound
        element = self.elements[step]
        if element.name is None:
            same = at < len(self.tokens) and self.tokens[at].text == element.literal
            return self.extend(at + 1, step + 1, bound) if same else None
        if element.name in bound:
            first_start, first_end = bound[element.name][0]
            end = at + first_end - first_start
            if self.texts(at, end) != self.texts(first_start, first_end):
                return None
            return self.extend(end, step + 1, {**bound, element.name: [*bound[element.name], (at, end)]})
        if element.optional and (found := self.extend(at, step + 1, bound)):
            return found
        for end in capture_ends(self.tokens, at):
            if found := self.extend(end, step + 1, {**bound, element.name: [(at, end)]}):
                return found
        return None

    def matches(self):
        """(start token, end token, bindings) of each match, left to right, never overlapping."""
        at = 0
        while at < len(self.tokens):
            found = self.extend(at, 0, {})
            if found and found[0] > at:
                yield at, *found
                at = found[0]
            else:
                at += 1


@dataclass(frozen=True)
class Source:
    """One decoded file: its text, its tokens and a line index."""

    rel: str
    language: str
    text: str
    tokens: list[Token]
    index: LineIndex

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Character offsets from the first character of token ``start`` to the end of token ``end - 1``."""
        return self.tokens[start].start, self.tokens[end - 1].end

    def capture(self, spans: list[tuple[int, int]]) -> dict:
        ranges = []
        for start, end in spans:
            first, last = self.span(start, end)
            ranges.append({"start": point(self.index.position(first)), "end": point(self.index.position(last))})
        first, last = self.span(*spans[0])
        return {"text": self.text[first:last], "ranges": ranges}

    def pattern_matches(self, rule: Rule) -> list[Match]:
        found = []
        for start, end, bound in TokenMatcher(rule.elements[self.language], self.tokens).matches():
            first, last = self.span(start, end)
            captures = {name: self.capture(spans) for name, spans in bound.items()}
            found.append(Match(rule.rule_id, self.rel, self.language, self.index.position(first),
                               self.index.position(last), self.text[first:last], (first, last), captures))
        return found

    @cached_property
    def syntax_tree(self) -> Node:
        return Parser(Language(GRAMMARS[self.language].language())).parse(self.text.encode("utf-8")).root_node

    @cached_property
    def byte_to_char(self) -> list[int]:
        """Character offset of every UTF-8 byte offset of the text (and of its end)."""
        return [i for i, char in enumerate(self.text) for _ in char.encode("utf-8")] + [len(self.text)]

    def selector_matches(self, rule: Rule) -> list[Match]:
        entries = [NodeEntry.parse(entry) for entry in SELECTORS[rule.pattern].get(self.language, [])]
        found = []
        for node in selected(self.syntax_tree, entries):
            first, last = self.byte_to_char[node.start_byte], self.byte_to_char[node.end_byte]
            found.append(Match(rule.rule_id, self.rel, self.language, self.index.position(first),
                               self.index.position(last), self.text[first:last], (first, last)))
        return found


@dataclass(frozen=True)
class NodeEntry:
    """One entry of a selector's list for a language (see :data:`SELECTORS`)."""

    kind: str
    relation: str | None = None
    other: str | None = None

    @classmethod
    def parse(cls, entry: str) -> NodeEntry:
        found = re.fullmatch(r"(-?[\w*]+)(?:([<^:])(\w+))?", entry)
        return cls(*found.groups())

    def holds(self, node: Node) -> bool:
        return fnmatchcase(node.type, self.kind.lstrip("-")) and RELATIONS[self.relation](node, self.other)


RELATIONS = {
    None: lambda node, other: True,
    "<": lambda node, other: node.parent is not None and node.parent.type == other,
    "^": lambda node, other: any(ancestor.type == other for ancestor in ancestors(node)),
    ":": lambda node, other: bool(node.children) and node.children[0].text.decode("utf-8") == other,
}


def ancestors(node: Node):
    while node.parent is not None:
        node = node.parent
        yield node


def selected(root: Node, entries: list[NodeEntry]):
    """Named nodes that some entry holds for and no ``-kind`` entry excludes, in source order; the nodes
    inside a selected node are not visited."""
    wanted = [entry for entry in entries if not entry.kind.startswith("-")]
    excluded = [entry for entry in entries if entry.kind.startswith("-")]
    pending = [root]
    while pending:
        node = pending.pop()
        if node.is_named and any(e.holds(node) for e in wanted) and not any(e.holds(node) for e in excluded):
            yield node
        else:
            pending.extend(reversed(node.children))


def search_file(rules: list[Rule], rel: str, language: str, text: str) -> list[Match]:
    matches: list[Match] = []
    source = Source(rel, language, text, tokenize(text, language), LineIndex(text))
    for rule in (rule for rule in rules if language in rule.languages):
        matches.extend(SEARCHES[rule.kind](source, rule))
    return matches


SEARCHES = {
    "exact": lambda source, rule: text_matches(rule, source.rel, source.language, source.text),
    "regex": lambda source, rule: text_matches(rule, source.rel, source.language, source.text),
    "pattern": Source.pattern_matches,
    "selector": Source.selector_matches,
}
"""Rule kind -> the matches of a rule in a :class:`Source`."""


def search(root: Path, rules: list[Rule], encoding: str) -> list[Match]:
    matches: list[Match] = []
    for rel, path, language in source_files(root):
        text = read_text(path, encoding)
        if text is not None:
            matches.extend(search_file(rules, rel, language, text))
    return sorted(matches, key=Match.sort_key)


# ------------------------------------------------------------------- fixes

@dataclass(frozen=True)
class FixEvent:
    """The fix of one match: its replacement text and what became of it."""

    match: Match
    replacement: str
    applied: bool = False
    skipped_reason: str | None = None

    def to_json(self) -> dict:
        record = self.match.to_json()
        return {"event": "fix", **{key: record[key] for key in ("rule_id", "file", "language", "start", "end")},
                "replacement": self.replacement, "applied": self.applied, "skipped_reason": self.skipped_reason}


def render(template: str, match: Match) -> str:
    """The template with ``$$`` -> ``$``, ``$MATCH`` -> the match, ``$NAME`` -> the capture's text."""
    def value(found: re.Match[str]) -> str:
        if found.group() == "$$":
            return "$"
        if found.group(1) == "MATCH":
            return match.text
        return (match.captures or {}).get(found.group(), {}).get("text", "")
    return TEMPLATE_PIECE.sub(value, template)


def fix_events(matches: list[Match], rules: list[Rule], apply: bool, root: Path, encoding: str) -> dict[int, FixEvent]:
    """Match index -> its fix, for matches of rules with a fix; with ``apply``, the fixes are written."""
    templates = {rule.rule_id: rule.fix for rule in rules if rule.fix is not None}
    fixable = [(index, match) for index, match in enumerate(matches) if match.rule_id in templates]
    events = {index: FixEvent(match, render(templates[match.rule_id], match)) for index, match in fixable}
    for rel, group in groupby(fixable, key=lambda item: item[1].file) if apply else ():
        apply_fixes(root / rel, [index for index, _ in group], events, encoding)
    return events


def apply_fixes(path: Path, indices: list[int], events: dict[int, FixEvent], encoding: str) -> None:
    """Apply one file's fixes in output order, skipping each that starts before the end of the last
    applied one; rewrites the file."""
    text = path.read_bytes().decode(encoding)
    pieces, cursor = [], 0
    for index in indices:
        start, end = events[index].match.offsets
        if start < cursor:
            events[index] = replace(events[index], skipped_reason="overlap")
            continue
        pieces += [text[cursor:start], events[index].replacement]
        cursor = end
        events[index] = replace(events[index], applied=True)
    path.write_bytes(("".join(pieces) + text[cursor:]).encode(encoding))


# -------------------------------------------------------------------- cli

def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="code_search", description=__doc__)
    parser.add_argument("root_dir")
    parser.add_argument("--rules", required=True)
    parser.add_argument("--encoding", default="utf-8")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="print the fixes without writing them")
    mode.add_argument("--apply-fixes", action="store_true", help="write the fixes and print them")
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
        rules = load_rules(args.rules)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    matches = search(root, rules, args.encoding)
    fixing = args.dry_run or args.apply_fixes
    events = fix_events(matches, rules, args.apply_fixes, root, args.encoding) if fixing else {}
    for index, match in enumerate(matches):
        lines = [match.to_json()] + ([events[index].to_json()] if index in events else [])
        sys.stdout.write("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    return 0


if __name__ == "__main__":
    sys.stdout.reconfigure(encoding="utf-8")
    sys.exit(main(sys.argv[1:]))
