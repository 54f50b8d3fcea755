"""circopt: read, validate and evaluate scalar .circ circuits (checkpoint 2)."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field

VERSION = "1.0.0"
KEYWORDS = ("input", "output", "wire")
ARITY = {"NOT": (1, 1), "BUF": (1, 1), "AND": (2, None), "OR": (2, None), "XOR": (2, None),
         "NAND": (2, None), "NOR": (2, None), "XNOR": (2, None)}
TOKEN = re.compile(r"(?P<space>[ \t\r]+)|(?P<newline>\n)|(?P<comment>#[^\n]*)|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
                   r"|(?P<number>[0-9]+)|(?P<punct>[=(),])")
USAGE = """usage: circopt [--help] [--version] [--json] <command> [arguments]

commands:
  check <file>    parse and validate a circuit file, report its inputs and outputs
  eval <file> [--set name=value ...] [--default 0|1] [--allow-extra]
                  evaluate the circuit's outputs from the given inputs

flags:
  --help          show this text
  --version       show the version
  --json          print one JSON object on standard output
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
InternalError = _error_type("InternalError", 4)
UnknownInputError = _error_type("UnknownInputError", 1)
MissingInputError = _error_type("MissingInputError", 1)
InputValueParseError = _error_type("InputValueParseError", 2)
GATES = {
    "NOT": lambda bits: 1 - bits[0],
    "BUF": lambda bits: bits[0],
    "AND": lambda bits: int(all(bits)),
    "OR": lambda bits: int(any(bits)),
    "NAND": lambda bits: 1 - int(all(bits)),
    "NOR": lambda bits: 1 - int(any(bits)),
    "XOR": lambda bits: sum(bits) % 2,
    "XNOR": lambda bits: 1 - sum(bits) % 2,
}


@dataclass(frozen=True)
class Token:
    kind: str  # name | number | punct | eof
    text: str
    line: int
    col: int


@dataclass(frozen=True)
class Call:
    op: str
    args: tuple


@dataclass
class Circuit:
    """Declared signals (in declaration order) and the assignments (in file order)."""

    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    wires: list[str] = field(default_factory=list)
    assignments: dict[str, object] = field(default_factory=dict)

    def declared(self) -> set[str]:
        return {*self.inputs, *self.outputs, *self.wires}


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
        self.seen: set[str] = set()

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
            if token.text in self.seen:
                raise DuplicateNameError(f"name '{token.text}' is declared twice", self.file, token.line, token.col)
            self.seen.add(token.text)
            names.append(token.text)

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
            if token.text not in ("0", "1"):
                raise self.fail(f"invalid literal {token.text}", token)
            return int(token.text)
        if token.kind != "name":
            raise self.fail("expected an expression here", token)
        self.reject_x(token)
        if self.peek().text != "(":
            return token.text
        if token.text.upper() not in ARITY:
            raise self.fail(f"unknown operator {token.text}", token)
        return self.call(token.text.upper())

    def call(self, op: str) -> Call:
        self.take()  # (
        args = []
        if self.peek().text == ")":
            self.take()
            return Call(op, ())
        args.append(self.expression())
        while self.peek().text == ",":
            self.take()
            args.append(self.expression())
        if self.peek().text != ")":
            last = self.tokens[self.pos - 1]
            raise CircParseError("expected ')' or ','", self.file, last.line, last.col)
        self.take()
        return Call(op, tuple(args))


def check_expression(expr: object, declared: set[str], file: str) -> None:
    """Arity first, then the arguments left to right; every name must be declared."""
    if isinstance(expr, str) and expr not in declared:
        raise UndefinedNameError(f"'{expr}' is not declared", file)
    if isinstance(expr, Call):
        low, high = ARITY[expr.op]
        if len(expr.args) < low or (high is not None and len(expr.args) > high):
            raise ArityError(f"{expr.op} does not take {len(expr.args)} argument(s)", file)
        for arg in expr.args:
            check_expression(arg, declared, file)


def names_in(expr: object) -> list[str]:
    if isinstance(expr, str):
        return [expr]
    if isinstance(expr, Call):
        return [name for arg in expr.args for name in names_in(arg)]
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
    declared = circuit.declared()
    for target in circuit.assignments:
        if target not in declared:
            raise UndefinedNameError(f"assignment to undeclared name '{target}'", file)
    for target in circuit.assignments:
        if target in circuit.inputs:
            raise InputAssignmentError(f"input '{target}' cannot be assigned", file)
    for expr in circuit.assignments.values():
        check_expression(expr, declared, file)
    for name in circuit.outputs + circuit.wires:
        if name not in circuit.assignments:
            raise UnassignedSignalError(f"'{name}' is never assigned", file)
    cycle = find_cycle(circuit)
    if cycle:
        raise CycleError("cycle: " + " -> ".join(cycle), file)


