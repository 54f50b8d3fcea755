"""circopt: read .circ, JSON and BENCH circuits, validate them, evaluate them in 2- or 3-valued logic, measure, lint
and draw them, extract cones, tabulate them, compare two circuits and optimize them (checkpoint 8)."""

from __future__ import annotations

import json
import random
import re
import sys
from dataclasses import dataclass, field
from functools import reduce
from operator import and_, or_, xor

VERSION = "1.0.0"
KEYWORDS = ("input", "output", "wire")
MANY = 1 << 30
ARITY = {"NOT": (1, 1), "BUF": (1, 1), "AND": (2, MANY), "OR": (2, MANY), "XOR": (2, MANY),
         "NAND": (2, MANY), "NOR": (2, MANY), "XNOR": (2, MANY), "MUX": (3, 3), "ITE": (3, 3),
         "REDUCE_AND": (1, 1), "REDUCE_OR": (1, 1), "REDUCE_XOR": (1, 1), "EQ": (2, 2)}
TOKEN = re.compile(r"(?P<space>[ \t\r]+)|(?P<newline>\n)|(?P<comment>#[^\n]*)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                   r"|(?P<number>[0-9][0-9_]*'[A-Za-z][0-9A-Za-z_]*|0[bBxX][0-9A-Za-z_]*|[0-9]+)"
                   r"|(?P<punct>[=(),\[\]:{}])")
SIZED = re.compile(r"([0-9]+)'([bBhHdD])([0-9A-Za-z]+)")
RADICES = ("bin", "hex", "dec")
MODES = ("2val", "3val")
USAGE = """usage: circopt [--help] [--version] [--json] <command> [arguments]

commands:
  check <file>    parse and validate a circuit file, report its inputs and outputs
  eval <file> [--set name=value ...] [--default value] [--allow-extra] [--radix bin|hex|dec]
              [--mode 2val|3val]
                  evaluate the circuit's outputs from the given inputs (X inputs in 3val mode)
  stats <file>    counts, depth and operator histogram
  lint <file> [--max-input-bits N]
                  unused inputs and constant outputs
  dot <file> -o <out.dot> [--cone out1,out2]
                  write the circuit as a Graphviz graph
  cone <file> -o <out.circ|out.json> --outputs y,z [--out-format circ|json]
                  write the part of the circuit the outputs need, in canonical form
  truth-table <file> --max-input-bits N [--radix bin|hex|dec] [-o out.csv]
                  every input combination and the outputs it gives
  equiv <a> <b> --max-input-bits N [--trials T] [--outputs y,z]
                  compare two circuits on every (or T random) input combinations; exit 10 if they differ
  opt <file> -o <out.circ|out.json|out.bench> [--pipeline default|clean|area|depth] [--passes p1,p2]
      [--max-iters K] [--fanin-limit none|2|3|4] [--rename keep|compact] [--out-format circ|json|bench]
      [--verify --max-input-bits N [--trials T]] [--report report.json]
                  write an optimized circuit that computes the same outputs
global options: --format auto|circ|json|bench, --seed S (random choices of equiv)
"""


class CircuitError(Exception):
    """An error reported to the user: its type name, exit code and where it happened."""

    exit_code: int

    def __init__(self, message: str, file: str | None = None, line: int | None = None, col: int | None = None):
        super().__init__(message)
        self.message = message
        self.file, self.line, self.col = file, line, col

    def to_dict(self) -> dict:
        """The ``error`` object of a JSON report."""
        return {"type": type(self).__name__.removeprefix("Circuit"), "message": self.message,
                "file": self.file, "line": self.line, "col": self.col}


def _error_type(name: str, code: int) -> type[CircuitError]:
    return type(name, (CircuitError,), {"exit_code": code})


CliUsageError = _error_type("CliUsageError", 1)
CircuitFileNotFoundError = _error_type("CircuitFileNotFoundError", 1)
CircParseError = _error_type("CircParseError", 2)
DeclarationAfterAssignmentError = _error_type("DeclarationAfterAssignmentError", 3)
DuplicateNameError = _error_type("DuplicateNameError", 3)
UndefinedNameError = _error_type("UndefinedNameError", 3)
InputAssignmentError = _error_type("InputAssignmentError", 3)
MultipleAssignmentError = _error_type("MultipleAssignmentError", 3)
UnassignedSignalError = _error_type("UnassignedSignalError", 3)
ArityError = _error_type("ArityError", 3)
CycleError = _error_type("CycleError", 3)
WidthMismatchError = _error_type("WidthMismatchError", 3)
IndexOutOfBoundsError = _error_type("IndexOutOfBoundsError", 3)
InputWidthMismatchError = _error_type("InputWidthMismatchError", 3)
InternalError = _error_type("InternalError", 4)
UnknownInputError = _error_type("UnknownInputError", 1)
MissingInputError = _error_type("MissingInputError", 1)
InputValueParseError = _error_type("InputValueParseError", 2)
RadixNotAllowedIn3ValError = _error_type("RadixNotAllowedIn3ValError", 1)
UnknownInputFormatError = _error_type("UnknownInputFormatError", 1)
JsonParseError = _error_type("JsonParseError", 2)
JsonSchemaError = _error_type("JsonSchemaError", 3)
BenchParseError = _error_type("BenchParseError", 2)
RedefinitionError = _error_type("RedefinitionError", 3)
UnknownOutputFormatError = _error_type("UnknownOutputFormatError", 1)
UnsupportedFeatureError = _error_type("UnsupportedFeatureError", 1)
InputLimitExceeded = _error_type("InputLimitExceeded", 1)
PortMismatchError = _error_type("PortMismatchError", 3)
FORMATS = ("auto", "circ", "json", "bench")
EXTENSIONS = {".circ": "circ", ".json": "json", ".bench": "bench"}
BENCH_OPERATORS = ("NOT", "BUF", "AND", "OR", "XOR", "NAND", "NOR", "XNOR")
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
BENCH_PORT = re.compile(r"(INPUT|OUTPUT)\s*\(\s*([^()\s]*)\s*\)")
BENCH_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)")
BENCH_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)")


def mask(width: int) -> int:
    return (1 << width) - 1


@dataclass(frozen=True)
class Bits:
    """A value of ``width`` bits: ``known`` has a 1 where the bit is 0 or 1, ``value`` its 1 bits (0 where X)."""

    value: int
    known: int
    width: int

    @classmethod
    def of(cls, value: int, width: int) -> Bits:
        return cls(value, mask(width), width)

    def ones(self) -> int:
        return self.value & self.known

    def zeros(self) -> int:
        return ~self.value & self.known & mask(self.width)

    def invert(self) -> Bits:
        return Bits(~self.value & self.known & mask(self.width), self.known, self.width)


def bits_from(ones: int, zeros: int, width: int) -> Bits:
    return Bits(ones, ones | zeros, width)


def scalar(value: int | None) -> Bits:
    """A one-bit value: 0, 1, or X for None."""
    return Bits(0, 0, 1) if value is None else Bits.of(value, 1)


def gate_and(args: list[Bits]) -> Bits:
    ones, zeros = mask(args[0].width), 0
    for arg in args:
        ones, zeros = ones & arg.ones(), zeros | arg.zeros()
    return bits_from(ones, zeros, args[0].width)


def gate_or(args: list[Bits]) -> Bits:
    ones, zeros = 0, mask(args[0].width)
    for arg in args:
        ones, zeros = ones | arg.ones(), zeros & arg.zeros()
    return bits_from(ones, zeros, args[0].width)


def gate_xor(args: list[Bits]) -> Bits:
    value, known = 0, mask(args[0].width)
    for arg in args:
        value, known = value ^ arg.value, known & arg.known
    return Bits(value & known, known, args[0].width)


def gate_mux(args: list[Bits]) -> Bits:
    select, when_one, when_zero = args
    if select.known:
        return when_one if select.value else when_zero
    agree = when_one.known & when_zero.known & ~(when_one.value ^ when_zero.value)
    return Bits(when_one.value & agree, agree, when_one.width)


def gate_eq(args: list[Bits]) -> Bits:
    left, right = args
    both = left.known & right.known
    if (left.value ^ right.value) & both:
        return scalar(0)
    return scalar(1 if both == mask(left.width) else None)


def reduce_and(args: list[Bits]) -> Bits:
    arg = args[0]
    return scalar(0 if arg.zeros() else 1 if arg.ones() == mask(arg.width) else None)


def reduce_or(args: list[Bits]) -> Bits:
    arg = args[0]
    return scalar(1 if arg.ones() else 0 if arg.zeros() == mask(arg.width) else None)


def reduce_xor(args: list[Bits]) -> Bits:
    arg = args[0]
    return scalar(bin(arg.value).count("1") % 2 if arg.known == mask(arg.width) else None)


GATES = {  # op -> the arguments' values -> the result (three-valued; two-valued values are all known)
    "NOT": lambda args: args[0].invert(),
    "BUF": lambda args: args[0],
    "AND": gate_and,
    "OR": gate_or,
    "XOR": gate_xor,
    "NAND": lambda args: gate_and(args).invert(),
    "NOR": lambda args: gate_or(args).invert(),
    "XNOR": lambda args: gate_xor(args).invert(),
    "MUX": gate_mux,
    "ITE": gate_mux,
    "REDUCE_AND": reduce_and,
    "REDUCE_OR": reduce_or,
    "REDUCE_XOR": reduce_xor,
    "EQ": gate_eq,
}


