"""Resource limits of every process tree a sandbox runs, and how they are applied.

Every sandbox applies the per-process rlimits through ``prlimit`` (util-linux) in front of the
command; ``bwrap`` adds a cgroup (memory, process count) per run where one is writable, and
``docker`` sets the same on its container.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Per-run limits: ``memory_mb`` (MiB of private writable memory a process may map,
    RLIMIT_DATA, and of the run's whole tree where a cgroup applies), ``processes`` (tasks of
    the tree; applied only through a cgroup or a container: RLIMIT_NPROC counts every process
    of the user, so it cannot bound one run),
    ``cpu_s`` (CPU seconds per process, RLIMIT_CPU), ``file_mb`` (MiB any one file may grow to,
    RLIMIT_FSIZE), ``output_mb`` (MiB of stdout and of stderr kept; the rest is dropped) and
    ``address_space_mb`` (MiB of private writable address space a process may map, RLIMIT_DATA in place of
    ``memory_mb``, for runtimes that reserve far more address space than they use; ``None``: ``memory_mb``)."""

    memory_mb: int = 2048
    processes: int = 256
    cpu_s: int = 60
    file_mb: int = 256
    output_mb: int = 8
    address_space_mb: int | None = None

    def prlimit(self) -> list[str]:
        """The ``prlimit`` command that applies the per-process limits to the command after it."""
        return ["prlimit", f"--data={(self.address_space_mb or self.memory_mb) * MIB}", f"--cpu={self.cpu_s}",
                f"--fsize={self.file_mb * MIB}", "--"]

    @property
    def output_bytes(self) -> int:
        """Bytes kept per output stream."""
        return self.output_mb * MIB

    def scaled(self, runs: int) -> Limits:
        """Limits for ``runs`` runs sharing one container: memory and processes multiplied."""
        return replace(self, memory_mb=self.memory_mb * runs, processes=self.processes * runs)


SETUP_LIMITS = Limits(memory_mb=8192, processes=1024, cpu_s=1800, file_mb=4096, output_mb=1)
"""Limits for a track's setup (pip install, npm install, cargo build): generous, still bounded."""
