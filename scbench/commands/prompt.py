"""``scbench prompt``: the agent prompt of a checkpoint."""

from typing import Annotated

import typer

from scbench.commands.common import ProblemArg, TrackOption, known_checkpoint, known_track, load_bundle, unknown_value


def prompt_command(
    problem: ProblemArg,
    checkpoint: Annotated[int, typer.Option("--checkpoint", "-c", help="checkpoint number")],
    template: Annotated[str, typer.Option("--template", help="a template of scbench/prompts/templates: "
                                          "just-solve, anti-slop, plan-first, ...")] = "just-solve",
    track: TrackOption = "python",
) -> None:
    """Print the agent prompt for a checkpoint: the spec, rendered for a track, in a template."""
    from scbench.prompts.render import render_prompt, templates
    if template not in templates():
        raise unknown_value("template", template, templates(), "--template")
    bundle = load_bundle(problem)
    known_checkpoint(bundle, checkpoint)
    known_track(track)
    typer.echo(render_prompt(bundle, checkpoint, template, track), nl=False)