class LiteralError(ValueError):
    """A literal's text that does not parse."""


def literal(text: str) -> tuple[int, int]:
    """The (value, width) of a literal written in any of the spec's forms; underscores are ignored."""
    text = text.replace("_", "")
    sized = SIZED.fullmatch(text)
    if sized:
        return _sized(int(sized.group(1)), sized.group(2).lower(), sized.group(3))
    base, digits = {"0b": (2, text[2:]), "0x": (16, text[2:])}.get(text[:2].lower(), (10, text))
    if base == 10:
        if text in ("0", "1"):
            return int(text), 1
        raise LiteralError(f"invalid literal {text!r}")
    value = _digits(digits, base)
    return value, len(digits) * (1 if base == 2 else 4)


def _digits(digits: str, base: int) -> int:
    allowed = "01" if base == 2 else "0123456789abcdef" if base == 16 else "0123456789"
    if not digits or any(c not in allowed for c in digits.lower()):
        raise LiteralError(f"invalid digits {digits!r} for base {base}")
    return int(digits, base)


def _sized(width: int, radix: str, digits: str) -> tuple[int, int]:
    if width < 1:
        raise LiteralError("a sized literal has a width of at least 1")
    value = _digits(digits, {"b": 2, "h": 16, "d": 10}[radix])
    if radix == "d" and value >= 1 << width:
        raise LiteralError(f"decimal value {value} does not fit in {width} bits")
    return value & mask(width), width


@dataclass(frozen=True)
class Token:
    kind: str  # name | number | punct | eof
    text: str
    line: int
    col: int


@dataclass(frozen=True)
class Const:
    value: int
    width: int


@dataclass(frozen=True)
class Select:
    """``name[hi:lo]``, or ``name[i]`` when ``index`` is set (then hi == lo == i)."""

    name: str
    hi: int
    lo: int
    index: bool


@dataclass(frozen=True)
class Concat:
    parts: tuple


@dataclass(frozen=True)
class Call:
    op: str
    args: tuple


@dataclass
class Circuit:
    """Declared signals (in declaration order) with their ranges, and the assignments (in file order)."""

    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    wires: list[str] = field(default_factory=list)
    ranges: dict[str, tuple[int, int]] = field(default_factory=dict)
    assignments: dict[str, object] = field(default_factory=dict)

    def width(self, name: str) -> int:
        msb, lsb = self.ranges[name]
        return msb - lsb + 1


def tokenize(text: str, file: str) -> list[Token]:
    """Split a .circ text into tokens, with 1-based positions; an unknown character is a parse error."""
    tokens, line, line_start, pos = [], 1, 0, 0
    while pos < len(text):
        match = TOKEN.match(text, pos)
        col = pos - line_start + 1
        if match is None:
            raise CircParseError(f"unexpected character {text[pos]!r}", file, line, col)
        kind = match.lastgroup
        if kind in ("name", "number", "punct"):
            tokens.append(Token(kind, match.group(), line, col))
        elif kind == "newline":
            line, line_start = line + 1, match.end()
        pos = match.end()
    tokens.append(Token("eof", "", line, pos - line_start + 1))
    return tokens


class Parser:
    """Reads tokens into a Circuit, raising the errors met in text order."""

    def __init__(self, text: str, file: str):
        self.file = file
        self.tokens = tokenize(text, file)
        self.pos = 0
        self.circuit = Circuit()

    def peek(self, ahead: int = 0) -> Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def take(self) -> Token:
        token = self.peek()
        self.pos += 1
        return token

    def fail(self, message: str, token: Token) -> CircParseError:
        return CircParseError(message, self.file, token.line, token.col)

    def parse(self) -> Circuit:
        assigning = False
        while self.peek().kind != "eof":
            token = self.peek()
            if token.kind != "name":
                raise self.fail(f"expected a declaration or an assignment, found {token.text!r}", token)
            if token.text.lower() in KEYWORDS:
                if assigning:
                    raise DeclarationAfterAssignmentError(f"'{token.text}' declaration after an assignment",
                                                          self.file, token.line, token.col)
                self.declaration()
            else:
                assigning = True
                self.assignment()
        return self.circuit

    def declaration(self) -> None:
        keyword = self.take()
        names = getattr(self.circuit, keyword.text.lower() + "s")
        while self.starts_name_on(keyword.line):
            token = self.take()
            self.reject_x(token)
            declared_range = self.declared_range() if self.peek().text == "[" else (0, 0)
            if token.text in self.circuit.ranges:
                raise DuplicateNameError(f"name '{token.text}' is declared twice", self.file, token.line, token.col)
            self.circuit.ranges[token.text] = declared_range
            names.append(token.text)

    def declared_range(self) -> tuple[int, int]:
        opening = self.take()
        msb = self.integer()
        self.expect(":")
        lsb = self.integer()
        self.expect("]")
        if msb < lsb:
            raise self.fail(f"range [{msb}:{lsb}]: msb must be at least lsb", opening)
        return msb, lsb

    def integer(self) -> int:
        token = self.take()
        if token.kind != "number" or not token.text.isdigit():
            raise self.fail(f"expected a decimal integer, found {token.text or 'end of file'!r}", token)
        return int(token.text)

    def starts_name_on(self, line: int) -> bool:
        token = self.peek()
        return (token.kind == "name" and token.line == line and token.text.lower() not in KEYWORDS
                and self.peek(1).text != "=")

    def assignment(self) -> None:
        target = self.take()
        self.expect("=")
        if target.text in self.circuit.assignments:
            raise MultipleAssignmentError(f"'{target.text}' is assigned more than once",
                                          self.file, target.line, target.col)
        self.circuit.assignments[target.text] = self.expression()

    def expect(self, text: str) -> Token:
        token = self.peek()
        if token.text != text:
            raise self.fail(f"expected '{text}' here", token)
        return self.take()

    def reject_x(self, token: Token) -> None:
        if token.text == "X":
            raise self.fail("the literal X is not allowed in .circ files", token)

    def expression(self) -> object:
        token = self.take()
        if token.kind == "number":
            try:
                return Const(*literal(token.text))
            except LiteralError as error:
                raise self.fail(str(error), token) from None
        if token.text == "{":
            return self.concatenation()
        if token.kind != "name":
            raise self.fail("expected an expression here", token)
        self.reject_x(token)
        if self.peek().text == "[":
            return self.selection(token.text)
        if self.peek().text != "(":
            return token.text
        if token.text.upper() not in ARITY:
            raise self.fail(f"unknown operator {token.text}", token)
        return Call(token.text.upper(), self.arguments(")"))

    def whole_expression(self) -> object:
        """The text as one expression (a JSON circuit's rhs), nothing after it."""
        expr = self.expression()
        if self.peek().kind != "eof":
            raise self.fail(f"unexpected {self.peek().text!r} after the expression", self.peek())
        return expr

    def selection(self, name: str) -> Select:
        self.take()
        hi = self.integer()
        lo, index = hi, True
        if self.peek().text == ":":
            self.take()
            lo, index = self.integer(), False
        self.expect("]")
        return Select(name, hi, lo, index)

    def concatenation(self) -> Concat:
        parts = self.arguments("}", opened=True)
        if not parts:
            raise self.fail("an empty concatenation", self.tokens[self.pos - 1])
        return Concat(parts)

    def arguments(self, closing: str, opened: bool = False) -> tuple:
        if not opened:
            self.take()  # (
        args = []
        if self.peek().text == closing:
            self.take()
            return ()
        args.append(self.expression())
        while self.peek().text == ",":
            self.take()
            args.append(self.expression())
        if self.peek().text != closing:
            last = self.tokens[self.pos - 1]
            raise CircParseError(f"expected '{closing}' or ','", self.file, last.line, last.col)
        self.take()
        return tuple(args)


