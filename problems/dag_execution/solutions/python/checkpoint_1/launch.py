"""Pipeline runner: tasks from a pipeline file, a small expression language, jobs.jsonl (checkpoint 1)."""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

TEMPLATE = re.compile(r"\$\{\s*([A-Za-z_][\w.]*)\s*\}")
TOKEN = re.compile(
    r"""(?P<ws>\s+|//[^\n]*)
    |(?P<tpl>\$\{\s*[A-Za-z_][\w.]*\s*\})
    |(?P<env>\$[A-Za-z_]\w*)
    |(?P<float>\d+\.\d*|\.\d+)
    |(?P<int>\d+)
    |(?P<str>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
    |(?P<name>[A-Za-z_]\w*)
    |(?P<op>\+\+|--|==|!=|<=|>=|&&|\|\||[-+*/%<>=!(){}\[\];,:.])""",
    re.X | re.S,
)
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "'": "'"}
TYPES = {"int", "float", "string", "bool"}
ECHO = r"""echo() {
  local nl=1 esc=1
  while [[ "$1" == -* ]]; do
    case "$1" in -n) nl=0 ;; -e) esc=1 ;; -E) esc=0 ;; *) break ;; esac
    shift
  done
  local out
  if [[ $esc -eq 1 ]]; then builtin printf -v out '%b' "$*"; else out="$*"; fi
  if [[ $nl -eq 1 && "$out" != *$'\n' ]]; then builtin printf '%s\n' "$out"; else builtin printf '%s' "$out"; fi
}
set -e
"""


class PipeError(Exception):
    """A pipeline or config the tool refuses: `code` is the exit status, `kind` the stderr prefix."""

    code, kind = 1, "ERROR"


class SyntaxErr(PipeError):
    code, kind = 2, "SYNTAX_ERROR"


class InvalidPipe(PipeError):
    code, kind = 3, "INVALID_PIPE"


class TaskFailure(Exception):
    """Raised inside `requires` or `success` evaluation: the task fails (exit_code 1)."""


class Break(Exception):
    pass


class Continue(Exception):
    pass


class Return(Exception):
    def __init__(self, value):
        self.value = value


def unescape(text):
    return re.sub(r"\\(.)", lambda m: ESCAPES.get(m.group(1), m.group(1)), text, flags=re.S)


def tokenize(text):
    tokens, pos = [], 0
    while pos < len(text):
        match = TOKEN.match(text, pos)
        if not match:
            raise SyntaxErr(f"unexpected character {text[pos]!r}")
        pos = match.end()
        if match.lastgroup != "ws":
            tokens.append((match.lastgroup, match.group()))
    tokens.append(("eof", ""))
    return tokens


