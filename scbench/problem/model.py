"""The typed model of a problem: the single source of truth for the case format.

Every YAML/JSON document an author writes (``config.yaml`` and the case files under
``cases/checkpoint_N/``) is validated against the JSON Schemas generated from these
models (``schemas/*.schema.json``, see :mod:`scbench.generate_schemas`) and then parsed into
them. Nothing downstream re-checks a shape.

Placeholders:
    * in CLI ``args``, ``env`` values and server ``args``: ``{cwd}`` (the case's fresh
      working directory), ``{data}`` (the problem's read-only ``data/`` directory),
      ``{port}`` and ``{host}`` (HTTP servers only);
    * the same, as text, in the contents of inline input files (text, ``json``, ``yaml``,
      ``jsonl``: every string, keys included) and of ``stdin`` (text, ``json``, ``yaml``), and in a
      CLI step's expectations: expected values, ``contains``, ``not_contains``, ``search`` (escaped
      for a regular expression), and a database's SQL and rows;
    * in HTTP request paths, query values, headers and bodies: ``{{name}}`` for a value
      captured by an earlier step of the same case.

Text wildcards (trycmd style), in text expectations and in JSON string leaves:
    * ``[..]`` matches any run of characters within one line;
    * a line that is exactly ``...`` matches any number of lines (text/lines only);
    * a JSON leaf that is exactly ``"[..]"`` matches any value of any type.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

CASE_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
CHECKPOINT_NAME = r"^checkpoint_[1-9][0-9]*$"
RETIRED_CASE = r"^checkpoint_[1-9][0-9]*/[A-Za-z0-9][A-Za-z0-9_.-]*$"
MEMORY_MB_MAX = 256 * 1024
"""The most memory a problem may give a run (256 GiB): more is no bound at all."""
ADDRESS_SPACE_MB_MAX = 4 * 1024 * 1024
"""The most address space a problem may let one process map (4 TiB of the 128 TiB a process can address)."""

ANY = "[..]"
"""A string leaf of an expected value that is exactly this matches any value."""

Category = Literal["core", "functionality", "error"]
"""Author-facing test categories (SlopCodeBench paper section 2.4). ``regression`` is
derived: it is every earlier checkpoint's case, re-run on a later checkpoint."""

OutputFormat = Literal["text", "lines", "json", "jsonl", "yaml", "csv", "tsv", "markdown_table", "fields_table",
                       "toml", "ini"]

CellType = Literal["text", "int", "float", "number", "bool", "infer"]
"""How a table's cells are read (see :func:`scbench.formats.typed`)."""


class Strict(BaseModel):
    """Base for every model: unknown keys are errors, models are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


# --------------------------------------------------------------------- inputs

class TextFile(Strict):
    """A file written from inline UTF-8 text."""

    text: str


class JsonFile(Strict):
    """A file written as the JSON serialization of an inline value."""

    json_: Any = Field(alias="json")


class YamlFile(Strict):
    """A file written as the YAML serialization of an inline value."""

    yaml_: Any = Field(alias="yaml")


class JsonlFile(Strict):
    """A file written as JSON Lines: one compact JSON value per line."""

    jsonl: list[Any]


class Base64File(Strict):
    """A file written from base64-encoded bytes (for non-UTF-8 content)."""

    base64: str


class Directory(Strict):
    """An empty directory (``{directory: true}``), for a program that expects one to exist."""

    directory: Literal[True]


class SqliteFile(Strict):
    """An SQLite database built by scbench from SQL statements, run in order in one transaction (a seed
    database for a program that reads or migrates one)."""

    sqlite: list[Annotated[str, Field(min_length=1)]] = Field(min_length=1, description="SQL statements, one each")


class CopyFile(Strict):
    """A file or a whole tree copied from the problem's ``data/`` directory."""

    copy_: str = Field(alias="copy", description="path relative to the problem's data/ directory")


class TarFile(Strict):
    """A tar archive written from inline members, in the order given: member name (a relative
    ``/``-separated path) -> content (a bare string is UTF-8 text, ``{base64: ...}`` raw bytes).
    Every member is a regular file with mtime 0, mode 0644, uid and gid 0 and empty owner names,
    so the archive's bytes depend only on the members and ``format``."""

    tar: dict[str, str | Base64File]
    tar_format: Literal["pax", "gnu", "ustar"] = Field(
        "pax", alias="format", description="tar header format: pax (POSIX.1-2001, the default), gnu or ustar")