class Checker:
    """Whole-file rules on a parsed circuit; ``width`` checks an expression and returns its width."""

    def __init__(self, circuit: Circuit, file: str):
        self.circuit, self.file = circuit, file

    def width(self, expr: object) -> int:
        if isinstance(expr, Const):
            return expr.width
        if isinstance(expr, str):
            self.declared(expr)
            return self.circuit.width(expr)
        if isinstance(expr, Select):
            return self.selection(expr)
        if isinstance(expr, Concat):
            return sum(self.width(part) for part in expr.parts)
        return self.call(expr)

    def declared(self, name: str) -> None:
        if name not in self.circuit.ranges:
            raise UndefinedNameError(f"'{name}' is not declared", self.file)

    def selection(self, expr: Select) -> int:
        self.declared(expr.name)
        msb, lsb = self.circuit.ranges[expr.name]
        if expr.index and not lsb <= expr.hi <= msb:
            raise IndexOutOfBoundsError(f"index {expr.hi} is outside {expr.name}[{msb}:{lsb}]", self.file)
        if expr.lo > expr.hi:
            raise IndexOutOfBoundsError(f"slice [{expr.hi}:{expr.lo}] has its low end {expr.lo} above its high end",
                                        self.file)
        if expr.lo < lsb or expr.hi > msb:
            bad = expr.hi if expr.hi > msb else expr.lo
            raise IndexOutOfBoundsError(f"slice [{expr.hi}:{expr.lo}] reaches index {bad}, outside "
                                        f"{expr.name}[{msb}:{lsb}]", self.file)
        return expr.hi - expr.lo + 1

    def call(self, expr: Call) -> int:
        low, high = ARITY[expr.op]
        if not low <= len(expr.args) <= high:
            raise ArityError(f"{expr.op} does not take {len(expr.args)} argument(s)", self.file)
        widths = [self.width(arg) for arg in expr.args]
        if expr.op in ("MUX", "ITE"):
            self.same(expr.op + " selector", [1, widths[0]])
            self.same(expr.op + " branches", widths[1:])
            return widths[1]
        if expr.op.startswith("REDUCE_"):
            return 1
        self.same(expr.op + " operands", widths)
        return 1 if expr.op == "EQ" else widths[0]

    def same(self, what: str, widths: list[int]) -> None:
        if len(set(widths)) > 1:
            raise WidthMismatchError(f"{what} have widths {' and '.join(map(str, widths))}", self.file)

    def assignments(self) -> None:
        for target, expr in self.circuit.assignments.items():
            width = self.width(expr)
            if width != self.circuit.width(target):
                raise WidthMismatchError(f"'{target}' has width {self.circuit.width(target)}, its expression "
                                         f"width {width}", self.file)


def names_in(expr: object) -> list[str]:
    if isinstance(expr, str):
        return [expr]
    if isinstance(expr, Select):
        return [expr.name]
    if isinstance(expr, (Call, Concat)):
        parts = expr.args if isinstance(expr, Call) else expr.parts
        return [name for part in parts for name in names_in(part)]
    return []


def find_cycle(circuit: Circuit) -> list[str] | None:
    """One cycle of the dependency graph as a path whose last name repeats its first, or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        if name not in circuit.assignments or state.get(name) == 2:
            return None
        if state.get(name) == 1:
            return path[path.index(name):] + [name]
        state[name] = 1
        path.append(name)
        for dep in names_in(circuit.assignments[name]):
            found = visit(dep)
            if found:
                return found
        path.pop()
        state[name] = 2
        return None

    for start in circuit.assignments:
        found = visit(start)
        if found:
            return found
    return None


def validate(circuit: Circuit, file: str) -> None:
    """The whole-file rules, in the order the spec gives."""
    for target in circuit.assignments:
        if target not in circuit.ranges:
            raise UndefinedNameError(f"assignment to undeclared name '{target}'", file)
    for target in circuit.assignments:
        if target in circuit.inputs:
            raise InputAssignmentError(f"input '{target}' cannot be assigned", file)
    Checker(circuit, file).assignments()
    for name in circuit.outputs + circuit.wires:
        if name not in circuit.assignments:
            raise UnassignedSignalError(f"'{name}' is never assigned", file)
    cycle = find_cycle(circuit)
    if cycle:
        raise CycleError("cycle: " + " -> ".join(cycle), file)


def parse_circ(text: str, path: str) -> Circuit:
    circuit = Parser(text, path).parse()
    validate(circuit, path)
    return circuit


def _schema(condition: bool, message: str, path: str) -> None:
    if not condition:
        raise JsonSchemaError(message, path)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _ports(document: dict, key: str, path: str) -> list[tuple[str, int, int]]:
    ports = document[key]
    _schema(isinstance(ports, list), f"{key} must be an array", path)
    found = []
    for index, port in enumerate(ports):
        where = f"{key}[{index}]"
        _schema(isinstance(port, dict), f"{where} must be an object", path)
        for field_name in ("name", "msb", "lsb"):
            _schema(field_name in port, f"{where} has no {field_name}", path)
        _schema(isinstance(port["name"], str), f"{where}.name must be a string", path)
        _schema(_is_int(port["msb"]) and _is_int(port["lsb"]), f"{where}.msb and .lsb must be integers", path)
        _schema(port["msb"] >= port["lsb"] >= 0, f"{where} needs msb >= lsb >= 0", path)
        found.append((port["name"], port["msb"], port["lsb"]))
    return found


def _assignments(document: dict, path: str) -> list[tuple[str, str]]:
    assignments = document["assignments"]
    _schema(isinstance(assignments, list), "assignments must be an array", path)
    found = []
    for index, item in enumerate(assignments):
        where = f"assignments[{index}]"
        _schema(isinstance(item, dict) and "lhs" in item and "rhs" in item, f"{where} needs lhs and rhs", path)
        _schema(isinstance(item["lhs"], str) and isinstance(item["rhs"], str), f"{where}: lhs and rhs are strings",
                path)
        found.append((item["lhs"], item["rhs"]))
    return found


def parse_json(text: str, path: str) -> Circuit:
    """A JSON circuit: its shape checked, each rhs parsed as a .circ expression, then validated as .circ."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise JsonParseError(f"not JSON: {error.msg}", path, error.lineno, error.colno) from None
    _schema(isinstance(document, dict), "the document must be an object", path)
    for key in ("format_version", "inputs", "outputs", "wires", "assignments"):
        _schema(key in document, f"missing key {key}", path)
    _schema(_is_int(document["format_version"]) and document["format_version"] == 1, "format_version must be 1",
            path)
    circuit = Circuit()
    for kind in ("inputs", "outputs", "wires"):
        for name, msb, lsb in _ports(document, kind, path):
            if name in circuit.ranges:
                raise DuplicateNameError(f"name '{name}' is declared twice", path)
            circuit.ranges[name] = (msb, lsb)
            getattr(circuit, kind).append(name)
    for lhs, rhs in _assignments(document, path):
        if lhs in circuit.assignments:
            raise MultipleAssignmentError(f"'{lhs}' is assigned more than once", path)
        circuit.assignments[lhs] = Parser(rhs, path).whole_expression()
    validate(circuit, path)
    return circuit


class BenchReader:
    """Reads a BENCH netlist line by line into a scalar Circuit, then checks outputs, arguments and cycles."""

    def __init__(self, path: str):
        self.path = path
        self.circuit = Circuit()
        self.line = 0

    def fail(self, message: str) -> BenchParseError:
        return BenchParseError(message, self.path, self.line)

    def read(self, text: str) -> Circuit:
        for self.line, raw in enumerate(text.split("\n"), start=1):
            statement = raw.split("#", 1)[0].strip()
            if statement:
                self.statement(statement)
        self.check()
        return self.circuit

    def statement(self, statement: str) -> None:
        if "[" in statement or "]" in statement:
            raise self.fail("BENCH signals are single bits: no [ or ]")
        port = BENCH_PORT.fullmatch(statement)
        if port:
            self.port(port.group(1), self.name(port.group(2)))
            return
        assignment = BENCH_ASSIGNMENT.fullmatch(statement)
        if not assignment:
            raise self.fail(f"not a BENCH statement: {statement}")
        self.assign(assignment.group(1), self.expression(assignment.group(2).strip()))

    def name(self, text: str) -> str:
        if not NAME.fullmatch(text):
            kind = "a literal" if text[:1].isdigit() else "not a name"
            raise self.fail(f"{text!r} is {kind}: BENCH arguments are signal names")
        return text

    def port(self, keyword: str, name: str) -> None:
        circuit = self.circuit
        if keyword == "OUTPUT":
            if name not in circuit.outputs:
                circuit.outputs.append(name)
            return
        if name in circuit.inputs or name in circuit.assignments:
            raise RedefinitionError(f"'{name}' is defined twice", self.path, self.line)
        circuit.inputs.append(name)
        circuit.ranges[name] = (0, 0)

    def expression(self, text: str) -> object:
        call = BENCH_CALL.fullmatch(text)
        if not call:
            return self.name(text)
        op = call.group(1)
        if op not in BENCH_OPERATORS:
            raise self.fail(f"unknown BENCH operator {op}")
        args = tuple(self.name(arg.strip()) for arg in call.group(2).split(","))
        low, high = ARITY[op]
        if not low <= len(args) <= high:
            raise self.fail(f"{op} takes {'exactly' if low == high else 'at least'} {low} argument(s)")
        return Call(op, args)

    def assign(self, name: str, expr: object) -> None:
        if name in self.circuit.inputs:
            raise self.fail(f"input '{name}' cannot be assigned")
        if name in self.circuit.assignments:
            raise RedefinitionError(f"'{name}' is assigned twice", self.path, self.line)
        self.circuit.assignments[name] = expr
        self.circuit.ranges[name] = (0, 0)

    def check(self) -> None:
        circuit = self.circuit
        for name in circuit.outputs:
            if name not in circuit.ranges:
                raise UndefinedNameError(f"output '{name}' is neither an input nor assigned", self.path)
        for expr in circuit.assignments.values():
            for name in names_in(expr):
                if name not in circuit.ranges:
                    raise UndefinedNameError(f"'{name}' is neither an input nor assigned", self.path)
        circuit.wires = [name for name in circuit.assignments if name not in circuit.outputs]
        cycle = find_cycle(circuit)
        if cycle:
            raise CycleError("cycle: " + " -> ".join(cycle), self.path)