class Parser:
    """Recursive descent over the tokens of the expression language; builds tuples (kind, ...)."""

    def __init__(self, text):
        self.tokens = tokenize(text)
        self.pos = 0

    def peek(self, offset=0):
        return self.tokens[min(self.pos + offset, len(self.tokens) - 1)]

    def at(self, *values):
        return self.peek()[1] in values and self.peek()[0] in ("op", "name")

    def take(self, value=None):
        kind, text = self.peek()
        if value is not None and text != value:
            raise SyntaxErr(f"expected {value!r}, found {text or 'end of input'!r}")
        self.pos += 1
        return kind, text

    def skip(self, value):
        if self.at(value):
            self.pos += 1
            return True
        return False

    def done(self):
        return self.peek()[0] == "eof"

    def program(self, end="eof"):
        body = []
        while not (self.peek()[0] == "eof" if end == "eof" else self.at(end)):
            if self.done():
                raise SyntaxErr("unterminated block")
            body.append(self.statement())
        return body

    def block(self):
        self.take("{")
        body = self.program("}")
        self.take("}")
        return body

    def statement(self):
        handler = STATEMENTS.get(self.peek()[1]) if self.peek()[0] == "name" else None
        if handler:
            return handler(self)
        if self.is_declaration():
            return self.declaration()
        node = self.simple()
        self.skip(";")
        return node

    def is_declaration(self):
        kind, text = self.peek()
        return kind == "name" and (text in TYPES or text == "list") and self.peek(1)[0] in ("name", "op") and (
            self.peek(1)[0] == "name" or self.peek(1)[1] == "["
        )

    def declaration(self):
        parse_type(self)
        name = self.take()[1]
        self.take("=")
        value = self.expression()
        self.skip(";")
        return ("assign", ("var", name), value)

    def simple(self):
        target = self.expression()
        if self.skip("="):
            return ("assign", target, self.expression())
        if self.at("++", "--"):
            return ("assign", target, ("binary", self.take()[1][0], target, ("lit", 1)))
        return ("expr", target)

    def s_if(self):
        branches = []
        self.take()
        branches.append(self.condition_block())
        while self.at("elif"):
            self.take()
            branches.append(self.condition_block())
        orelse = []
        if self.skip("else"):
            orelse = self.block()
        return ("if", branches, orelse)

    def condition_block(self):
        self.take("(")
        cond = self.expression()
        self.take(")")
        return cond, self.block()

    def s_while(self):
        self.take()
        cond, body = self.condition_block()
        return ("for", [], cond, [], body)

    def s_for(self):
        self.take()
        self.take("(")
        init = [] if self.at(";") else [self.declaration_or_simple()]
        self.skip(";")
        cond = ("lit", True) if self.at(";") else self.expression()
        self.take(";")
        step = [] if self.at(")") else [self.simple()]
        self.take(")")
        return ("for", init, cond, step, self.block())

    def declaration_or_simple(self):
        return self.declaration() if self.is_declaration() else self.simple()

    def s_jump(self):
        word = self.take()[1]
        self.skip(";")
        return (word,)

    def s_return(self):
        self.take()
        value = ("lit", None) if self.at(";", "}") else self.expression()
        self.skip(";")
        return ("return", value)

    def expression(self, level=0):
        if level == len(BINARY):
            return self.unary()
        left = self.expression(level + 1)
        while self.peek()[0] == "op" and self.peek()[1] in BINARY[level]:
            op = self.take()[1]
            left = ("binary", op, left, self.expression(level + 1))
        return left

    def unary(self):
        if self.at("!", "-"):
            op = self.take()[1]
            return ("unary", op, self.unary())
        node = self.primary()
        while self.at("[", "("):
            node = self.index(node) if self.peek()[1] == "[" else self.call(node)
        return node

    def index(self, node):
        self.take("[")
        key = self.expression()
        self.take("]")
        return ("index", node, key)

    def call(self, node):
        if node[0] != "var":
            raise SyntaxErr("only a name can be called")
        self.take("(")
        args, kwargs = [], {}
        while not self.at(")"):
            if self.peek()[0] == "name" and self.peek(1)[1] == "=" and self.peek(2)[1] != "=":
                key = self.take()[1]
                self.take("=")
                kwargs[key] = self.expression()
            elif kwargs:
                raise SyntaxErr("a positional argument follows a keyword argument")
            else:
                args.append(self.expression())
            if not self.skip(","):
                break
        self.take(")")
        return ("call", node[1], args, kwargs)

    def primary(self):
        kind, text = self.take()
        if kind == "op" and text == "(":
            node = self.expression()
            self.take(")")
            return node
        if kind == "op" and text == "[":
            return self.list_literal()
        factory = PRIMARIES.get(kind)
        if factory is None or (kind == "name" and text in KEYWORDS):
            raise SyntaxErr(f"unexpected {text or 'end of input'!r}")
        return factory(text)

    def list_literal(self):
        items = []
        while not self.at("]"):
            items.append(self.expression())
            if not self.skip(","):
                break
        self.take("]")
        return ("list", items)


def name_node(text):
    return BOOLEANS.get(text, ("var", text))


