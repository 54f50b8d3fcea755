"""The ``scbench run`` command: parse arguments, run the agent loop, print one line per checkpoint."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scbench.commands.common import (
    known_track,
    load_bundle,
    print_plain,
    stderr_console,
    unknown_value,
    usable_sandbox,
)

if TYPE_CHECKING:
    from rich.console import Console

    from scbench.agent.table import Agent
    from scbench.rundir import RunRecord


def _agent(name: str | None, command: str | None, usage: str, stdin: bool) -> "Agent":
    """The agent of ``--agent`` or ``--agent-command``; a usage error when it is not exactly one,
    unknown, or malformed."""
    from scbench.agent.table import Agent, agents, problems_of
    if (name is None) == (command is None):
        raise typer.BadParameter("give exactly one of --agent NAME and --agent-command CMD", param_hint="--agent")
    if name is not None and name not in agents():
        raise typer.BadParameter(f"unknown agent {name!r}; known: {', '.join(agents())}", param_hint="--agent")
    from scbench.harness.formats import FORMATS
    form = FORMATS.get(usage)
    agent = agents()[name] if name else Agent(command=command, usage=usage, stdin=stdin,
                                              output="jsonl" if form and form.lines == "json" else "text")
    wrong = problems_of(agent)
    if wrong:
        raise typer.BadParameter("; ".join(wrong), param_hint="--agent" if name else "--agent-command")
    return agent


def _usable(console: "Console", chosen: "Agent", name: str | None, prompt: str, track: str, sandbox: str | None,
            uncontained: bool) -> None:
    """Raise a usage error for an unknown prompt template or track, a sandbox level this machine lacks or that
    contains nothing without ``uncontained``, or an agent whose credentials are not set."""
    from scbench.prompts.render import templates
    from scbench.sandbox.registry import choose
    if prompt not in templates():
        raise unknown_value("template", prompt, templates(), "--prompt")
    known_track(track)
    usable_sandbox(console, sandbox)
    if not (choose(sandbox).contained or uncontained):
        raise typer.BadParameter(f"the {choose(sandbox).name} level contains nothing: the agent would run as "
                                 "you, and could change the grades and records of this run; add --uncontained to "
                                 "run it anyway (the run and its reports are marked uncontained), or install "
                                 "bwrap or Docker (scbench sandbox list)", param_hint="--sandbox")
    missing = chosen.missing_secrets()
    if missing:
        raise typer.BadParameter(f"agent {name} needs a credential: {missing}", param_hint="--agent")


def _values(agent: "Agent", model: str | None, snapshots: Path | None) -> dict[str, str]:
    """The run-wide placeholder values; a usage error when the command needs one not given."""
    needed = {"model": ("--model", model), "snapshots": ("--snapshots", snapshots)}
    for key in agent.placeholders() & needed.keys():
        option, value = needed[key]
        if value is None:
            raise typer.BadParameter(f"this agent's command uses {{{key}}}: give {option}", param_hint=option)
    return {key: str(value.resolve() if isinstance(value, Path) else value) for key, (_, value) in needed.items()
            if value is not None}


def _print_checkpoints(record: "RunRecord", run_dir: Path) -> None:
    """One line per checkpoint on stdout: state, solve rates, and why it stopped or was not graded."""
    from scbench.grade.show import printable
    from scbench.results import RunResults
    from scbench.rundir import checkpoint_dir
    for cp in record.checkpoints:
        results = checkpoint_dir(run_dir, cp.number) / "results.json"
        summary = RunResults.model_validate_json(results.read_text()).summary if results.exists() else None
        rates = " ".join(f"{key}={'yes' if summary and getattr(summary, key) else 'no'}"
                         for key in ("strict", "isolated", "core"))
        why = cp.stop_reason or cp.evaluation_error
        typer.echo(f"{cp.name}\t{cp.status}\t{rates}" + (f"\t{printable(why.splitlines()[0])}" if why else ""))


def run(
    problem: Annotated[Path, typer.Argument(help="problems/NAME directory or a compiled NAME-HASH.scb.json")],
    agent: Annotated[str | None, typer.Option("--agent", help="an agent of scbench/agent/agents.yaml: claude-code, "
                                              "codex, gemini-cli, opencode, replay")] = None,
    agent_command: Annotated[str | None, typer.Option(
        "--agent-command", help="any command, run in the workspace; placeholders {prompt_file} {workspace} "
                                "{checkpoint} {model}")] = None,
    name: Annotated[str, typer.Option("--name", help="what reports call an --agent-command agent")] = "command",
    model: Annotated[str | None, typer.Option("--model", help="the model, for {model}")] = None,
    prompt: Annotated[str, typer.Option("--prompt", help="prompt template of scbench/prompts/templates: "
                                        "just-solve, anti-slop, plan-first")] = "just-solve",
    track: Annotated[str, typer.Option("--track", "-t", help="language track the agent writes in")] = "python",
    out: Annotated[Path | None, typer.Option("--out", help="the run directory [default: "
                                             "runs/PROBLEM-AGENT-TIME]")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="continue the run in --out after its last complete "
                                         "checkpoint")] = False,
    snapshots: Annotated[Path | None, typer.Option(
        "--snapshots", exists=True, file_okay=False, help="for replay: a directory of checkpoint_N/ snapshots "
                                                          "(a problem's solutions/TRACK, or an earlier run)")] = None,
    sandbox: Annotated[str | None, typer.Option(
        "--sandbox", help="where the agent and the cases run: bwrap, docker or local "
                          "[default: the first available of bwrap, docker, local]")] = None,
    timeout: Annotated[float | None, typer.Option("--timeout", min=1, help="seconds per checkpoint "
                                                  "[default: the agent's]")] = None,
    cost_limit: Annotated[float | None, typer.Option("--cost-limit", min=0, help="US dollars the whole run may "
                                                     "spend (as its usage parser reads it)")] = None,
    secret: Annotated[list[str] | None, typer.Option(
        "--secret", help="pass this environment variable by name, its value redacted from every record "
                         "(repeatable)")] = None,
    env: Annotated[list[str] | None, typer.Option("--env", help="pass this environment variable by name "
                                                  "(repeatable)")] = None,
    checkpoint_cost_limit: Annotated[float | None, typer.Option(
        "--checkpoint-cost-limit", min=0, help="US dollars each checkpoint may spend, its retries included "
                                               "[default: the agent's]")] = None,
    retries: Annotated[int, typer.Option("--retries", min=0, help="retries of an attempt that failed "
                                         "transiently (rate limit, network, 5xx)")] = 2,
    retry_wait: Annotated[float, typer.Option("--retry-wait", min=0, help="seconds before the first retry, "
                                              "doubled before each next one")] = 30.0,
    usage: Annotated[str, typer.Option("--usage", help="stream format of an --agent-command's output: "
                                       "none, claude-code, codex, gemini-cli, opencode, aider")] = "none",
    stdin: Annotated[bool, typer.Option("--stdin", help="feed an --agent-command the prompt on stdin")] = False,
    allow_host: Annotated[list[str] | None, typer.Option("--allow-host", help="a host the agent may reach over "
                                                         "HTTPS besides its entry's (repeatable)")] = None,
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="cases run in parallel "
                                             "[default: CPU count + 1]")] = None,
    uncontained: Annotated[bool, typer.Option("--uncontained", help="run at the local level, which contains "
                                              "nothing (the run and its reports say so)")] = False,
    allow_changed_settings: Annotated[bool, typer.Option(
        "--allow-changed-settings", help="with --resume: go on under another --sandbox or --cost-limit "
                                         "(each checkpoint records its own)")] = False,
) -> None:
    """Run an agent through every checkpoint of a problem: per checkpoint the rendered prompt, the
    agent in a fresh sandbox on its own previous workspace, then its snapshot, diff, grading with
    regressions and quality, all under RUN_DIR/checkpoint_N/. Exit 0 when the agent went through
    every checkpoint, 1 when it ended the run early (the reason is recorded), 2 on a usage error.
    Interrupted (Ctrl-C, SIGTERM), it stops the agent's whole tree first; --resume goes on."""
    import signal
    import sys
    from datetime import UTC, datetime

    from scbench.agent.invoke import Call
    from scbench.agent.loop import Experiment, RunDirError, run_problem
    from scbench.run.tracks import tracks
    from scbench.sandbox.registry import choose
    chosen = _agent(agent, agent_command, usage, stdin)
    console = stderr_console()
    _usable(console, chosen, agent, prompt, track, sandbox, uncontained)
    bundle = load_bundle(problem)
    name = agent or name
    run_dir = out or Path("runs") / f"{bundle.config.name}-{name}-{datetime.now(UTC):%Y%m%dT%H%M%S}"
    call = Call(chosen, timeout or chosen.timeout_s, _values(chosen, model, snapshots), tuple(secret or ()),
                tuple(env or ()), choose(sandbox), hosts=tuple(allow_host or ()), registries=tracks()[track].hosts())
    experiment = Experiment(call, name, model, prompt, track, sandbox, cost_limit, jobs,
                            chosen.checkpoint_cost_limit_usd if checkpoint_cost_limit is None
                            else checkpoint_cost_limit, retries, retry_wait, allow_changed_settings)
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))  # clean up as for Ctrl-C
    try:
        record = run_problem(run_dir, bundle, experiment, resume, lambda line: print_plain(console, line))
    except RunDirError as error:
        raise typer.BadParameter(str(error), param_hint="--out") from None
    _print_checkpoints(record, run_dir)
    console.print(f"wrote {run_dir}")
    raise typer.Exit(1 if record.stop_reason else 0)