READERS = {"circ": parse_circ, "json": parse_json, "bench": lambda text, path: BenchReader(path).read(text)}


def format_of(path: str, requested: str) -> str:
    if requested != "auto":
        return requested
    for extension, name in EXTENSIONS.items():
        if path.endswith(extension):
            return name
    raise UnknownInputFormatError(f"cannot tell the format of {path}: use --format circ, json or bench")


def load(path: str, requested: str = "auto") -> tuple[Circuit, str]:
    """Read, parse and validate a circuit file; the format it was read as."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise CircuitFileNotFoundError(f"file not found: {path}") from None
    fmt = format_of(path, requested)
    return READERS[fmt](text, path), fmt


def signals(circuit: Circuit, names: list[str]) -> list[dict]:
    return [{"name": name, "msb": circuit.ranges[name][0], "lsb": circuit.ranges[name][1]} for name in sorted(names)]


@dataclass
class Settings:
    """The global options: the input format and the --seed text (checked once the command is known)."""

    format: str = "auto"
    seed: str | None = None

    def random(self) -> random.Random:
        """The generator of random choices: seeded with --seed when given."""
        if self.seed is None:
            return random.Random()
        if not re.fullmatch(r"[0-9]+", self.seed):
            raise CliUsageError(f"--seed takes a non-negative integer, got {self.seed!r}")
        return random.Random(int(self.seed))


def cmd_check(args: list[str], as_json: bool, settings: Settings) -> dict:
    if not args:
        raise CliUsageError("check needs a circuit file")
    circuit, fmt = load(args[0], settings.format)
    if not as_json:
        print(f"{args[0]}: valid circuit")
        print("inputs: " + " ".join(sorted(circuit.inputs)))
        print("outputs: " + " ".join(sorted(circuit.outputs)))
    return {"format": fmt, "inputs": signals(circuit, circuit.inputs), "outputs": signals(circuit, circuit.outputs)}


@dataclass
class EvalOptions:
    """The arguments of ``eval``: the file, the --set values in order, --default, --allow-extra, --radix."""

    file: str | None = None
    values: dict[str, str] = field(default_factory=dict)
    default: str | None = None
    allow_extra: bool = False
    radix: str = "bin"
    mode: str = "2val"


def assignment_of(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise CliUsageError(f"--set takes name=value, got {text!r}")
    name, value = text.split("=", 1)
    return name, value


def _set_value(options: EvalOptions, value: str) -> None:
    name, text = assignment_of(value)
    options.values[name] = text


def _set_default(options: EvalOptions, value: str) -> None:
    options.default = value


def _set_radix(options: EvalOptions, value: str) -> None:
    if value not in RADICES:
        raise CliUsageError(f"--radix takes bin, hex or dec, got {value!r}")
    options.radix = value

def _set_mode(options: EvalOptions, value: str) -> None:
    if value not in MODES:
        raise CliUsageError(f"--mode takes 2val or 3val, got {value!r}")
    options.mode = value


VALUE_OPTIONS = {"--set": _set_value, "--default": _set_default, "--radix": _set_radix, "--mode": _set_mode}


def parse_eval_args(args: list[str]) -> EvalOptions:
    options, pending = EvalOptions(), list(args)
    while pending:
        arg = pending.pop(0)
        flag, inline, value = arg.partition("=")
        if flag in VALUE_OPTIONS:
            if not inline:
                if not pending:
                    raise CliUsageError(f"{flag} needs a value")
                value = pending.pop(0)
            VALUE_OPTIONS[flag](options, value)
        elif arg == "--allow-extra":
            options.allow_extra = True
        elif arg.startswith("-"):
            raise CliUsageError(f"unknown option {arg}")
        elif options.file is None:
            options.file = arg
    if options.mode == "3val" and options.radix != "bin":
        raise RadixNotAllowedIn3ValError(f"--radix {options.radix} is not allowed with --mode 3val")
    if options.file is None:
        raise CliUsageError("eval needs a circuit file")
    return options


def three_valued(text: str) -> Bits:
    """A 3val input value: a scalar X, or a binary literal (sized or not) whose digits may be X."""
    plain = text.replace("_", "")
    if plain in ("X", "x"):
        return Bits(0, 0, 1)
    sized = SIZED.fullmatch(plain)
    digits = sized.group(3) if sized and sized.group(2) in "bB" else plain[2:] if plain[:2] in ("0b", "0B") else None
    if digits is None or not any(c in "xX" for c in digits):
        value, width = literal(text)
        return Bits.of(value, width)
    if any(c not in "01xX" for c in digits):
        raise LiteralError(f"invalid binary digits {digits!r}")
    width = int(sized.group(1)) if sized else len(digits)
    if width < 1:
        raise LiteralError("a sized literal has a width of at least 1")
    digits = digits.rjust(width, "0")[-width:]
    value = int("".join("1" if c == "1" else "0" for c in digits), 2)
    known = int("".join("0" if c in "xX" else "1" for c in digits), 2)
    return Bits(value, known, width)


def value_for(circuit: Circuit, name: str, text: str, mode: str) -> Bits:
    """An input value's text parsed in the mode, then checked against the input's width."""
    try:
        bits = three_valued(text) if mode == "3val" else Bits.of(*literal(text))
    except LiteralError as error:
        raise InputValueParseError(f"invalid value {text!r} for input '{name}': {error}") from None
    if bits.width != circuit.width(name):
        raise InputWidthMismatchError(f"input '{name}' has width {circuit.width(name)}, the value {text!r} "
                                      f"width {bits.width}")
    return bits


def input_values(circuit: Circuit, options: EvalOptions) -> dict[str, Bits]:
    """The value of every input, checked in the order the spec gives."""
    values = {}
    for name, text in options.values.items():
        if name not in circuit.inputs:
            if options.allow_extra:
                continue
            raise UnknownInputError(f"'{name}' is not an input of the circuit")
        values[name] = value_for(circuit, name, text, options.mode)
    for name in circuit.inputs:
        if name not in values:
            if options.default is None:
                raise MissingInputError(f"no value for input '{name}'")
            values[name] = value_for(circuit, name, options.default, options.mode)
    return values


class Evaluator:
    """Every signal's value, each assignment computed once, on demand."""

    def __init__(self, circuit: Circuit, inputs: dict[str, Bits]):
        self.circuit = circuit
        self.known = dict(inputs)

    def signal(self, name: str) -> Bits:
        if name not in self.known:
            self.known[name] = self.value(self.circuit.assignments[name])
        return self.known[name]

    def value(self, expr: object) -> Bits:
        if isinstance(expr, Const):
            return Bits.of(expr.value, expr.width)
        if isinstance(expr, str):
            return self.signal(expr)
        if isinstance(expr, Select):
            whole = self.signal(expr.name)
            shift, width = expr.lo - self.circuit.ranges[expr.name][1], expr.hi - expr.lo + 1
            return Bits((whole.value >> shift) & mask(width), (whole.known >> shift) & mask(width), width)
        if isinstance(expr, Concat):
            value, known, width = 0, 0, 0
            for part in map(self.value, expr.parts):
                value = (value << part.width) | part.value
                known = (known << part.width) | part.known
                width += part.width
            return Bits(value, known, width)
        return GATES[expr.op]([self.value(arg) for arg in expr.args])


def written(bits: Bits) -> str:
    """A three-valued value: a scalar as 0, 1 or X, a vector as 0b and a digit per bit."""
    digits = "".join("X" if not bits.known >> i & 1 else str(bits.value >> i & 1)
                     for i in reversed(range(bits.width)))
    return digits if bits.width == 1 else "0b" + digits


def formatted(value: int, width: int, radix: str) -> str:
    """An output value as the spec writes it: a scalar as 0 or 1, a vector in the radix."""
    if width == 1:
        return str(value)
    if radix == "hex":
        return "0x" + format(value, f"0{(width + 3) // 4}x")
    if radix == "dec":
        return str(value)
    return "0b" + format(value, f"0{width}b")


def cmd_eval(args: list[str], as_json: bool, settings: Settings) -> dict:
    options = parse_eval_args(args)
    circuit, _ = load(options.file, settings.format)
    evaluator = Evaluator(circuit, input_values(circuit, options))
    show = written if options.mode == "3val" else lambda bits: formatted(bits.value, bits.width, options.radix)
    outputs = [{"name": name, "msb": circuit.ranges[name][0], "lsb": circuit.ranges[name][1],
                "value": show(evaluator.signal(name))} for name in sorted(circuit.outputs)]
    if not as_json:
        for output in outputs:
            print(f"{output['name']}={output['value']}")
    return {"mode": options.mode, "radix": options.radix, "outputs": outputs}


CATEGORIES = ("AND", "BUF", "CONCAT", "EQ", "MUX", "NAND", "NOR", "NOT", "OR", "REDUCE_AND", "REDUCE_OR", "REDUCE_XOR",
              "XOR", "XNOR")
DEFAULT_INPUT_BITS = 16