def load(path: str) -> Circuit:
    """Read, parse and validate a .circ file."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise CircuitFileNotFoundError(f"file not found: {path}") from None
    circuit = Parser(text, path).parse()
    validate(circuit, path)
    return circuit


def signals(names: list[str]) -> list[dict]:
    return [{"name": name, "msb": 0, "lsb": 0} for name in sorted(names)]


def cmd_check(args: list[str], as_json: bool) -> dict:
    if not args:
        raise CliUsageError("check needs a circuit file")
    circuit = load(args[0])
    if not as_json:
        print(f"{args[0]}: valid circuit")
        print("inputs: " + " ".join(sorted(circuit.inputs)))
        print("outputs: " + " ".join(sorted(circuit.outputs)))
    return {"format": "circ", "inputs": signals(circuit.inputs), "outputs": signals(circuit.outputs)}


@dataclass
class EvalOptions:
    """The arguments of ``eval``: the file, the --set values in order, --default and --allow-extra."""

    file: str | None = None
    values: dict[str, str] = field(default_factory=dict)
    default: str | None = None
    allow_extra: bool = False


def assignment_of(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise CliUsageError(f"--set takes name=value, got {text!r}")
    name, value = text.split("=", 1)
    return name, value


def parse_eval_args(args: list[str]) -> EvalOptions:
    options, pending = EvalOptions(), list(args)
    while pending:
        arg = pending.pop(0)
        flag, inline, value = arg.partition("=")
        if flag in ("--set", "--default") and not inline:
            if not pending:
                raise CliUsageError(f"{flag} needs a value")
            value = pending.pop(0)
        if flag == "--set":
            name, bit = assignment_of(value)
            options.values[name] = bit
        elif flag == "--default":
            options.default = value
        elif arg == "--allow-extra":
            options.allow_extra = True
        elif arg.startswith("-"):
            raise CliUsageError(f"unknown option {arg}")
        elif options.file is None:
            options.file = arg
    if options.file is None:
        raise CliUsageError("eval needs a circuit file")
    return options


def bit_of(text: str, what: str) -> int:
    if text not in ("0", "1"):
        raise InputValueParseError(f"invalid value {text!r} for {what}: expected 0 or 1")
    return int(text)


def input_values(circuit: Circuit, options: EvalOptions) -> dict[str, int]:
    """The value of every input, checked in the order the spec gives."""
    values = {}
    for name, text in options.values.items():
        if name not in circuit.inputs:
            if options.allow_extra:
                continue
            raise UnknownInputError(f"'{name}' is not an input of the circuit")
        values[name] = bit_of(text, f"input '{name}'")
    for name in circuit.inputs:
        if name not in values:
            if options.default is None:
                raise MissingInputError(f"no value for input '{name}'")
            values[name] = bit_of(options.default, "--default")
    return values


def evaluate(circuit: Circuit, values: dict[str, int]) -> dict[str, int]:
    """Every signal's value, each assignment computed once, on demand."""
    known = dict(values)

    def value_of(expr: object) -> int:
        if isinstance(expr, int):
            return expr
        if isinstance(expr, Call):
            return GATES[expr.op]([value_of(arg) for arg in expr.args])
        if expr not in known:
            known[expr] = value_of(circuit.assignments[expr])
        return known[expr]

    return {name: value_of(name) for name in circuit.outputs}


def cmd_eval(args: list[str], as_json: bool) -> dict:
    options = parse_eval_args(args)
    circuit = load(options.file)
    outputs = evaluate(circuit, input_values(circuit, options))
    if not as_json:
        for name in sorted(outputs):
            print(f"{name}={outputs[name]}")
    return {"mode": "2val", "radix": "bin",
            "outputs": [{"name": name, "msb": 0, "lsb": 0, "value": str(outputs[name])} for name in sorted(outputs)]}


COMMANDS = {"check": cmd_check, "eval": cmd_eval}


def report_error(error: CircuitError, command: str, as_json: bool) -> int:
    if as_json:
        print(json.dumps({"ok": False, "command": command, "exit_code": error.exit_code,
                          "error": error.to_dict()}))
    else:
        where = ":".join(str(part) for part in (error.file, error.line, error.col) if part is not None)
        print(f"error: {where + ': ' if where else ''}{error.message}", file=sys.stderr)
    return error.exit_code


def main(argv: list[str]) -> int:
    as_json = "--json" in argv
    if "--help" in argv:
        print(USAGE, end="")
        return 0
    if "--version" in argv:
        print(json.dumps({"ok": True, "command": "__version__", "version": VERSION}) if as_json else VERSION)
        return 0
    rest = [arg for arg in argv if arg != "--json"]
    position = next((i for i, arg in enumerate(rest) if not arg.startswith("-")), None)
    if position is None:
        return report_error(CliUsageError("no command given"), "__cli__", as_json)
    command = rest[position]
    if command not in COMMANDS:
        return report_error(CliUsageError(f"unknown command: {command}"), "__cli__", as_json)
    try:
        result = COMMANDS[command](rest[position + 1:], as_json)
    except CircuitError as error:
        return report_error(error, command, as_json)
    except Exception as error:  # noqa: BLE001 - any bug is reported as an internal error (exit 4)
        return report_error(InternalError(f"internal error: {error}"), command, as_json)
    if as_json:
        print(json.dumps({"ok": True, "command": command, **result}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
