"""``scbench sandbox``: the containment levels of this machine, and the Docker image."""

from __future__ import annotations

import shlex
import subprocess
import sys
from typing import Annotated

import typer

app = typer.Typer(help="Sandboxes that contain solutions: list them, build the Docker image.",
                  no_args_is_help=True, rich_markup_mode=None)


@app.command("list")
def list_levels() -> None:
    """Each sandbox level, whether this machine has it (and why not), what it contains (processes,
    files, network during set-up and cases, uid) and what it does not. The first available one is the
    default of --sandbox."""
    from scbench.sandbox.registry import registry
    for name, level in registry().items():
        why = level.unavailable()
        typer.echo(f"{name}: {'not available: ' + why if why else 'available'}")
        for line in level.contains:
            typer.echo(f"  contains: {line}")
        for gap in level.gaps:
            typer.echo(f"  does not contain: {gap}")


@app.command("build-image")
def build_image_command(
    suite: Annotated[str, typer.Option(help="Debian suite of the rootfs")] = "bookworm",
    mirror: Annotated[str, typer.Option(help="Debian mirror debootstrap reads")] = "http://deb.debian.org/debian",
) -> None:
    """Build the docker sandbox's image (debootstrap + docker import, no registry). Needs root,
    debootstrap and a running Docker engine; takes a few minutes. Exit 1, without a traceback, when a
    build step fails (its own messages are above, on stderr)."""
    from scbench.sandbox.image import build_image
    try:
        typer.echo(build_image(suite, mirror, lambda line: print(line, file=sys.stderr)))
    except subprocess.CalledProcessError as failed:
        typer.echo(f"error: the image was not built: `{shlex.join(map(str, failed.cmd))}` exited with code "
                   f"{failed.returncode} (its messages are above)", err=True)
        raise typer.Exit(1) from None
