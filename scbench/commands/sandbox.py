"""``scbench sandbox``: the containment levels of this machine, and the Docker image."""

import shlex
import subprocess
import sys
from functools import partial
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
    agent: Annotated[str | None, typer.Option(help="instead: install this agent's pinned harness CLI (its entry's "
                                              "package and version) into the built image, from its registry")] = None,
) -> None:
    """Build the docker sandbox's image (debootstrap + docker import, no registry). Needs root,
    debootstrap and a running Docker engine; takes a few minutes. With --agent, add that agent's pinned
    harness to the image instead. Exit 1, without a traceback, when a build step fails (its own messages
    are above, on stderr), 2 for an agent with no package."""
    from scbench.sandbox.image import InstallError, add_harness, build_image
    log = partial(print, file=sys.stderr)
    try:
        typer.echo(add_harness(*_harness(agent), log) if agent else build_image(suite, mirror, log))
    except subprocess.CalledProcessError as failed:
        typer.echo(f"error: the image was not built: `{shlex.join(map(str, failed.cmd))}` exited with code "
                   f"{failed.returncode} (its messages are above)", err=True)
        raise typer.Exit(1) from None
    except InstallError as failed:
        typer.echo(f"error: the harness was not installed: {failed}", err=True)
        raise typer.Exit(1) from None


def _harness(name: str) -> tuple[str, str, str, str]:
    """(package, version, registry, program) of agent ``name``'s entry (its program: its command's first word); a
    usage error when it has none."""
    from scbench.agent.table import agents
    if name not in agents() or not agents()[name].package:
        packaged = [key for key, entry in agents().items() if entry.package]
        raise typer.BadParameter(f"no agent {name!r} with a package; known: {', '.join(packaged)}",
                                 param_hint="--agent")
    entry = agents()[name]
    return entry.package, entry.version, entry.registry, shlex.split(entry.command)[0]