def category(expr: object) -> str:
    """The operator category of a right-hand side: its operator (ITE counts as MUX), CONCAT, or BUF."""
    if isinstance(expr, Concat):
        return "CONCAT"
    if isinstance(expr, Call):
        return "MUX" if expr.op == "ITE" else expr.op
    return "BUF"


def options_of(args: list[str], valued: tuple[str, ...],
               flags: tuple[str, ...] = ()) -> tuple[list[str], dict[str, str]]:
    """The positional arguments and the value of each option of ``valued`` (``--opt value`` or ``--opt=value``,
    the last one counts), an empty value for each of ``flags`` given; any other option is a CliUsageError."""
    positional, values, pending = [], {}, list(args)
    while pending:
        arg = pending.pop(0)
        flag, inline, value = arg.partition("=")
        if arg in flags:
            values[arg] = ""
        elif flag in valued:
            if not inline:
                if not pending:
                    raise CliUsageError(f"{flag} needs a value")
                value = pending.pop(0)
            values[flag] = value
        elif arg.startswith("-"):
            raise CliUsageError(f"unknown option {arg}")
        else:
            positional.append(arg)
    return positional, values


def loaded(positional: list[str], requested: str, command: str) -> Circuit:
    if not positional:
        raise CliUsageError(f"{command} needs a circuit file")
    return load(positional[0], requested)[0]


def integer_option(values: dict[str, str], flag: str, default: int | None) -> int:
    text = values.get(flag)
    if text is None:
        if default is None:
            raise CliUsageError(f"{flag} is required")
        return default
    if not re.fullmatch(r"-?[0-9]+", text):
        raise CliUsageError(f"{flag} takes an integer, got {text!r}")
    return int(text)


def reachable(circuit: Circuit, names: list[str]) -> set[str]:
    """The names ``names`` depend on, transitively, themselves included."""
    seen, pending = set(), list(names)
    while pending:
        name = pending.pop()
        if name not in seen:
            seen.add(name)
            pending.extend(names_in(circuit.assignments.get(name)))
    return seen


def depths(circuit: Circuit) -> dict[str, int]:
    """Each signal's depth: 0 for an input, else one more than its deepest dependency (1 for literals only)."""
    found = {name: 0 for name in circuit.inputs}

    def depth(name: str) -> int:
        if name not in found:
            found[name] = 1 + max((depth(dep) for dep in set(names_in(circuit.assignments[name]))), default=0)
        return found[name]

    for name in circuit.assignments:
        depth(name)
    return found


def measured(circuit: Circuit) -> dict:
    """The figures of ``stats``."""
    signal_depths = depths(circuit)
    histogram = dict.fromkeys(CATEGORIES, 0)
    for expr in circuit.assignments.values():
        histogram[category(expr)] += 1
    return {"inputs_count": len(circuit.inputs), "outputs_count": len(circuit.outputs),
              "wires_count": len(circuit.wires), "assignments_count": len(circuit.assignments),
              "edges_count": sum(len(names_in(expr)) for expr in circuit.assignments.values()),
              "depth": max((signal_depths[name] for name in circuit.outputs), default=0), "op_histogram": histogram}


def cmd_stats(args: list[str], as_json: bool, settings: Settings) -> dict:
    result = measured(loaded(options_of(args, ())[0], settings.format, "stats"))
    if not as_json:
        for key, value in result.items():
            if key != "op_histogram":
                print(f"{key}: {value}")
        print("op_histogram: " + " ".join(f"{name}={count}" for name, count in result["op_histogram"].items()))
    return result


def counter_plane(bit: int, rows: int) -> int:
    """The plane of bit ``bit`` of the row number: its bit k is bit ``bit`` of k, for k < rows."""
    length = 2 << bit
    plane = ((1 << (1 << bit)) - 1) << (1 << bit)
    while length < rows:
        plane |= plane << length
        length *= 2
    return plane


def _fold(op: object) -> object:
    return lambda args, full: [reduce(op, column) for column in zip(*args, strict=True)]


def _inverted(gate: object) -> object:
    return lambda args, full: [full ^ plane for plane in gate(args, full)]


def _mux(args: list[list[int]], full: int) -> list[int]:
    select = args[0][0]
    return [(select & one) | ((full ^ select) & zero) for one, zero in zip(args[1], args[2], strict=True)]


def _eq(args: list[list[int]], full: int) -> list[int]:
    return [full ^ reduce(or_, (left ^ right for left, right in zip(*args, strict=True)), 0)]


PLANE_GATES = {  # op -> (the arguments' planes, the all-ones plane) -> the result's planes, lowest bit first
    "NOT": lambda args, full: [full ^ plane for plane in args[0]],
    "BUF": lambda args, full: args[0],
    "AND": _fold(and_),
    "OR": _fold(or_),
    "XOR": _fold(xor),
    "NAND": _inverted(_fold(and_)),
    "NOR": _inverted(_fold(or_)),
    "XNOR": _inverted(_fold(xor)),
    "MUX": _mux,
    "ITE": _mux,
    "REDUCE_AND": lambda args, full: [reduce(and_, args[0])],
    "REDUCE_OR": lambda args, full: [reduce(or_, args[0])],
    "REDUCE_XOR": lambda args, full: [reduce(xor, args[0])],
    "EQ": _eq,
}


def input_bits(circuit: Circuit) -> int:
    return sum(circuit.width(name) for name in circuit.inputs)


def every_row(circuit: Circuit) -> dict[str, list[int]]:
    """The input planes of all combinations: row k gives the inputs, sorted by name and each written from its
    msb, the bits of k from the highest."""
    rows, first, planes = 1 << input_bits(circuit), 0, {}
    for name in sorted(circuit.inputs, reverse=True):
        planes[name] = [counter_plane(first + i, rows) for i in range(circuit.width(name))]
        first += circuit.width(name)
    return planes


def random_rows(circuit: Circuit, rows: int, generator: random.Random) -> dict[str, list[int]]:
    """Input planes of ``rows`` combinations whose bits are drawn at random."""
    return {name: [generator.getrandbits(rows) for _ in range(circuit.width(name))] for name in sorted(circuit.inputs)}


def row_value(planes: list[int], row: int) -> int:
    return sum(((plane >> row) & 1) << i for i, plane in enumerate(planes))


class Planes:
    """Every signal on many input combinations at once, bit-sliced: a signal is a list of planes (its lowest bit
    first), and bit k of a plane is that bit's value in row k."""

    def __init__(self, circuit: Circuit, inputs: dict[str, list[int]], rows: int):
        self.circuit = circuit
        self.rows = rows
        self.full = (1 << rows) - 1
        self.known = dict(inputs)

    def signal(self, name: str) -> list[int]:
        if name not in self.known:
            self.known[name] = self.value(self.circuit.assignments[name])
        return self.known[name]

    def value(self, expr: object) -> list[int]:
        if isinstance(expr, Const):
            return [self.full if expr.value >> i & 1 else 0 for i in range(expr.width)]
        if isinstance(expr, str):
            return self.signal(expr)
        if isinstance(expr, Select):
            low = self.circuit.ranges[expr.name][1]
            return self.signal(expr.name)[expr.lo - low:expr.hi - low + 1]
        if isinstance(expr, Concat):
            return [plane for part in reversed(expr.parts) for plane in self.value(part)]
        return PLANE_GATES[expr.op]([self.value(arg) for arg in expr.args], self.full)

    def constant(self, name: str) -> int | None:
        """The value an output has in every row, or None when it changes."""
        planes = self.signal(name)
        if any(plane not in (0, self.full) for plane in planes):
            return None
        return sum(1 << i for i, plane in enumerate(planes) if plane)


def constant_warnings(circuit: Circuit, limit: int) -> list[dict]:
    total = input_bits(circuit)
    if total > limit:
        return [{"type": "ConstantOutputCheckSkippedWarning", "name": None,
                 "message": f"constant output check skipped: {total} input bits exceeds limit {limit}"}]
    planes, warnings = Planes(circuit, every_row(circuit), 1 << total), []
    for name in circuit.outputs:
        value = planes.constant(name)
        if value is not None:
            warnings.append({"type": "ConstantOutputWarning", "name": name, "message": f"output '{name}' is constant",
                             "value": formatted(value, circuit.width(name), "bin")})
    return warnings


def cmd_lint(args: list[str], as_json: bool, settings: Settings) -> dict:
    positional, values = options_of(args, ("--max-input-bits",))
    limit = integer_option(values, "--max-input-bits", DEFAULT_INPUT_BITS)
    circuit = loaded(positional, settings.format, "lint")
    used = reachable(circuit, circuit.outputs)
    warnings = [{"type": "UnusedInputWarning", "name": name, "message": f"input '{name}' is not used by any output"}
                for name in circuit.inputs if name not in used]
    warnings = sorted(warnings + constant_warnings(circuit, limit), key=lambda w: (w["type"], w["name"] or ""))
    if not as_json:
        for warning in warnings:
            print(f"{warning['type']}: {warning['message']}")
    return {"warnings": warnings}


def label(circuit: Circuit, name: str) -> str:
    msb, lsb = circuit.ranges[name]
    return name if circuit.width(name) == 1 else f"{name}[{msb}:{lsb}]"


