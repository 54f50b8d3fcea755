"""Spec lint: flag text in ``checkpoint_N.md`` that prescribes internals or a language, or leaks the tests.

SlopCodeBench's design rules (paper section 2.1): a spec gives only the external contract (CLI
arguments, API input and output), never internal interfaces; the tests stay hidden; problems are
language-agnostic. Each rule below is one small detector; words of the problem's contract
vocabulary (:mod:`scbench.lint.vocabulary`) and of ``config.yaml``'s ``lint: {allow: [...]}`` are
never flagged by the name detectors, and an allowed word silences any detector whose match it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from scbench.lint.finding import Finding, Severity
from scbench.lint.markdown import Document, Line, parse
from scbench.lint.vocabulary import WORD, is_prescribed_code, vocabulary
from scbench.problem.bundle import Bundle

NAME_LIKE = re.compile(r"[_\d-]|[a-z][A-Z]")
"""A case id that cannot be an ordinary word (``count_poem``, ``cp4-chain``, ``getMissing``): only such ids are
looked for in a spec."""
PLACEHOLDER = re.compile(r"(?<!\w)<[^<>\n]*>|https?://\S+")
"""``<placeholders>`` and URLs, blanked before detection (``List<T>`` is a generic type, not a placeholder)."""
LANGUAGES = r"(?:Python|JavaScript|TypeScript|Java|Rust|Go|Golang|C\+\+|C#|Ruby|Kotlin|Swift|PHP)"
SOURCE_EXTENSIONS = r"(?:py|pyi|js|mjs|cjs|ts|tsx|java|rs|go|rb|cs|cpp|cc|cxx|hpp|hh|h|c|kt|swift|php)"
LIBRARIES = (r"(?:argparse|click|typer|flask|fastapi|django|express|requests|numpy|pandas|lodash|serde|clap|tokio"
             r"|re|os\.walk|glob|pathlib|json\.loads|json\.dumps|subprocess|asyncio|threading|sqlite3?|collections)")
CONTAINERS = (r"(?:dict(?:ionary)?|hash\s?map|map|list|array|set|tuple|queue|stack|heap|trie|linked list|deque"
              r"|namedtuple|dataclass|struct|object|variable|singleton|cache)")
STANDARD_NAMES = (
    # Python
    r"argparse|optparse|getopt|ArgumentParser|add_argument|add_subparsers|sys\.argv|sys\.std(?:in|out|err)"
    r"|os\.(?:path|environ|walk|listdir)\b|pathlib|shutil|subprocess|itertools|functools|collections\.\w+"
    r"|defaultdict|OrderedDict|namedtuple|dataclasses|typing\.\w+|asyncio|hashlib|heapq|bisect|tempfile|unittest"
    r"|re\.(?:compile|match|search|sub|findall|fullmatch)\b|json\.(?:loads?|dumps?)\b"
    # JavaScript / TypeScript / Node
    r"|process\.(?:argv|env|stdout|stderr|stdin)\b|fs\.\w+|\w+Sync\b|JSON\.(?:parse|stringify)|console\.\w+"
    r"|child_process|path\.(?:join|resolve|basename|dirname)\b|Object\.(?:keys|values|entries|assign)"
    r"|Array\.(?:from|isArray|prototype)\b|yargs|commander\.js"
    # Java
    r"|java\.\w+(?:\.\w+)*|javax\.\w+(?:\.\w+)*|System\.(?:out|err|in|exit)\b|ArrayList|LinkedList|HashMap|HashSet"
    r"|TreeMap|TreeSet|StringBuilder|BufferedReader|InputStreamReader|Integer\.parseInt"
    # Go
    r"|fmt\.\w+|os\.Args\b|bufio|strconv|encoding/json|net/http|os/exec|flag\.(?:String|Int|Bool|Parse)\b"
    r"|strings\.(?:Split|Join|Fields|TrimSpace)\b|sort\.(?:Slice|Strings|Ints)\b"
    # Rust, C, C++
    r"|serde(?:_json)?|BTreeMap|println!|eprintln!|macro_rules!|iostream|stdio\.h|stdlib\.h|printf|scanf|malloc"
)
"""Standard modules, classes and functions of one language (and a few de-facto standard libraries)."""
TYPE_CHARS = r"[\w\s,?:&*\[\]]"
"""Characters inside a generic type's angle brackets (three levels deep: ``Map<K, List<Set<V>>>``)."""
DECORATOR = r"(?<![\w@.])@[A-Za-z_]\w*(?:\.\w+)*(?![\w.]*/)(?:\([^()\n]*\))?"
"""A decorator or annotation: ``@lru_cache``, ``@app.route("/")``, ``@Override`` (not ``a@b.c``, ``@scope/pkg``)."""
GENERIC_TYPE = rf"\b[A-Za-z_][\w:]*<(?:{TYPE_CHARS}|<(?:{TYPE_CHARS}|<{TYPE_CHARS}*>)*>)*>"
"""A generic type: ``List<String>``, ``Map<K, List<V>>``, ``std::vector<int>``."""
CONSTRUCTS = (r"sub-?parsers?|f-strings?|context managers?|goroutines?|\*\*?kwargs|\*args|varargs|async/await"
              r"|generator functions?|list slicing|monkey-?patch\w*|type hints?")