BOOLEANS = {"TRUE": ("lit", True), "true": ("lit", True), "FALSE": ("lit", False), "false": ("lit", False)}


PRIMARIES = {
    "int": lambda text: ("lit", int(text)),
    "float": lambda text: ("lit", float(text)),
    "str": lambda text: ("str", unescape(text[1:-1])),
    "tpl": lambda text: ("tpl", TEMPLATE.match(text).group(1)),
    "env": lambda text: ("env", text[1:]),
    "name": name_node,
}
KEYWORDS = {"if", "elif", "else", "for", "while", "break", "continue", "return"}
BINARY = [("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-", "%"), ("*", "/")]
STATEMENTS = {
    "if": Parser.s_if,
    "while": Parser.s_while,
    "for": Parser.s_for,
    "break": Parser.s_jump,
    "continue": Parser.s_jump,
    "return": Parser.s_return,
}


def parse_type(parser):
    name = parser.take()[1]
    if name == "list":
        parser.take("[")
        inner = parse_type(parser)
        parser.take("]")
        return ("list", inner)
    if name not in TYPES:
        raise SyntaxErr(f"unknown type {name!r}")
    return name


def contains_return(body):
    """Whether a statement list holds a `return` anywhere, branches and loop bodies included."""
    return any(NESTED.get(node[0], lambda n: False)(node) for node in body)


NESTED = {
    "return": lambda node: True,
    "if": lambda node: any(contains_return(b) for _, b in node[1]) or contains_return(node[2]),
    "for": lambda node: contains_return(node[4]),
}


# ---------------------------------------------------------------- pipeline file


def split_tasks(text):
    """Yield (name, body text) for every `task NAME { ... }` of a pipeline file."""
    pos = 0
    header = re.compile(r"\s*(?://[^\n]*\s*)*task\s+([A-Za-z_]\w*)\s*\{", re.S)
    trailer = re.compile(r"\s*(?://[^\n]*\s*)*\Z", re.S)
    while not trailer.match(text, pos):
        match = header.match(text, pos)
        if not match:
            raise SyntaxErr(f"expected 'task NAME {{' at offset {pos}")
        end = matching_brace(text, match.end() - 1)
        yield match.group(1), text[match.end():end]
        pos = end + 1


def matching_brace(text, start):
    depth, quote, i = 0, None, start
    while i < len(text):
        ch = text[i]
        if quote:
            i += ch == "\\" and quote == '"'
            quote = None if ch == quote else quote
        elif text.startswith("//", i) and (i == 0 or text[i - 1].isspace()):
            i = text.find("\n", i) % (len(text) + 1) - 1
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise SyntaxErr("unterminated block")


def parse_sections(body):
    sections, pos = {}, 0
    field = re.compile(r"\s*(?://[^\n]*\s*)*([A-Za-z_]\w*)\s*:?\s*", re.S)
    while body[pos:].strip() and not re.fullmatch(r"(\s*//[^\n]*)*\s*", body[pos:]):
        match = field.match(body, pos)
        if not match:
            raise SyntaxErr(f"unexpected text {body[pos:pos + 20]!r}")
        name, pos = match.group(1), match.end()
        if name in sections:
            raise SyntaxErr(f"section {name!r} given twice")
        if body.startswith("{", pos):
            end = matching_brace(body, pos)
            sections[name], pos = body[pos + 1:end], end + 1
        else:
            line = re.match(r"[^\n]*", body[pos:]).group()
            sections[name], pos = line.strip().rstrip(";").strip(), pos + len(line)
    return sections


def parse_params(text):
    parser, params, seen_default = Parser(text), [], False
    while not parser.done():
        name = parser.take()[1]
        parser.take(":")
        ptype = parse_type(parser)
        default = None
        if parser.skip("="):
            default = parser.expression()
            seen_default = True
        elif seen_default:
            raise SyntaxErr(f"parameter {name!r} without a default follows one with a default")
        params.append((name, ptype, default))
        parser.skip(";") or parser.skip(",")
    return params


