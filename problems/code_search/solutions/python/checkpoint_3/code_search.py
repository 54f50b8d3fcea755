#!/usr/bin/env python3
"""Search Python, JavaScript and C++ files with exact, regex and structural pattern rules.

Every match is printed as one JSON object per line."""

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
KINDS = ("exact", "regex", "pattern")
REGEX_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL}

# A pattern is literal text, `$$` (a literal `$`) and metavariables `$NAME` / `$NAME?`.
PATTERN_PIECE = re.compile(r"\$\$|\$(\w+)(\?)?|\$")

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
    rule_id: str
    kind: str
    pattern: str
    languages: tuple[str, ...]
    regex: re.Pattern[str] | None = None
    elements: dict[str, tuple[Element, ...]] | None = None


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
    rule_id, kind, pattern = entry.get("id"), entry.get("kind"), entry.get("pattern")
    require(isinstance(rule_id, str) and rule_id != "", "rule id must be a non-empty string")
    require(kind in KINDS, f"rule {rule_id}: unknown kind {kind!r}")
    require(isinstance(pattern, str) and pattern != "", f"rule {rule_id}: pattern must be a non-empty string")
    languages = parse_languages(rule_id, entry.get("languages"))
    if kind == "regex":
        return Rule(rule_id, kind, pattern, languages, regex=compile_regex(rule_id, pattern, entry.get("regex_flags")))
    if kind == "pattern":
        return Rule(rule_id, kind, pattern, languages, elements=compile_pattern(rule_id, pattern))
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
        Match(rule.rule_id, rel, language, index.position(start), index.position(end), text[start:end])
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
                               self.index.position(last), self.text[first:last], captures))
        return found


def search_file(rules: list[Rule], rel: str, language: str, text: str) -> list[Match]:
    matches: list[Match] = []
    source = Source(rel, language, text, tokenize(text, language), LineIndex(text))
    for rule in (rule for rule in rules if language in rule.languages):
        matches.extend(source.pattern_matches(rule) if rule.kind == "pattern" else
                       text_matches(rule, rel, language, text))
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
