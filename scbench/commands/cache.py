"""``scbench cache info|clean``: what the cache holds, and removing it."""

from typing import Annotated

import typer

cache = typer.Typer(help="The cache of prepared solutions and bundle data (SCBENCH_CACHE moves it).",
                    no_args_is_help=True)


def _mib(size: int) -> str:
    return f"{size / 2**20:,.1f} MiB"


@cache.command("info")
def info() -> None:
    """Print where the cache is and, per kind, its entries and size (stdout)."""
    from scbench.cache.store import usage
    from scbench.paths import CACHE
    found = usage()
    typer.echo(f"cache: {CACHE}")
    for entry in found:
        typer.echo(f"{entry.name:12} {entry.entries:6} entries {_mib(entry.size):>14}  "
                   f"{entry.holds or '(not scbench’s: clean leaves it alone)'}")
    typer.echo(f"{'total':12} {'':14} {_mib(sum(entry.size for entry in found)):>14}")


@cache.command("clean")
def clean(
    kinds: Annotated[list[str] | None, typer.Argument(help="kinds to remove (default: all of scbench's)")] = None,
) -> None:
    """Remove cached entries; every scbench run sets up again what it needs. Do not clean while
    scbench runs. Prints what was removed (stdout)."""
    from scbench.cache.store import clean as remove
    try:
        removed = remove(kinds)
    except KeyError as error:
        raise typer.BadParameter(error.args[0], param_hint="KINDS") from None
    for entry in removed:
        typer.echo(f"removed {entry.name}: {entry.entries} entries, {_mib(entry.size)}")
    if not removed:
        typer.echo("nothing to remove")