def parse_success(text):
    parser, criteria = Parser(text), {}
    while not parser.done():
        name = parser.take()[1]
        parser.take(":")
        if parser.at("{"):
            body = parser.block()
            if not contains_return(body):
                raise SyntaxErr(f"success criterion {name!r} is a block without a return")
            criteria[name] = ("block", body)
        else:
            criteria[name] = ("expr", parser.expression())
        parser.skip(";")
    return criteria


def parse_output(text):
    quoted = len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'"
    return ("str", unescape(text[1:-1]) if quoted else text)


SECTIONS = {
    "params": parse_params,
    "run": lambda text: text,
    "success": parse_success,
    "requires": lambda text: Parser(text).program(),
    "output": parse_output,
    "timeout": lambda text: float(text) if re.fullmatch(r"\d+(\.\d*)?|\.\d+", text) else bad_timeout(text),
}


def bad_timeout(text):
    raise SyntaxErr(f"timeout must be a number of seconds, not {text!r}")


def load_pipeline(path):
    tasks = {}
    for name, body in split_tasks(Path(path).read_text(encoding="utf-8")):
        if name in tasks:
            raise SyntaxErr(f"task {name!r} defined twice")
        try:
            task = {key: SECTIONS[key](text) for key, text in parse_sections(body).items() if key in SECTIONS}
            unknown = set(parse_sections(body)) - set(SECTIONS)
        except SyntaxErr as exc:
            raise SyntaxErr(f"in task {name!r}: {exc}") from None
        if unknown:
            raise SyntaxErr(f"in task {name!r}: unknown section {sorted(unknown)[0]!r}")
        if "run" not in task and "requires" not in task:
            raise SyntaxErr(f"task {name!r} has neither run nor requires")
        tasks[name] = {"params": [], "success": {}, "requires": [], **task, "name": name}
    return tasks


def calls_in(node):
    if isinstance(node, tuple) and node and node[0] == "call":
        yield node[1]
    for part in node if isinstance(node, (tuple, list)) else ():
        if isinstance(part, dict):
            part = list(part.values())
        if isinstance(part, (tuple, list)):
            yield from calls_in(part)


def check_graph(tasks, entry):
    builtins = set(BUILTINS) | {"fail", "fails"}
    for task in tasks.values():
        for callee in calls_in(task["requires"]):
            if callee not in tasks and callee not in builtins:
                raise InvalidPipe(f"task {task['name']!r} calls undefined task {callee!r}")

    def visit(name, path):
        if name in path:
            raise InvalidPipe(f"circular dependency: {' -> '.join(path + [name])}")
        for callee in {c for c in calls_in(tasks[name]["requires"]) if c in tasks}:
            visit(callee, path + [name])

    visit(entry, [])


# ---------------------------------------------------------------- values


def cast_env(ptype, text):
    casts = {"int": int, "float": float, "string": str, "bool": env_bool}
    if ptype not in casts:
        raise InvalidPipe(f"an environment variable cannot be a default of type {type_name(ptype)}")
    try:
        return casts[ptype](text.strip() if ptype != "string" else text)
    except ValueError:
        raise InvalidPipe(f"environment value {text!r} is not a {ptype}") from None


def env_bool(text):
    table = {"1": True, "true": True, "0": False, "false": False}
    if text.lower() not in table:
        raise ValueError(text)
    return table[text.lower()]


def type_name(ptype):
    return ptype if isinstance(ptype, str) else f"list[{type_name(ptype[1])}]"


def check_type(ptype, value, what):
    ok = {
        "int": lambda v: type(v) is int or (type(v) is float and v.is_integer()),
        "float": lambda v: type(v) in (int, float),
        "string": lambda v: isinstance(v, str),
        "bool": lambda v: isinstance(v, bool),
    }
    if isinstance(ptype, tuple):
        if not isinstance(value, list):
            raise InvalidPipe(f"{what}: expected {type_name(ptype)}, got {show(value)}")
        return [check_type(ptype[1], item, what) for item in value]
    if not ok[ptype](value):
        raise InvalidPipe(f"{what}: expected {ptype}, got {show(value)}")
    return CONVERSIONS.get(ptype, lambda v: v)(value)