"""Constructs and sub-features that exist in one language only."""
TYPE_PARAMETERS = r"<[^<>()\n]*(?:<[^<>()\n]*>[^<>()\n]*)*>"
"""A generic signature's type parameters: ``<T>``, ``<T: Hash + Eq>``, ``<K, V extends Map<K, V>>``."""
MODULE_EXPORTS = (r"\bexport\s+(?:default\b|(?:async\s+)?(?:function|const|let|var|class|interface|type|enum)\s)"
                  r"|\bmodule\.exports\b|\bexports\.\w+\s*=|\bpub(?:\((?:crate|super)\))?\s+(?:fn|struct|enum|mod|trait"
                  r"|use|const|static|type)\b|\b__all__\b")
"""How one language makes names public: ES modules, CommonJS, Rust's ``pub``, Python's ``__all__``."""
UNITS = r"(?:function|class|method|module|helper|interface|struct|decorator|subclass|base class|abstract class|enum)"


@dataclass(frozen=True)
class Context:
    """What the detectors know about the problem: its contract vocabulary, allow-list and entry file."""

    vocabulary: frozenset[str]
    allow: frozenset[str]
    entry_file: str
    case_ids: frozenset[str] = frozenset()


def known_words(text: str, ctx: Context) -> bool:
    """Every ``\\w`` part of ``text`` is contract vocabulary."""
    return all(word in ctx.vocabulary for word in WORD.findall(text))


def known_file(text: str, ctx: Context) -> bool:
    """``text`` (or its last path component) is a file the examples or cases use, or the entry point."""
    name = text.rsplit("/", 1)[-1]
    return text in ctx.vocabulary or name in ctx.vocabulary or name.split(".")[0] == ctx.entry_file


@dataclass(frozen=True)
class SpecRule:
    """One detector: a regex over a prose line (backticks removed, placeholders blanked).

    ``code_only`` restricts matches to inline code spans; ``contract`` says when a match is
    the problem's own contract vocabulary and so not a leak.
    """

    id: str
    severity: Severity
    pattern: re.Pattern
    why: str
    fix: str
    code_only: bool = False
    contract: Callable[[str, Context], bool] = lambda text, ctx: False

    def accepts(self, match: re.Match, code: list[tuple[int, int]], ctx: Context) -> bool:
        """Whether ``match`` is a finding (inside code when required, not contract, not allowed)."""
        text = match.group().strip()
        inside = any(start <= match.start() and match.end() <= end for start, end in code)
        return (inside or not self.code_only) and text not in ctx.allow and not self.contract(text, ctx)


def rule(rule_id: str, pattern: str, why: str, fix: str, **options) -> SpecRule:
    """A :class:`SpecRule` (severity error unless ``severity=`` is given) with ``pattern`` compiled."""
    return SpecRule(rule_id, options.pop("severity", "error"), re.compile(pattern), why, fix, **options)