def dot_lines(circuit: Circuit, shown: set[str]) -> list[str]:
    """The graph's statements, one per line: a node per input, signal and assignment, an edge per dependency."""
    def node(name: str) -> str:
        return f'"in:{name}"' if name in circuit.inputs else f'"sig:{name}"'

    lines = {f'{node(name)} [label="{label(circuit, name)}"];' for name in shown}
    for target, expr in circuit.assignments.items():
        if target in shown:
            lines.add(f'"op:{target}" [label="{category(expr)}"];')
            lines.add(f'"op:{target}" -> {node(target)};')
            lines.update(f'{node(dep)} -> "op:{target}";' for dep in names_in(expr))
    return sorted(lines)


def cmd_dot(args: list[str], as_json: bool, settings: Settings) -> dict:
    positional, values = options_of(args, ("-o", "--cone"))
    if "-o" not in values:
        raise CliUsageError("dot needs -o <file>")
    circuit = loaded(positional, settings.format, "dot")
    cone = values["--cone"].split(",") if "--cone" in values else circuit.outputs
    for name in cone:
        if name not in circuit.outputs:
            raise UndefinedNameError(f"unknown output: {name}")
    shown = reachable(circuit, cone) if "--cone" in values else set(circuit.ranges)
    with open(values["-o"], "w", encoding="utf-8") as handle:
        handle.write("digraph circopt {\n" + "".join(f"  {line}\n" for line in dot_lines(circuit, shown)) + "}\n")
    if not as_json:
        print(f"wrote {values['-o']}")
    return {"dot_path": values["-o"]}


ASSOCIATIVE = ("AND", "OR", "XOR")


def declared(circuit: Circuit, name: str) -> str:
    msb, lsb = circuit.ranges[name]
    return name if (msb, lsb) == (0, 0) else f"{name}[{msb}:{lsb}]"


def flattened(expr: object, op: str) -> list:
    """The arguments of ``op`` with directly nested calls of the same ``op`` opened, recursively."""
    if isinstance(expr, Call) and expr.op == op:
        return [arg for inner in expr.args for arg in flattened(inner, op)]
    return [expr]


def written_expr(expr: object) -> str:
    """An expression in canonical text: AND, OR and XOR flattened with their arguments sorted as text."""
    if isinstance(expr, Const):
        return formatted(expr.value, expr.width, "bin")
    if isinstance(expr, str):
        return expr
    if isinstance(expr, Select):
        return f"{expr.name}[{expr.hi}]" if expr.index else f"{expr.name}[{expr.hi}:{expr.lo}]"
    if isinstance(expr, Concat):
        return "{" + ", ".join(map(written_expr, expr.parts)) + "}"
    if expr.op in ASSOCIATIVE:
        return f"{expr.op}({', '.join(sorted(written_expr(arg) for arg in flattened(expr, expr.op)))})"
    return f"{expr.op}({', '.join(map(written_expr, expr.args))})"


def dependency_order(circuit: Circuit) -> list[str]:
    """The assignments' targets, each after the signals it depends on; of those ready, the smallest name first."""
    waiting = {target: set(names_in(expr)) & set(circuit.assignments) for target, expr in circuit.assignments.items()}
    order: list[str] = []
    while waiting:
        target = min(name for name, deps in waiting.items() if not deps)
        order.append(target)
        del waiting[target]
        for deps in waiting.values():
            deps.discard(target)
    return order


def write_circ(circuit: Circuit) -> str:
    lines = ["input " + " ".join(declared(circuit, name) for name in sorted(circuit.inputs)),
             "output " + " ".join(declared(circuit, name) for name in sorted(circuit.outputs))]
    if circuit.wires:
        lines.append("wire " + " ".join(declared(circuit, name) for name in sorted(circuit.wires)))
    lines.append("")
    lines += [f"{target} = {written_expr(circuit.assignments[target])}" for target in dependency_order(circuit)]
    return "\n".join(lines) + "\n"


def write_json(circuit: Circuit) -> str:
    document = {"format_version": 1, "inputs": signals(circuit, circuit.inputs),
                "outputs": signals(circuit, circuit.outputs), "wires": signals(circuit, circuit.wires),
                "assignments": [{"lhs": target, "rhs": written_expr(circuit.assignments[target])}
                                for target in dependency_order(circuit)]}
    return json.dumps(document, indent=2) + "\n"


WRITERS = {"circ": write_circ, "json": write_json}


def output_format(path: str, requested: str | None) -> str:
    """The format to write: --out-format, else the extension of -o."""
    if requested == "bench":
        raise UnsupportedFeatureError("BENCH output is not supported by this command")
    if requested is None:
        extension = next((fmt for ext, fmt in EXTENSIONS.items() if path.endswith(ext)), None)
        if extension not in WRITERS:
            raise UnknownOutputFormatError(f"cannot tell the output format of {path}: use --out-format circ or json")
        return extension
    if requested not in WRITERS:
        raise CliUsageError(f"--out-format takes circ or json, got {requested!r}")
    return requested


def outputs_named(circuit: Circuit, text: str) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    for name in names:
        if name not in circuit.outputs:
            raise UndefinedNameError(f"unknown output: {name}")
    return names


def cone_of(circuit: Circuit, outputs: list[str]) -> Circuit:
    """The circuit the outputs need: those outputs, the signals they depend on, their assignments."""
    needed = reachable(circuit, outputs)
    return Circuit(inputs=[name for name in circuit.inputs if name in needed], outputs=list(dict.fromkeys(outputs)),
                   wires=[name for name in circuit.wires if name in needed], ranges=circuit.ranges,
                   assignments={target: expr for target, expr in circuit.assignments.items() if target in needed})


def required(values: dict[str, str], flag: str, command: str) -> str:
    if flag not in values:
        raise CliUsageError(f"{command} needs {flag}")
    return values[flag]


def cmd_cone(args: list[str], as_json: bool, settings: Settings) -> dict:
    positional, values = options_of(args, ("-o", "--outputs", "--out-format"))
    path = required(values, "-o", "cone")
    wanted = required(values, "--outputs", "cone")
    fmt = output_format(path, values.get("--out-format"))
    circuit = loaded(positional, settings.format, "cone")
    text = WRITERS[fmt](cone_of(circuit, outputs_named(circuit, wanted)))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    if not as_json:
        print(f"wrote {path}")
    return {"out_path": path}


def limited(circuit: Circuit, values: dict[str, str]) -> int:
    """The number of input bits, when it is within --max-input-bits."""
    limit, total = integer_option(values, "--max-input-bits", None), input_bits(circuit)
    if total > limit:
        raise InputLimitExceeded(f"the circuit has {total} input bits, more than the limit {limit}")
    return total


def columns(circuit: Circuit, names: list[str], planes: dict[str, list[int]], rows: int, radix: str) -> list[list[str]]:
    """For each name (sorted), its value in every row, written in the radix."""
    found = []
    for name in sorted(names):
        digits = [format(plane, f"0{rows}b")[::-1] for plane in planes[name]]
        found.append([formatted(int("".join(bits[::-1]), 2), circuit.width(name), radix)
                      for bits in zip(*digits, strict=True)])
    return found