CONVERSIONS = {"int": int, "float": float}


def show(value):
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, list):
        raise TaskFailure("a list cannot be converted to a string")
    return str(value)


def arith(op, left, right):
    if op == "%" and (isinstance(left, str) or isinstance(right, str)):
        return show(left) + show(right)
    if not all(type(v) in (int, float) for v in (left, right)):
        raise TaskFailure(f"operator {op!r} needs numbers")
    if op in "/%" and right == 0:
        raise TaskFailure("division by zero")
    return OPERATORS[op](left, right)


OPERATORS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "%": lambda a, b: a % b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


# ---------------------------------------------------------------- evaluation


class Scope:
    """What an expression sees: variables, the task's params, workspace, output, run dir and streams."""

    def __init__(self, runner, job, streams=None):
        self.runner, self.job = runner, job
        self.vars = dict(streams or {})
        self.streams = streams or {}

    def template(self, key):
        if key.startswith("params."):
            if key[7:] not in self.job["params"]:
                raise TaskFailure(f"unknown parameter {key[7:]!r}")
            return self.job["params"][key[7:]]
        if key in ("workspace", "output"):
            value = str(self.runner.workspace) if key == "workspace" else self.job["output"]
            if value is None:
                raise TaskFailure("${output} in a task without output")
            return value
        raise TaskFailure(f"unknown placeholder ${{{key}}}")

    def interpolate(self, text):
        return TEMPLATE.sub(lambda m: show(self.template(m.group(1))), text)

    def evaluate(self, node):
        return EVALUATORS[node[0]](self, node)

    def run(self, body):
        for node in body:
            EXECUTORS[node[0]](self, node)

    def run_loop(self, node):
        _, init, cond, step, body = node
        self.run(init)
        while truthy(self.evaluate(cond)):
            try:
                self.run(body)
            except Break:
                break
            except Continue:
                pass
            self.run(step)

    def run_if(self, node):
        for cond, body in node[1]:
            if truthy(self.evaluate(cond)):
                return self.run(body)
        return self.run(node[2])

    def run_expr(self, node):
        target = node[1]
        if target[0] == "call" and target[1] in self.runner.tasks:
            if not self.call(target):
                raise TaskFailure(f"required task {target[1]!r} failed")
            return
        if target[0] == "call" and target[1] in ("fail", "fails"):
            self.expect_failure(target)
            return
        self.evaluate(target)

    def expect_failure(self, node):
        inner = node[2][0] if len(node[2]) == 1 and not node[3] else None
        if inner is None or inner[0] != "call" or inner[1] not in self.runner.tasks:
            raise TaskFailure("fail() takes one task call")
        if self.call(inner):
            raise TaskFailure(f"task {inner[1]!r} succeeded where fail() expected a failure")

    def assign(self, node):
        _, target, value = node
        value = self.evaluate(value)
        if target[0] == "var":
            self.vars[target[1]] = value
            return
        if target[0] != "index":
            raise TaskFailure("invalid assignment target")
        container, key = self.evaluate(target[1]), self.evaluate(target[2])
        container[index_of(container, key)] = value

    def call(self, node):
        _, name, args, kwargs = node
        if name in self.runner.tasks:
            if self.streams:
                raise TaskFailure("a success criterion cannot call a task")
            values = [self.evaluate(a) for a in args]
            named = {k: self.evaluate(v) for k, v in kwargs.items()}
            return self.runner.execute(name, values, named, self.job["job_id"])
        if name in ("fail", "fails"):
            raise TaskFailure("fail() is a statement of requires")
        return BUILTINS[name](self, args)

    def source(self, node):
        """The text a contains/equals argument names: a stream by its bare name, else a file."""
        if node[0] == "var" and node[1] in self.streams:
            return self.streams[node[1]]
        path = Path(self.runner.workspace, str(self.evaluate(node)))
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None