class RowsFile(Strict):
    """A table file written from rows (objects of column -> value), in ``format``: ``csv`` / ``tsv`` (a header of
    the columns, then one line per row: strings as written, null empty, other values as JSON writes them),
    ``json`` (one array of the rows), ``jsonl`` (one row a line) or ``parquet`` (column types inferred from the
    values by pyarrow, the ``parquet`` extra). Columns are ``columns`` if given, else every key in the order
    rows first name it; a row without a column has null there. Equal rows give equal bytes."""

    rows: list[dict[str, Any]]
    rows_format: Literal["csv", "tsv", "json", "jsonl", "parquet"] = Field(alias="format")
    columns: list[str] | None = Field(None, description="the columns, in order (default: the rows' keys)")


class GzipFile(Strict):
    """Any other input form, gzip-compressed (level 9, no file name, mtime 0: equal content gives equal bytes)."""

    gzip: InputFile


class Bz2File(Strict):
    """Any other input form, bzip2-compressed (level 9)."""

    bz2: InputFile


InputFile = Annotated[
    str | TextFile | JsonFile | JsonlFile | YamlFile | Base64File | CopyFile | TarFile | Directory | SqliteFile
    | RowsFile | GzipFile | Bz2File,
    Field(description="a bare string is shorthand for {text: ...}"),
]
GzipFile.model_rebuild()
Bz2File.model_rebuild()

WRAPPERS: dict[type, str] = {GzipFile: "gzip", Bz2File: "bz2"}
"""Input forms that wrap another -> the field holding it."""


class JsonStdin(Strict):
    """Standard input written from an inline value: ``json.dumps(value, ensure_ascii=False)`` and one
    newline (compact, one line, non-ASCII as UTF-8)."""

    json_: Any = Field(alias="json")


class YamlStdin(Strict):
    """Standard input written from an inline value: ``yaml.safe_dump(value, sort_keys=False,
    allow_unicode=True)`` (keys in the order given, non-ASCII as UTF-8)."""

    yaml_: Any = Field(alias="yaml")


Stdin = Annotated[
    str | JsonStdin | YamlStdin | CopyFile,
    Field(description="a bare string is UTF-8 text; {copy: path} the bytes of a file under data/"),
]


# --------------------------------------------------------------- expectations

class Tolerance(Strict):
    """Float tolerance: numbers a, b match when |a - b| <= max(abs, rel * max(|a|, |b|)). In a text
    output, it applies to the numbers of each line (see :func:`scbench.grade.text.within_tolerance`)."""

    abs: float = Field(0.0, ge=0)
    rel: float = Field(0.0, ge=0)


class TextNormalization(Strict):
    """A rewrite of the string leaves a JSONPath selects, applied to the expected and the actual value
    alike before they are compared (after ``ignore``): surrounding whitespace stripped, then every
    character of ``delete`` removed, then lower-cased; in that order, each step only when asked.
    For graders that compare text loosely, as SlopCodeBench's do for serialized file contents."""

    path: str = Field("$", description="JSONPath selecting the string leaves to rewrite")
    strip: bool = Field(False, description="remove leading and trailing whitespace")
    delete: str = Field("", description="every one of these characters is removed")
    lower: bool = Field(False, description="lower-case the text")


class Comparison(Strict):
    """How an expected value is compared with an actual one (see :class:`OutputExpectation`)."""

    subset: bool = False
    unordered: bool = False
    sort_by: list[str] = Field(default_factory=list)
    tolerance: Tolerance | None = None
    ignore: list[str] = Field(default_factory=list, description="JSONPath expressions removed before comparing")
    normalize: list[TextNormalization] = Field(default_factory=list,
                                               description="string leaves rewritten on both sides before comparing")
    key_order: bool = Field(False, description="JSON object keys must appear in the expected order")


class OutputExpectation(Comparison):
    """How to read one output (stdout, stderr, a file, an HTTP body) and what it must be.

    The actual output is parsed with ``format``; ``ignore`` JSONPaths are removed from
    both sides; lists are sorted by ``sort_by`` keys (dotted paths into each record);
    ``normalize`` rules rewrite selected string leaves on both sides;
    then the two values are compared: exactly, or as a ``subset`` (extra object keys in
    the actual value are allowed), ``unordered`` (lists compared as multisets), with
    ``tolerance`` on floats, and with wildcards in strings. ``regex`` (text only) makes
    ``value`` a regular expression that must match the whole output. ``contains``,
    ``not_contains`` and ``search`` look into the output's text as written, whatever its ``format``,
    with or without a ``value``.
    """

    format: OutputFormat = "text"
    value: Any = Field(None, description="expected value, in parsed form")
    file: str | None = Field(None, description="expected value read from this file, relative to the case file")
    regex: bool = False
    json_schema: dict[str, Any] | None = Field(None, alias="schema", description="the parsed value must validate")
    contains: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list, description="texts that must each occur in the output (as written, any format)")
    not_contains: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list, description="texts none of which may occur in the output")
    search: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list, description="regular expressions that must each match within one line of the output "
        "(Python re.search on each line)")
    cells: dict[str, CellType] = Field(
        default_factory=dict, description="tables (csv, tsv, markdown_table, fields_table): column or field name -> "
        "how its cells are read, '*' for every other column; unnamed columns stay exact text. In a typed column an "
        "empty cell or null is null")