def cmd_truth_table(args: list[str], as_json: bool, settings: Settings) -> dict:
    positional, values = options_of(args, ("--max-input-bits", "--radix", "-o", "--out-format", "--mode"))
    integer_option(values, "--max-input-bits", None)
    if values.get("--mode", "2val") != "2val":
        raise UnsupportedFeatureError("truth-table works in 2val mode only")
    radix = values.get("--radix", "bin")
    if radix not in RADICES:
        raise CliUsageError(f"--radix takes bin, hex or dec, got {radix!r}")
    circuit = loaded(positional, settings.format, "truth-table")
    rows = 1 << limited(circuit, values)
    evaluated = Planes(circuit, every_row(circuit), rows)
    inputs, outputs = sorted(circuit.inputs), sorted(circuit.outputs)
    table = list(zip(*columns(circuit, inputs, evaluated.known, rows, radix), *columns(
        circuit, outputs, {name: evaluated.signal(name) for name in outputs}, rows, radix), strict=True))
    if as_json:
        return {"radix": radix, "inputs": signals(circuit, inputs), "outputs": signals(circuit, outputs),
                "rows": [{"inputs": dict(zip(inputs, row[:len(inputs)], strict=True)),
                          "outputs": dict(zip(outputs, row[len(inputs):], strict=True))} for row in table]}
    text = "".join(",".join(line) + "\n" for line in [inputs + outputs, *table])
    if "-o" in values:
        with open(values["-o"], "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        print(text, end="")
    return {}


def same_ports(left: Circuit, right: Circuit, kind: str, names: list[str] | None = None) -> None:
    """The ports of ``kind`` (or only ``names``) exist in both circuits with the same ranges."""
    for first, second, which in ((left, right, "b"), (right, left, "a")):
        for name in getattr(first, kind) if names is None else names:
            if name not in getattr(second, kind) or name not in getattr(first, kind):
                raise PortMismatchError(f"{kind[:-1]} '{name}' is missing from circuit {which}")
            if first.ranges[name] != second.ranges[name]:
                raise PortMismatchError(f"{kind[:-1]} '{name}' has different ranges in the two circuits")


def port_values(circuit: Circuit, names: list[str], planes: dict[str, list[int]], row: int) -> list[dict]:
    return [{**port, "value": formatted(row_value(planes[port["name"]], row), circuit.width(port["name"]), "bin")}
            for port in signals(circuit, names)]


def compared(first: Circuit, second: Circuit, outputs: list[str], limit: int, trials: int,
             settings: Settings) -> dict:
    """``equiv``'s verdict on the outputs of two circuits with the same inputs, with a counterexample when they
    differ."""
    exhaustive = input_bits(first) <= limit
    rows = 1 << input_bits(first) if exhaustive else trials
    inputs = every_row(first) if exhaustive else random_rows(first, rows, settings.random())
    left, right = Planes(first, inputs, rows), Planes(second, inputs, rows)
    differs = reduce(or_, (a ^ b for name in outputs for a, b in zip(left.signal(name), right.signal(name),
                                                                        strict=True)), 0)
    result = {"equivalent": not differs, "method": "exhaustive" if exhaustive else "randomized",
              "comparisons": (differs & -differs).bit_length() or rows}
    if differs:
        row = result["comparisons"] - 1
        result["counterexample"] = {"inputs": port_values(first, first.inputs, inputs, row),
                                    "outputs_compared": outputs,
                                    "a_outputs": port_values(first, outputs, left.known, row),
                                    "b_outputs": port_values(second, outputs, right.known, row)}
    return result


def cmd_equiv(args: list[str], as_json: bool, settings: Settings) -> dict:
    positional, values = options_of(args, ("--max-input-bits", "--trials", "--outputs"))
    limit = integer_option(values, "--max-input-bits", None)
    trials = integer_option(values, "--trials", 10000)
    if len(positional) < 2:
        raise CliUsageError("equiv needs two circuit files")
    first, second = (load(path, settings.format)[0] for path in positional[:2])
    outputs = sorted(set(values["--outputs"].split(","))) if "--outputs" in values else None
    same_ports(first, second, "inputs")
    same_ports(first, second, "outputs", outputs)
    result = compared(first, second, outputs or sorted(first.outputs), limit, trials, settings)
    if not as_json:
        print(f"{'equivalent' if result['equivalent'] else 'not equivalent'} ({result['method']}, "
              f"{result['comparisons']} comparisons)")
    return result


PIPELINES = {"default": ("normalize", "constfold", "algebra", "cse", "dce"), "clean": ("normalize", "cse", "dce"),
             "area": ("normalize", "constfold", "algebra", "cse", "dce", "fanin"),
             "depth": ("normalize", "constfold", "algebra", "cse", "dce", "fanin")}
NEGATED = {"NAND": "AND", "NOR": "OR", "XNOR": "XOR"}
FANIN_LIMITS = ("none", "2", "3", "4")
RENAMES = ("keep", "compact")
DEFAULT_ITERATIONS = 6


def rewritten(expr: object, rule: object) -> object:
    """``expr`` with ``rule`` applied to every node, the arguments first."""
    if isinstance(expr, Call):
        expr = Call(expr.op, tuple(rewritten(arg, rule) for arg in expr.args))
    elif isinstance(expr, Concat):
        expr = Concat(tuple(rewritten(part, rule) for part in expr.parts))
    return rule(expr)


def gate(op: str, args: list) -> object:
    """An AND, OR or XOR in canonical form: nested calls of the same op opened, arguments sorted as text, a
    single argument standing alone."""
    flat = sorted((arg for inner in args for arg in flattened(inner, op)), key=written_expr)
    return flat[0] if len(flat) == 1 else Call(op, tuple(flat))


def copied(circuit: Circuit, assignments: dict) -> Circuit:
    """The circuit with other assignments; wires no longer assigned are dropped."""
    return Circuit(inputs=list(circuit.inputs), outputs=list(circuit.outputs),
                   wires=[name for name in circuit.wires if name in assignments], ranges=dict(circuit.ranges),
                   assignments=dict(assignments))


def per_node(rule_of: object) -> object:
    """A pass applying ``rule_of(circuit)`` to every node of every right-hand side."""
    def run(circuit: Circuit, limit: int | None) -> Circuit:
        rule = rule_of(circuit)
        return copied(circuit, {target: rewritten(expr, rule) for target, expr in circuit.assignments.items()})
    return run


def normalize_rule(circuit: Circuit) -> object:
    def rule(expr: object) -> object:
        if not isinstance(expr, Call):
            return expr
        if expr.op in NEGATED:
            return Call("NOT", (gate(NEGATED[expr.op], list(expr.args)),))
        if expr.op in ASSOCIATIVE:
            return gate(expr.op, list(expr.args))
        return {"ITE": Call("MUX", expr.args), "BUF": expr.args[0]}.get(expr.op, expr)
    return rule


def folded_gate(expr: Call, width: int) -> object:
    """An AND, OR or XOR with its literal arguments combined into one, dropped when it changes nothing."""
    ones = mask(width)
    constant = reduce(PLANE_OPS[expr.op], (arg.value for arg in expr.args if isinstance(arg, Const)),
                      IDENTITY[expr.op] & ones)
    rest = [arg for arg in expr.args if not isinstance(arg, Const)]
    if expr.op in ABSORBING and constant == ABSORBING[expr.op] & ones or not rest:
        return Const(constant, width)
    return gate(expr.op, rest + ([Const(constant, width)] if constant != IDENTITY[expr.op] & ones else []))


PLANE_OPS = {"AND": and_, "OR": or_, "XOR": xor}
IDENTITY = {"AND": -1, "OR": 0, "XOR": 0}
ABSORBING = {"AND": 0, "OR": -1}


def constfold_rule(circuit: Circuit) -> object:
    checker = Checker(circuit, "")

    def rule(expr: object) -> object:
        if isinstance(expr, Call) and all(isinstance(arg, Const) for arg in expr.args):
            bits = GATES[expr.op]([Bits.of(arg.value, arg.width) for arg in expr.args])
            return Const(bits.value, bits.width)
        if isinstance(expr, Call) and expr.op in ASSOCIATIVE:
            return folded_gate(expr, checker.width(expr))
        if isinstance(expr, Call) and expr.op == "MUX":
            select, one, zero = expr.args
            if isinstance(select, Const):
                return one if select.value else zero
            return one if one == zero else expr
        return expr
    return rule


def absorbed(expr: Call, circuit: Circuit) -> list:
    """The arguments of an AND (OR) without each OR (AND) term, written inline or as a signal's assignment,
    that has another argument among its own."""
    dual = "OR" if expr.op == "AND" else "AND"

    def term(arg: object) -> object:
        return circuit.assignments.get(arg) if isinstance(arg, str) and arg not in circuit.inputs else arg

    return [arg for arg in expr.args
            if not (isinstance(term(arg), Call) and term(arg).op == dual
                    and any(other in term(arg).args for other in expr.args if other != arg))]


def algebra_rule(circuit: Circuit) -> object:
    checker = Checker(circuit, "")

    def rule(expr: object) -> object:
        if not isinstance(expr, Call) or expr.op not in ASSOCIATIVE:
            return expr
        if expr.op == "XOR":
            odd = [arg for arg in dict.fromkeys(expr.args) if expr.args.count(arg) % 2]
            return gate("XOR", odd) if odd else Const(0, checker.width(expr))
        return gate(expr.op, absorbed(Call(expr.op, tuple(dict.fromkeys(expr.args))), circuit))
    return rule


def renamed(expr: object, names: dict[str, str]) -> object:
    """``expr`` with the signal names of ``names`` replaced."""
    def rule(node: object) -> object:
        if isinstance(node, str):
            return names.get(node, node)
        if isinstance(node, Select):
            return Select(names.get(node.name, node.name), node.hi, node.lo, node.index)
        return node
    return rewritten(expr, rule)


def pass_cse(circuit: Circuit, limit: int | None) -> Circuit:
    """A second assignment of the same call or concatenation as an earlier one (in dependency order) goes: a wire
    is replaced by the first target everywhere, an output copies it."""
    first: dict[str, str] = {}
    same: dict[str, str] = {}
    for target in dependency_order(circuit):
        expr = circuit.assignments[target]
        if isinstance(expr, (Call, Concat)):
            same[target] = first.setdefault(written_expr(renamed(expr, same)), target)
    same = {target: kept for target, kept in same.items() if target != kept}
    assignments = {}
    for target, expr in circuit.assignments.items():
        if target in circuit.outputs and target in same:
            assignments[target] = same[target]
        elif target not in same:
            assignments[target] = renamed(expr, {name: kept for name, kept in same.items()
                                                 if name not in circuit.outputs})
    return copied(circuit, assignments)


def pass_dce(circuit: Circuit, limit: int | None) -> Circuit:
    needed = reachable(circuit, circuit.outputs)
    return copied(circuit, {target: expr for target, expr in circuit.assignments.items() if target in needed})


def fresh_name(circuit: Circuit, stem: str) -> str:
    number = 0
    while f"{stem}_{number}" in circuit.ranges:
        number += 1
    return f"{stem}_{number}"


def pass_fanin(circuit: Circuit, limit: int | None) -> Circuit:
    """Every AND, OR and XOR with more than ``limit`` arguments becomes a tree: groups of ``limit`` arguments
    move to new wires until at most ``limit`` remain."""
    if limit is None:
        return circuit
    result = copied(circuit, circuit.assignments)
    checker = Checker(result, "")

    def rule_for(target: str) -> object:
        def rule(expr: object) -> object:
            while isinstance(expr, Call) and expr.op in ASSOCIATIVE and len(expr.args) > limit:
                width, groups = checker.width(expr), [expr.args[i:i + limit] for i in range(0, len(expr.args), limit)]
                args = []
                for group in groups:
                    if len(group) == 1:
                        args.append(group[0])
                        continue
                    name = fresh_name(result, target)
                    result.ranges[name] = (width - 1, 0)
                    result.wires.append(name)
                    result.assignments[name] = Call(expr.op, group)
                    args.append(name)
                expr = gate(expr.op, args)
            return expr
        return rule

    for target, expr in circuit.assignments.items():
        result.assignments[target] = rewritten(expr, rule_for(target))
    return result


PASSES = {"normalize": per_node(normalize_rule), "constfold": per_node(constfold_rule),
          "algebra": per_node(algebra_rule), "cse": pass_cse, "dce": pass_dce, "fanin": pass_fanin}


def optimized(circuit: Circuit, passes: list[str], iterations: int, limit: int | None) -> tuple[Circuit, list]:
    """The circuit after the passes, run in order until an iteration changes nothing or ``iterations`` ran, then
    the fanin pass until every gate is within the limit; the log of every pass run."""
    log = []
    for _ in range(iterations):
        before = len(log)
        for name in passes:
            after = PASSES[name](circuit, limit)
            log.append({"name": name, "changed": after.assignments != circuit.assignments})
            circuit = after
        if not any(entry["changed"] for entry in log[before:]):
            break
    while limit is not None and any(isinstance(node, Call) and node.op in ASSOCIATIVE and len(node.args) > limit
                                    for expr in circuit.assignments.values() for node in nodes(expr)):
        circuit = pass_fanin(circuit, limit)
        log.append({"name": "fanin", "changed": True})
    return circuit, log


def nodes(expr: object) -> list:
    """``expr`` and every expression inside it."""
    inner = expr.args if isinstance(expr, Call) else expr.parts if isinstance(expr, Concat) else ()
    return [expr] + [node for part in inner for node in nodes(part)]


def compacted(circuit: Circuit) -> Circuit:
    """The wires renamed n0, n1, ... in dependency order, skipping the names of inputs and outputs."""
    names, number = {}, 0
    for target in dependency_order(circuit):
        if target in circuit.wires:
            while f"n{number}" in circuit.inputs or f"n{number}" in circuit.outputs:
                number += 1
            names[target], number = f"n{number}", number + 1
    ranges = {names.get(name, name): bits for name, bits in circuit.ranges.items() if name not in names.values()}
    return Circuit(inputs=list(circuit.inputs), outputs=list(circuit.outputs),
                   wires=[names[name] for name in circuit.wires], ranges=ranges,
                   assignments={names.get(target, target): renamed(expr, names)
                                for target, expr in circuit.assignments.items()})


def write_bench(circuit: Circuit) -> str:
    if any(circuit.width(name) != 1 for name in circuit.inputs + circuit.outputs + circuit.wires):
        raise UnsupportedFeatureError("BENCH output needs a circuit of single-bit signals only")
    lines = [f"INPUT({name})" for name in sorted(circuit.inputs)] + [f"OUTPUT({name})" for name in
                                                                      sorted(circuit.outputs)]
    lines += [f"{target} = {written_expr(circuit.assignments[target]).replace(', ', ',')}"
              for target in dependency_order(circuit)]
    return "\n".join(lines) + "\n"


OPT_WRITERS = {**WRITERS, "bench": write_bench}
OPT_OPTIONS = ("-o", "--out-format", "--pipeline", "--passes", "--max-iters", "--fanin-limit", "--rename",
               "--max-input-bits", "--trials", "--report")


def chosen(values: dict[str, str], flag: str, allowed: tuple, default: str) -> str:
    value = values.get(flag, default)
    if value not in allowed:
        raise CliUsageError(f"{flag} takes {', '.join(allowed)}, got {value!r}")
    return value


def pass_list(values: dict[str, str]) -> list[str]:
    if "--passes" not in values:
        return list(PIPELINES[chosen(values, "--pipeline", tuple(PIPELINES), "default")])
    names = [name.strip() for name in values["--passes"].split(",")]
    for name in names:
        chosen({"--passes": name}, "--passes", tuple(PASSES), name)
    return names


def opt_format(path: str, requested: str | None) -> str:
    if requested is not None:
        return chosen({"--out-format": requested}, "--out-format", tuple(OPT_WRITERS), requested)
    fmt = next((fmt for ext, fmt in EXTENSIONS.items() if path.endswith(ext)), None)
    if fmt is None:
        raise UnknownOutputFormatError(f"cannot tell the output format of {path}: use --out-format")
    return fmt


def cmd_opt(args: list[str], as_json: bool, settings: Settings) -> dict:
    positional, values = options_of(args, OPT_OPTIONS, ("--verify",))
    path = required(values, "-o", "opt")
    fmt = opt_format(path, values.get("--out-format"))
    passes = pass_list(values)
    iterations = integer_option(values, "--max-iters", DEFAULT_ITERATIONS)
    fanin = chosen(values, "--fanin-limit", FANIN_LIMITS, "none")
    rename = chosen(values, "--rename", RENAMES, "keep")
    trials = integer_option(values, "--trials", 10000)
    limit = integer_option(values, "--max-input-bits", None) if "--verify" in values else None
    original = loaded(positional, settings.format, "opt")
    circuit, log = optimized(original, passes, iterations, None if fanin == "none" else int(fanin))
    circuit = compacted(circuit) if rename == "compact" else circuit
    text = OPT_WRITERS[fmt](circuit)
    if limit is not None:
        verdict = compared(original, circuit, sorted(original.outputs), limit, trials, settings)
        if not verdict["equivalent"]:
            return {"equivalent": False, "counterexample": verdict["counterexample"]}
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    result = {"out_path": path}
    if "--report" in values:
        with open(values["--report"], "w", encoding="utf-8") as handle:
            json.dump({"input_stats": measured(original), "output_stats": measured(circuit), "passes": log}, handle,
                      indent=2)
        result["report_path"] = values["--report"]
    if not as_json:
        print(f"wrote {path}")
    return result


COMMANDS = {"check": cmd_check, "eval": cmd_eval, "stats": cmd_stats, "lint": cmd_lint, "dot": cmd_dot,
            "cone": cmd_cone, "truth-table": cmd_truth_table, "equiv": cmd_equiv, "opt": cmd_opt}


def report_error(error: CircuitError, command: str, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"ok": False, "command": command, "exit_code": error.exit_code,
                          "error": error.to_dict()}))
    else:
        where = ":".join(str(part) for part in (error.file, error.line, error.col) if part is not None)
        print(f"error: {where + ': ' if where else ''}{error.message}", file=sys.stderr)
    return error.exit_code