def truthy(value):
    if isinstance(value, list):
        raise TaskFailure("a list is not a condition")
    return bool(value)


def index_of(container, key):
    if not isinstance(container, list) or type(key) is not int:
        raise TaskFailure("indexing needs a list and an int")
    if not -len(container) <= key < len(container):
        raise TaskFailure("list index out of range")
    return key


def b_len(scope, args):
    value = scope.evaluate(args[0])
    if not isinstance(value, (list, str)):
        raise TaskFailure("len() takes a list or a string")
    return len(value)


def b_contains(scope, args):
    text, pattern = scope.source(args[0]), show(scope.evaluate(args[1]))
    if text is None:
        return False
    if pattern in text:
        return True
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False


def b_equals(scope, args):
    expected = scope.evaluate(args[1])
    if args[0] == ("var", "exit_code") and "exit_code" in scope.streams:
        return scope.streams["exit_code"] == expected
    return scope.source(args[0]) == show(expected)


def b_exists(scope, args):
    return Path(scope.runner.workspace, show(scope.evaluate(args[0]))).exists()


def arity(function, count):
    def checked(scope, args):
        if len(args) != count:
            raise TaskFailure(f"{function.__name__[2:]}() takes {count} argument(s)")
        return function(scope, args)

    return checked


BUILTINS = {
    "len": arity(b_len, 1),
    "contains": arity(b_contains, 2),
    "equals": arity(b_equals, 2),
    "exists": arity(b_exists, 1),
}


def e_var(scope, node):
    if node[1] not in scope.vars:
        raise TaskFailure(f"undefined variable {node[1]!r}")
    return scope.vars[node[1]]


def e_env(scope, node):
    if node[1] not in scope.runner.env:
        raise TaskFailure(f"environment variable {node[1]!r} is not set")
    return scope.runner.env[node[1]]


def e_binary(scope, node):
    _, op, left, right = node
    if op in ("&&", "||"):
        first = truthy(scope.evaluate(left))
        return first if first == (op == "||") else truthy(scope.evaluate(right))
    a, b = scope.evaluate(left), scope.evaluate(right)
    if op in ("==", "!="):
        return (a == b and (type(a) is bool) == (type(b) is bool)) == (op == "==")
    numbers = type(a) in (int, float) and type(b) in (int, float)
    if op in ("<", "<=", ">", ">=") and not numbers and not (isinstance(a, str) and isinstance(b, str)):
        raise TaskFailure(f"cannot compare {show(a)} and {show(b)}")
    return arith(op, a, b) if op in "+-*/%" else OPERATORS[op](a, b)


def e_unary(scope, node):
    value = scope.evaluate(node[2])
    if node[1] == "!":
        return not truthy(value)
    if type(value) not in (int, float):
        raise TaskFailure("unary minus needs a number")
    return -value


def e_index(scope, node):
    container = scope.evaluate(node[1])
    return container[index_of(container, scope.evaluate(node[2]))]


EVALUATORS = {
    "lit": lambda scope, node: node[1],
    "str": lambda scope, node: scope.interpolate(node[1]),
    "tpl": lambda scope, node: scope.template(node[1]),
    "env": e_env,
    "var": e_var,
    "list": lambda scope, node: [scope.evaluate(item) for item in node[1]],
    "binary": e_binary,
    "unary": e_unary,
    "index": e_index,
    "call": Scope.call,
}


def x_return(scope, node):
    raise Return(scope.evaluate(node[1]))


def x_break(scope, node):
    raise Break


def x_continue(scope, node):
    raise Continue


EXECUTORS = {
    "assign": Scope.assign,
    "expr": Scope.run_expr,
    "if": Scope.run_if,
    "for": Scope.run_loop,
    "return": x_return,
    "break": x_break,
    "continue": x_continue,
}