Output = Annotated[str | OutputExpectation, Field(description="a bare string is exact text with wildcards")]

ExitCode = int | Literal["nonzero", "any"]

Constraint = Literal["any", "not_null", "unique", "primary_key", "foreign_key", "check"]


class SqlQuery(Comparison):
    """A query scbench runs on a read-only copy of an output database, and the rows it must return:
    each row an object of column name -> value (INTEGER and REAL as numbers, TEXT as a string, NULL as
    null, a BLOB as the text ``X'0AFF'``), compared as JSON Lines records under the comparison options."""

    sql: str = Field(min_length=1, description="one SQL statement that reads (the copy is opened read-only)")
    rows: list[dict[str, Any]] = Field(description="the rows expected, in order unless unordered")


class SqlViolation(Strict):
    """A statement that must fail with a constraint error on a writable copy of an output database,
    after ``setup`` statements that must each succeed (on that copy only)."""

    setup: list[Annotated[str, Field(min_length=1)]] = Field(default_factory=list,
                                                             description="statements run first, each must succeed")
    sql: str = Field(min_length=1, description="the statement that must fail")
    constraint: Constraint = Field("any", description="the kind of constraint that must fail")


class DatabaseExpectation(Strict):
    """An SQLite database the step must leave: queries and the rows they return, statements that must
    violate a constraint. scbench runs them itself (Python's sqlite3) on copies, never on the file graded."""

    foreign_keys: bool = Field(True, description="PRAGMA foreign_keys = ON on every connection")
    queries: list[SqlQuery] = Field(default_factory=list)
    violations: list[SqlViolation] = Field(default_factory=list)



class CliExpectation(Strict):
    """What one CLI step must produce."""

    exit_code: ExitCode = 0
    stdout: Output | None = None
    stderr: Output | None = None
    files: dict[str, Output] = Field(default_factory=dict, description="output files, relative to the working dir")
    absent: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list, description="paths that must not exist afterwards (no file, directory or link)")
    empty: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list, description="directories that must exist afterwards and hold no entry")
    databases: dict[str, DatabaseExpectation] = Field(
        default_factory=dict, description="SQLite databases the step must leave, relative to the working dir")


class CliStep(Strict):
    """One invocation of the entry command inside the case's working directory; or, with ``run``, a
    harness-owned step: that command instead (a toolchain's program, or a file the case wrote or under data/),
    in the same sandbox, working directory and limits, graded as any step."""

    name: str | None = None
    args: list[str] = Field(default_factory=list, description="appended to the entry command")
    run: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, min_length=1, description="a harness-owned step: this command runs instead of the entry command "
        "(no args then), e.g. a driver the case wrote that uses what the solution generated")
    stdin: Stdin | None = None
    env: dict[str, str] = Field(default_factory=dict)
    files: dict[str, InputFile] = Field(default_factory=dict, description="written before this step")
    timeout: float | None = Field(None, gt=0, description="seconds")
    expect: CliExpectation = Field(default_factory=CliExpectation)


# ----------------------------------------------------------------------- HTTP

class ReadyProbe(Strict):
    """How to know a server is up: an HTTP GET answering < 500, or a TCP connect."""

    http: str | None = Field(None, description="path to GET, e.g. /healthz")
    tcp: bool = False
    deadline: float = Field(10.0, gt=0, description="seconds to wait for readiness")


class ServerSpec(Strict):
    """How to start the solution as a server; the entry command gets ``args`` appended."""

    args: list[str] = Field(default_factory=lambda: ["--port", "{port}", "--address", "{host}"])
    env: dict[str, str] = Field(default_factory=dict)
    ready: ReadyProbe = Field(default_factory=ReadyProbe)


class HttpRequest(Strict):
    """One HTTP request; at most one of ``json``, ``text``, ``form``, ``base64`` and ``copy`` is the body
    (``base64`` and ``copy`` send bytes as they are, with no content type unless ``headers`` give one)."""

    method: str = "GET"
    path: str
    query: dict[str, str] = Field(default_factory=dict)
    headers: dict[str, str] = Field(default_factory=dict)
    json_: Any = Field(None, alias="json")
    text: str | None = None
    form: dict[str, str] | None = None
    base64: str | None = Field(None, description="the body's bytes, base64-encoded")
    copy_: str | None = Field(None, alias="copy", description="the body is the bytes of this file under data/")