RULES: tuple[SpecRule, ...] = (
    rule("hidden-case-id", r"(?<![\w.-])[A-Za-z0-9](?:[\w-]|\.(?=\w))*",
         "a hidden case's id: the tests stay hidden (design rule 2)",
         "describe the behaviour that case checks, not the case", contract=lambda text, ctx: text not in ctx.case_ids),
    rule("hidden-tests",
         r"(?i)\b(?:hidden\s+)?tests?[ -](?:suite|cases?|files?|harness)\b|\b(?:the|our|unit)\s+tests\b"
         r"|\bhidden\s+(?:tests?|checks?|cases?)\b"
         r"|\bpytest\b|\bcases/checkpoint_\d+\S*",
         "the test suite stays hidden: agents see only the spec and its examples (design rule 2)",
         "describe the behaviour the tests check, not the tests"),
    rule("code-signature",
         rf"\b(?:def|fn|func|function)\s+[A-Za-z_]\w*\s*(?:{TYPE_PARAMETERS})?\s*\(|\bclass\s+[A-Z]\w*\s*[(:{{]"
         rf"|\b(?:public|private|protected|static)\s+(?:(?:static|final)\s+)*(?:{TYPE_PARAMETERS}\s*)?\w+"
         rf"(?:{TYPE_PARAMETERS})?\s+\w+\s*\(|\([^()\n]*\w\s*:\s*[\w\[\]<>|]+[^()\n]*\)\s*(?::\s*[\w\[\]<>|]+\s*)?=>",
         "a code signature prescribes an internal interface (design rule 1)",
         "state the command's observable input and output instead of a signature"),
    rule("type-annotation",
         r"\b\w+\s*:\s*(?:int|str|float|bool|bytes|None|Any|(?:list|dict|set|tuple|List|Dict|Set|Tuple|Optional"
         r"|Union)\[[^\]]*\])(?!\w)|\)\s*->\s*[\w\[\]]+",
         "type annotations are a language's syntax for an internal interface (design rules 1 and 3)",
         "describe the value in the output format's terms (a JSON integer, a string)"),
    rule("import",
         r"\bfrom\s+[\w.]+\s+import\s+\w+|\bimport\s+(?!the\b|a\b|an\b|it\b|them\b|and\b|from\b)[a-z_][\w.]*"
         r"|#include\s*[<\"][^>\"]+[>\"]|\brequire\(\s*['\"][^'\"]+['\"]\s*\)|\buse\s+\w+(?:::\w+)+",
         "an import names a module or library of one language (design rules 1 and 3)",
         "remove it: the solution chooses its own modules and libraries"),
    rule("library-hint",
         rf"(?i)\b(?:use|using|via|call|calling)\s+(?:the\s+)?(?:{LIBRARIES}\b|[\w.-]+\s+(?:library|module|package"
         r"|crate|framework|gem)\b)",
         "naming a library or module prescribes the implementation (design rule 1)",
         "state the required behaviour; leave the choice of library to the solution"),
    rule("data-structure-hint",
         rf"(?i)\b(?:use|using|keep|store|put|hold)\s+(?:\w+\s+){{0,3}}?(?:in\s+|into\s+|as\s+|with\s+)?"
         rf"(?:a|an|one)\s+(?:(?:hash|global|static|module-level|sorted|ordered|nested)\s+)?{CONTAINERS}\b",
         "choosing a data structure is the design decision the benchmark measures (design rule 1)",
         "describe what must be observable (ordering, uniqueness, persistence), not how to hold it"),
    rule("global-state",
         r"(?i)\bglobal\s+(?:variable|state|dict(?:ionary)?|list|map|object|counter|cache)\b|\bsingleton\b"
         r"|\bmodule-level\s+\w+|\bin\s+a\s+global\b",
         "where state lives is an internal decision (design rule 1)",
         "state how long data must persist (per process, across runs) instead"),
    rule("internal-structure",
         rf"(?i)\b{UNITS}\s+(?:called|named)\b|\b(?:write|implement|create|define|add)\s+(?:a|an|the)\s+(?:\w+\s+)?"
         rf"{UNITS}\b",
         "prescribing functions, classes or modules fixes the architecture (design rule 1)",
         "specify the command line or API and its observable results only"),
    rule("language-prescription",
         rf"\b(?:in|using|written in)\s+{LANGUAGES}(?!\w)(?!\s*(?:sources?|files?|code|programs?|projects?|syntax"
         rf"|comments?|strings?|identifiers?|patterns?|rules?)\b)|\b{LANGUAGES}\s+(?:script|function|class|module"
         r"|package)\b",
         "problems are language-agnostic: any track may solve them (design rule 3)",
         "drop the language; describe the command's behaviour"),
    rule("language-idiom",
         r"(?i)\b(?:list|dict|set)\s+comprehensions?\b|\bdunder\b|__\w+__|\bself\.\w+|\bthis\.\w+|\blambdas?\b"
         r"|\btracebacks?\b|\b[A-Z][a-z]+(?:[A-Z][a-z]+)*(?:Error|Exception)\b|\b(?:sys|process)\.exit\b|\bstd::\w+"
         r"|\b(?:pip|npm)\s+install\b|\brequirements\.txt\b|\bvirtualenv\b|\bunwrap\(\)|\braises?\b|\bthrows?\b",
         "a language-specific idiom assumes one language (design rule 3)",
         "say what is observable: the exit status, the message on standard error, the output"),
    rule("standard-library", rf"(?<![\w./-])(?:{STANDARD_NAMES})(?:\s+sub-?parsers?)?(?![\w-])",
         "naming a language's standard module, class or function prescribes the implementation (design rules 1, 3)",
         "state the required behaviour; the solution chooses its own modules", contract=known_words),
    rule("language-construct", rf"{DECORATOR}|{GENERIC_TYPE}|(?i:(?<![\w-])(?:{CONSTRUCTS})(?![\w-]))",
         "a construct of one language (a decorator or annotation, a generic type, ...) assumes that language and "
         "prescribes the code's structure (design rules 1 and 3)",
         "say what is observable (the values in the output format's terms, the subcommands, the output), not which "
         "construct produces it", contract=known_words),
    rule("module-export", MODULE_EXPORTS,
         "a language's syntax for making names public prescribes the module layout (design rules 1 and 3)",
         "drop it: only the command line or the API is the contract"),
    rule("language-literal", r"\b(?:None|True|False|nil)\b",
         "a literal of one language in a language-agnostic spec (design rule 3)",
         "use the output format's literal (JSON null, true, false) or plain words",
         code_only=True),
    rule("source-file", rf"(?<![\w./-])[\w-][\w./-]*\.{SOURCE_EXTENSIONS}\b",
         "naming source files other than the entry point prescribes the layout (design rule 1)",
         "name only the entry point; the solution chooses its other files",
         contract=known_file),
    rule("call-name", r"\b[A-Za-z_][\w.]*\((?!s\))",
         "a call names a function or method that is not part of the external contract (design rule 1)",
         "describe the behaviour instead of the function computing it",
         contract=lambda text, ctx: known_words(text.rstrip("("), ctx)),
    rule("code-name", r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b|\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b",
         "an identifier that neither the examples nor the cases use: an internal name, or a contract word "
         "no case exercises",
         "drop the internal name, or cover the word by a case, or add it to config.yaml lint.allow",
         severity="warning", contract=known_words),
    rule("qualified-name", r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b",
         "a module, class or attribute name that neither the examples nor the cases use (design rule 1)",
         "drop the internal name, or cover the word by a case, or add it to config.yaml lint.allow",
         severity="warning", code_only=True, contract=known_words),
)
"""Spec detectors, in priority order: a span claimed by one is not reported again by a later one."""