# ---------------------------------------------------------------- running


class Runner:
    """Runs jobs: numbering, events on stdout, records in OUTPUT/jobs.jsonl, the workspace rules."""

    def __init__(self, tasks, workspace, output, env):
        self.tasks, self.workspace, self.env = tasks, workspace, env
        self.jobs_file = output / "jobs.jsonl"
        self.next_id = 0
        self.cwd_stack = [workspace]

    def event(self, name, job):
        print(json.dumps({"event": name, "job_id": job["job_id"], "task": job["task"], "parent": job["parent"]}),
              flush=True)

    def bind(self, task, args, kwargs):
        spec = task["params"]
        if len(args) > len(spec):
            raise InvalidPipe(f"task {task['name']!r} takes {len(spec)} argument(s), {len(args)} given")
        unknown = set(kwargs) - {name for name, _, _ in spec}
        if unknown:
            raise InvalidPipe(f"task {task['name']!r} has no parameter {sorted(unknown)[0]!r}")
        params = {}
        for position, (name, ptype, default) in enumerate(spec):
            if position < len(args) and name in kwargs:
                raise InvalidPipe(f"parameter {name!r} of task {task['name']!r} given twice")
            params[name] = check_type(ptype, self.argument(task, position, name, args, kwargs, ptype, default),
                                      f"parameter {name!r} of task {task['name']!r}")
        return params

    def argument(self, task, position, name, args, kwargs, ptype, default):
        if position < len(args):
            return args[position]
        if name in kwargs:
            return kwargs[name]
        if default is None:
            raise InvalidPipe(f"task {task['name']!r} is missing its argument {name!r}")
        if default[0] == "env":
            if default[1] not in self.env:
                raise InvalidPipe(f"environment variable {default[1]!r} of a default is not set")
            return cast_env(ptype, self.env[default[1]])
        try:
            return Scope(self, {"params": {}, "output": None}).evaluate(default)
        except TaskFailure as exc:
            raise InvalidPipe(f"default of {name!r} in task {task['name']!r}: {exc}") from None

    def output_dir(self, task, job):
        if "output" not in task:
            return None
        label = show(Scope(self, job).evaluate(task["output"]))
        path = (self.cwd_stack[-1] / label).resolve()
        if not path.is_relative_to(self.workspace):
            raise InvalidPipe(f"output {label!r} of task {task['name']!r} escapes the workspace")
        path.mkdir(parents=True, exist_ok=True)
        return path

    def execute(self, name, args, kwargs, parent):
        task = self.tasks[name]
        self.next_id += 1
        job = {"job_id": self.next_id, "task": name, "params": {}, "parent": parent, "output": None}
        self.event("TASK_STARTED", job)
        start = time.monotonic()
        job["params"] = self.bind(task, args, kwargs)
        out = self.output_dir(task, job)
        job["output"] = None if out is None else str(out.relative_to(self.workspace))
        job["cwd"] = out or self.workspace
        self.cwd_stack.append(out or self.cwd_stack[-1])
        try:
            result = self.attempt(task, job)
        finally:
            self.cwd_stack.pop()
        record = {"job_id": job["job_id"], "task": name, "params": job["params"], **result, "output": job["output"],
                  "parent": parent, "duration": round(time.monotonic() - start, 4)}
        ok = record["exit_code"] == 0 and all(record["success"].values())
        with self.jobs_file.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps({key: record[key] for key in RECORD_KEYS}) + "\n")
        self.event("TASK_COMPLETED" if ok else "TASK_FAILED", job)
        return ok

    def attempt(self, task, job):
        try:
            Scope(self, job).run(task["requires"])
        except TaskFailure:
            return {"stdout": "", "stderr": "", "timed_out": False, "success": {}, "exit_code": 1}
        self.event("TASK_RUNNING", job)
        stdout, stderr, code, timed_out = self.shell(task, job)
        streams = {"stdout": stdout, "stderr": stderr, "exit_code": code}
        success = {name: criterion(Scope(self, job, streams), spec) for name, spec in task["success"].items()}
        return {"stdout": stdout, "stderr": stderr, "timed_out": timed_out, "success": success, "exit_code": code}

    def shell(self, task, job):
        scope = Scope(self, job)
        try:
            script = TEMPLATE.sub(lambda m: raw(scope.template(m.group(1))), task.get("run", "")).strip()
        except TaskFailure as exc:
            return "", str(exc) + "\n", 1, False
        if not script:
            return "", "", 0, False
        proc = subprocess.Popen(["bash", "-c", ECHO + script], cwd=job["cwd"], env=self.env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=task.get("timeout"))
            code, timed_out = proc.returncode, False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
            code, timed_out = 124, True
        return clean(out), clean(err), code, timed_out