class Capture(Strict):
    """A value taken from a response for later steps: a JSONPath into the body or a header."""

    jsonpath: str | None = None
    header: str | None = None


class Poll(Strict):
    """Repeat the request until its expectations pass or ``timeout`` seconds elapse."""

    interval: float = Field(0.1, gt=0)
    timeout: float = Field(5.0, gt=0)


class BodyBytes(Strict):
    """A response body compared byte for byte: exactly one of ``base64`` (the bytes, base64-encoded),
    ``copy`` (the bytes of a file under data/) or ``sha256`` (their digest, 64 lower-case hex digits);
    the compiler turns ``copy`` into its ``sha256`` and ``size``. ``size`` alone checks only the length."""

    base64: str | None = None
    copy_: str | None = Field(None, alias="copy", description="path relative to the problem's data/ directory")
    sha256: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")
    size: int | None = Field(None, ge=0, description="bytes")


class HttpExpectation(Strict):
    """What one HTTP response must be: status, headers (case-insensitive subset), body (read as text or a
    format), or ``body_bytes`` (compared as bytes)."""

    status: int | list[int] | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    body: Output | None = None
    body_bytes: BodyBytes | None = None


class ConcurrentRequest(Strict):
    """One request of a concurrent step and what its response must be; ``repeat`` sends it that many times."""

    request: HttpRequest
    expect: HttpExpectation = Field(default_factory=HttpExpectation)
    repeat: int = Field(1, ge=1, le=64)
    delay: float = Field(0.0, ge=0, le=60, description="seconds after the others are released that it is sent "
                         "(to arrive while they are in progress)")


class Concurrent(Strict):
    """Requests sent at once, each on its own connection, released together once every one is ready (each after
    its ``delay``); the step ends when every response is in. With ``any_order``, the responses are matched to
    the expectations in any order (each expectation met by a different response), for races whose winner is
    not known."""

    requests: list[ConcurrentRequest] = Field(min_length=1)
    any_order: bool = False


class HttpStep(Strict):
    """One step of a stateful scenario: a ``request``, or ``concurrent`` requests sent at once."""

    name: str | None = None
    request: HttpRequest | None = None
    concurrent: Concurrent | None = None
    expect: HttpExpectation = Field(default_factory=HttpExpectation)
    capture: dict[str, Capture] = Field(default_factory=dict)
    poll: Poll | None = None
    timeout: float | None = Field(None, gt=0, description="seconds")


# ---------------------------------------------------------------------- cases

class CaseBase(Strict):
    id: str = Field(pattern=CASE_ID)
    category: Category | None = Field(None, description="defaults to the case file's category, then core")
    description: str = ""
    env: dict[str, str] = Field(default_factory=dict)
    files: dict[str, InputFile] = Field(default_factory=dict, description="written into the working dir first")
    timeout: float | None = Field(None, gt=0, description="seconds, per step")


class RegressionVariant(Strict):
    """How a CLI case changes when it runs as a regression of a later checkpoint, from that checkpoint on:
    each field given replaces the case's own (``files`` are added to the case's, replacing those of the
    same name). ``args``, ``stdin`` and ``expect`` are for a case given inline, not with ``steps``."""

    args: list[str] | None = None
    stdin: Stdin | None = None
    files: dict[str, InputFile] = Field(default_factory=dict, description="written into the working dir first")
    expect: CliExpectation | None = None


class CliCase(CaseBase):
    """A CLI case: either one step given inline (args/stdin/expect) or a list of ``steps``
    run in order in the same working directory."""

    kind: Literal["cli"] = "cli"
    args: list[str] | None = None
    stdin: Stdin | None = None
    expect: CliExpectation | None = None
    steps: list[CliStep] | None = Field(None, min_length=1)
    regression: dict[Annotated[str, Field(pattern=CHECKPOINT_NAME)], RegressionVariant] = Field(
        default_factory=dict, json_schema_extra={"additionalProperties": False},
        description="how the case runs as a regression from a later checkpoint on: checkpoint_N -> its changes "
        "(the changes of several checkpoints add up in their order)")


class HttpCase(CaseBase):
    """An HTTP case: a fresh server (the problem's ``server``, or this one) and its steps."""

    kind: Literal["http"]
    server: ServerSpec | None = None
    steps: list[HttpStep] = Field(min_length=1)


