"""The contract vocabulary of a problem: words a spec may use because they are its external contract.

Taken from the spec's own examples (fenced blocks that are not prescribed code, lines with
``<entry_command>``, inline JSON), from every string and key of every case but its id (args, input files,
request paths and bodies, expected values) and from ``config.yaml``'s ``lint: {allow: [...]}``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from scbench.lint.markdown import Block, Document
from scbench.problem.bundle import Bundle

TOKEN = re.compile(r"[A-Za-z0-9_$][\w$./-]*")
WORD = re.compile(r"\w+")
INLINE_CODE = re.compile(r"`([^`]+)`")
INLINE_DATA = re.compile(r"^\s*(?:[\[{\"]|(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s|/)")
"""Inline code that is contract data: JSON, or an HTTP endpoint such as ``POST /v1/items/{id}``."""
PROSE_KEYS = {"description"}
CODE_LANGUAGES = {"python", "py", "javascript", "js", "typescript", "ts", "java", "rust", "rs", "go", "golang", "c",
                  "cpp", "c++", "csharp", "cs", "ruby", "rb", "kotlin", "swift", "php"}
FILE_LABEL = re.compile(r"^`?[\w./-]+\.\w+`?\s*:$")


def is_prescribed_code(block: Block) -> bool:
    """A block in a programming language that no ```file.ext`:`` label presents as example input."""
    return block.language in CODE_LANGUAGES and not FILE_LABEL.match(block.label)


def words(text: str) -> Iterator[str]:
    """Every path-like token of ``text``, its ``\\w`` parts and its last path component."""
    for token in TOKEN.findall(text):
        yield token.rstrip("./-")
        yield token.rsplit("/", 1)[-1]
        yield from WORD.findall(token)


def _strings(value: Any) -> Iterator[str]:
    """Every string leaf and object key of a dumped model, skipping prose keys."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            if key not in PROSE_KEYS:
                yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


def _spec_examples(document: Document) -> Iterator[str]:
    yield from (block.text for block in document.blocks if not is_prescribed_code(block))
    for line in document.prose:
        if "<entry_command>" in line.text:
            yield line.text
        yield from (span for span in INLINE_CODE.findall(line.text) if INLINE_DATA.match(span))


def vocabulary(bundle: Bundle, documents: Iterable[Document]) -> frozenset[str]:
    """The words every spec of ``bundle`` may use: see the module docstring."""
    texts = [*(text for document in documents for text in _spec_examples(document)),
             *(text for checkpoint in bundle.checkpoints for case in checkpoint.cases
               for text in _strings(case.case.model_dump(by_alias=True, exclude={"id"}))),
             *bundle.data, *bundle.config.lint.get("allow", []), bundle.config.entry_file]
    return frozenset(word for text in texts for word in words(text))