def take_globals(args: list[str]) -> tuple[Settings, list[str]]:
    """The global --format (default auto) and --seed values, and the arguments without them."""
    settings, rest, pending = Settings(), [], list(args)
    while pending:
        arg = pending.pop(0)
        flag, inline, value = arg.partition("=")
        if flag not in ("--format", "--seed"):
            rest.append(arg)
            continue
        if not inline:
            if not pending:
                raise CliUsageError(f"{flag} needs a value")
            value = pending.pop(0)
        setattr(settings, flag[2:], value)
        if settings.format not in FORMATS:
            raise CliUsageError(f"--format takes auto, circ, json or bench, got {settings.format!r}")
    return settings, rest


def main(argv: list[str]) -> int:
    as_json = "--json" in argv
    if "--help" in argv:
        print(USAGE, end="")
        return 0
    if "--version" in argv:
        print(json.dumps({"ok": True, "command": "__version__", "version": VERSION}) if as_json else VERSION)
        return 0
    try:
        settings, rest = take_globals([arg for arg in argv if arg != "--json"])
    except CliUsageError as error:
        return report_error(error, "__cli__", as_json)
    position = next((i for i, arg in enumerate(rest) if not arg.startswith("-")), None)
    if position is None:
        return report_error(CliUsageError("no command given"), "__cli__", as_json)
    command = rest[position]
    if command not in COMMANDS:
        return report_error(CliUsageError(f"unknown command: {command}"), "__cli__", as_json)
    try:
        settings.random()
        result = COMMANDS[command](rest[position + 1:], as_json, settings)
    except CircuitError as error:
        return report_error(error, command, as_json)
    except Exception as error:  # noqa: BLE001 - any bug is reported as an internal error (exit 4)
        return report_error(InternalError(f"internal error: {error}"), command, as_json)
    if as_json:
        print(json.dumps({"ok": True, "command": command, **result}))
    return 10 if result.get("equivalent") is False else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