def raw(value):
    return " ".join(show(v) for v in value) if isinstance(value, list) else show(value)


def clean(data):
    return data.decode("utf-8", errors="replace").replace("\u2018", "'").replace("\u2019", "'")


def criterion(scope, spec):
    """A success criterion's value: FALSE when it fails to evaluate or a block ends without `return`."""
    kind, node = spec
    try:
        if kind == "expr":
            return truthy(scope.evaluate(node))
        scope.run(node)
    except Return as result:
        return truthy(result.value)
    except TaskFailure:
        return False
    return False


RECORD_KEYS = ["job_id", "task", "params", "stdout", "stderr", "timed_out", "success", "output", "exit_code",
               "parent", "duration"]


# ---------------------------------------------------------------- command line


def load_config(path):
    if path is None:
        return {}
    try:
        config = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SyntaxErr(f"config {path}: {exc}") from None
    if not isinstance(config.get("entry", ""), str) or not isinstance(config.get("clean_cwd", False), bool):
        raise SyntaxErr("config: entry must be a string and clean_cwd a boolean")
    if not isinstance(config.get("env", {}), dict):
        raise SyntaxErr("config: [env] must be a table")
    return config


def parse_entry(text):
    parser = Parser(text)
    node = parser.expression()
    if not parser.done() or node[0] not in ("var", "call"):
        raise SyntaxErr(f"entry {text!r} is not a task name or call")
    return ("call", node[1], [], {}) if node[0] == "var" else node


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("pipeline")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--output", required=True)
    parser.add_argument("--config")
    args = parser.parse_args()
    try:
        sys.exit(run(args))
    except PipeError as exc:
        print(f"{exc.kind}:{exc}", file=sys.stderr)
        sys.exit(exc.code)


def run(args):
    if not Path(args.pipeline).is_file():
        raise SyntaxErr(f"pipeline file {args.pipeline} not found")
    tasks = load_pipeline(args.pipeline)
    config = load_config(args.config)
    entry = parse_entry(config.get("entry", "main"))
    if entry[1] not in tasks:
        raise InvalidPipe(f"entry task {entry[1]!r} is not defined")
    check_graph(tasks, entry[1])
    workspace, output = Path(args.workspace).resolve(), Path(args.output).resolve()
    workspace.mkdir(parents=True, exist_ok=True)
    for entry_path in workspace.iterdir() if config.get("clean_cwd") else ():
        shutil.rmtree(entry_path) if entry_path.is_dir() and not entry_path.is_symlink() else entry_path.unlink()
    output.mkdir(parents=True, exist_ok=True)
    (output / "jobs.jsonl").write_text("")
    env = {**os.environ, **{k: str(v) for k, v in config.get("env", {}).items()}}
    runner = Runner(tasks, workspace, output, env)
    scope = Scope(runner, {"params": {}, "output": None, "job_id": None})
    values = [scope.evaluate(a) for a in entry[2]]
    named = {k: scope.evaluate(v) for k, v in entry[3].items()}
    return 0 if runner.execute(entry[1], values, named, None) else 1


if __name__ == "__main__":
    main()