Case = CliCase | HttpCase


class CaseGroup(Strict):
    """The cases of a case file that share one server: it starts once (in one working directory, with
    ``files`` and ``env``), ``setup`` runs once, then the cases run in the file's order, each on the state the
    earlier ones left; what ``setup`` captures every case may use. A case of a group is an HTTP case without
    its own ``server``, ``env`` or ``files``."""

    description: str = ""
    server: ServerSpec | None = Field(None, description="defaults to the problem's server")
    env: dict[str, str] = Field(default_factory=dict)
    files: dict[str, InputFile] = Field(default_factory=dict, description="written into the working dir first")
    timeout: float | None = Field(None, gt=0, description="seconds, per setup step")
    setup: list[HttpStep] = Field(default_factory=list, description="steps run once, before the first case")


class CaseFile(Strict):
    """One case file: a list of cases, with a default category for all of them; with ``group``, its cases
    share one server and run in order."""

    category: Category = "core"
    group: CaseGroup | None = None
    cases: list[Case] = Field(min_length=1)


# -------------------------------------------------------------------- problem

class LimitsConfig(Strict):
    """Resource limits of every run of a solution (each process tree of a step or a server);
    an unset limit keeps scbench's default (see docs/case-format.md)."""

    memory_mb: int | None = Field(None, ge=16, le=MEMORY_MB_MAX,
                                  description="MiB of memory per process and per tree (default 2048)")
    address_space_mb: int | None = Field(
        None, ge=16, le=ADDRESS_SPACE_MB_MAX, description="MiB of private writable address space one process may "
        "map, used or only reserved (RLIMIT_DATA; default: memory_mb), for runtimes that reserve far more than "
        "they use; the tree's memory stays bounded by memory_mb")
    processes: int | None = Field(None, ge=1, description="tasks in a run's tree (default 256)")
    cpu_s: int | None = Field(None, ge=1, description="CPU seconds per process (default 60)")
    file_mb: int | None = Field(None, ge=1, description="MiB any file written may reach (default 256)")
    output_mb: int | None = Field(None, ge=1, description="MiB of stdout and of stderr kept (default 8)")


class CheckpointConfig(Strict):
    """One checkpoint of ``config.yaml``; its spec is ``checkpoint_N.md`` beside it."""

    order: int = Field(ge=1)
    version: int = 1
    state: str = "Core Tests"
    include_prior_tests: bool = True
    timeout: float | None = Field(None, gt=0, description="seconds; overrides the problem's timeout")
    env: dict[str, str] = Field(default_factory=dict)
    limits: LimitsConfig = Field(default_factory=LimitsConfig, description="overrides the problem's limits")
    regression_ignore: list[str] = Field(
        default_factory=list, description="JSONPaths removed from every structured output of earlier "
        "checkpoints' cases when they run as regressions here or later (fields this checkpoint adds)")
    regression_retire: list[Annotated[str, Field(pattern=RETIRED_CASE)]] = Field(
        default_factory=list, description="earlier checkpoints' cases, as checkpoint_N/case_id, that no longer "
        "run as regressions here or later (behaviour this checkpoint's spec changes)")
    regression_args: dict[str, str] = Field(
        default_factory=dict, description="arguments of earlier checkpoints' CLI cases renamed when they run as "
        "regressions here or later: every argument equal to a key becomes its value ({--csv: --input})")
    regression_prepend: dict[str, str] = Field(
        default_factory=dict, description="text written at the start of an input file of earlier checkpoints' CLI "
        "cases when they run as regressions here or later: file name -> text ({p.mtl: \"mtl_version 1.5\\n\"}); "
        "only files given as inline text change")


class ProblemConfig(Strict):
    """``problems/NAME/config.yaml``: the layout SlopCodeBench users already know."""

    version: int = 1
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_]*$")
    description: str
    entry_file: str = Field(min_length=1, description="entry point name without extension, e.g. code_search")
    timeout: float = Field(10.0, gt=0, description="seconds per step")
    tags: list[str] = Field(default_factory=list)
    category: str | None = None
    difficulty: str | None = None
    author: str | None = None
    inspiration: str | None = None
    server: ServerSpec | None = Field(None, description="for HTTP problems: how to start the solution")
    limits: LimitsConfig = Field(default_factory=LimitsConfig, description="resource limits of every run")
    lint: dict[str, list[str]] = Field(default_factory=dict, description="lint settings, e.g. allow: [words]")
    checkpoints: dict[Annotated[str, Field(pattern=CHECKPOINT_NAME)], CheckpointConfig] = Field(
        min_length=1, json_schema_extra={"additionalProperties": False})
