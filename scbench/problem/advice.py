"""Warnings about a problem that compiles: what is allowed but almost certainly a mistake.

They are computed from the bundle (so a problem read from the cache of compiled problems warns
as it did when it was compiled), located in the problem's files, each with its fix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from scbench.problem.bundle import Bundle
from scbench.problem.diagnostics import Diagnostic
from scbench.problem.model import HttpCase, ServerSpec
from scbench.problem.source import Document, read_document

PORT = "{port}"


@dataclass(frozen=True)
class Sources:
    """Where a bundle's problem lies: ``folder`` (the problem directory's name, files are shown under
    it) and ``config.yaml``'s document for lines (``None`` for a compiled bundle)."""

    folder: str
    config: Document | None

    def line(self, where: tuple) -> int:
        """The 1-based line of key ``where`` of ``config.yaml`` (0 without it: the whole file)."""
        return self.config.line_of(where) if self.config else 0


def _hears_port(server: ServerSpec) -> bool:
    return any(PORT in text for text in (*server.args, *server.env.values()))


def _port_hint(where: str) -> str:
    return f'pass the port in {where}: args: [--port, "{PORT}"] (or an env value "{PORT}"); the server must ' \
           "listen on the port scbench chose, or every request of its cases fails"


def _portless_servers(bundle: Bundle, sources: Sources) -> Iterator[Diagnostic]:
    """HTTP cases whose server is never told its port: once for ``config.yaml``'s server, once per case
    server of its own (a compiled case holds its server, ``config.yaml``'s unless it has one)."""
    shared = bundle.config.server
    portless = [case for checkpoint in bundle.checkpoints for case in checkpoint.cases
                if isinstance(case.case, HttpCase) and case.case.server and not _hears_port(case.case.server)]
    own = [case for case in portless if case.case.server != shared]
    if len(own) < len(portless):
        yield Diagnostic(f"{sources.folder}/config.yaml", sources.line(("server",)), "server",
                         f"the server of the HTTP cases never receives {PORT}", _port_hint("server.args"))
    for case in own:
        yield Diagnostic(f"{sources.folder}/{case.source}", case.line, f"cases[{case.index}].server",
                         f"this case's server never receives {PORT}", _port_hint("the case's server.args"))


CHECKS: list[Callable[[Bundle, Sources], Iterator[Diagnostic]]] = [_portless_servers]
"""Every warning check: it takes the bundle and where its problem lies."""


def warnings(bundle: Bundle, problem: Path) -> list[Diagnostic]:
    """Every warning about ``bundle``, compiled from ``problem`` (a problem directory, or the bundle's
    file): files relative to the problem directory's parent, sorted."""
    sources = Sources(problem.resolve().name, read_document(problem / "config.yaml", "config.yaml")[0]) \
        if problem.is_dir() else Sources(bundle.config.name, None)
    return sorted(diagnostic for check in CHECKS for diagnostic in check(bundle, sources))