def _normalize(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` without backticks, placeholders and URLs blanked; and the spans that were inline code."""
    plain, code = "", []
    for index, part in enumerate(text.split("`")):
        if index % 2:
            code.append((len(plain), len(plain) + len(part)))
        plain += part
    return PLACEHOLDER.sub(lambda m: " " * len(m.group()), plain), code


def _line_findings(line: Line, file: str, ctx: Context) -> Iterator[Finding]:
    text, code = _normalize(line.text)
    claimed: list[tuple[int, int]] = []
    for spec_rule in RULES:
        for match in spec_rule.pattern.finditer(text):
            start, end = match.span()
            if spec_rule.accepts(match, code, ctx) and not any(s < end and start < e for s, e in claimed):
                claimed.append((start, end))
                yield Finding(file, line.number, spec_rule.id, spec_rule.severity, match.group().strip(),
                              spec_rule.why, spec_rule.fix)


def _document_findings(document: Document, file: str, ctx: Context) -> Iterator[Finding]:
    for line in document.prose:
        yield from _line_findings(line, file, ctx)
    for block in filter(is_prescribed_code, document.blocks):
        yield Finding(file, block.line, "code-block", "error", f"```{block.language}",
                      "a code block that is not an example input prescribes an implementation (design rules 1, 3)",
                      "show inputs and outputs instead; label example source files with a `name.ext`: line")


def lint_specs(root: Path, bundle: Bundle) -> list[Finding]:
    """Findings in every ``checkpoint_N.md`` of the problem at ``root`` (paths relative to it),
    sorted by file and line. The spec text is read from ``bundle``; raises nothing."""
    documents = {checkpoint.name: parse(checkpoint.spec) for checkpoint in bundle.checkpoints}
    words = vocabulary(bundle, documents.values())
    ctx = Context(words, frozenset(bundle.config.lint.get("allow", [])), bundle.config.entry_file,
                  frozenset(case_id for checkpoint in bundle.checkpoints for case in checkpoint.cases
                            if NAME_LIKE.search(case_id := case.case.id) and case_id not in words))
    return sorted({finding for name, document in documents.items()
                   for finding in _document_findings(document, f"{name}.md", ctx)})
