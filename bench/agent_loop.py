"""What the agent loop adds per checkpoint beyond the agent and the evaluation, measured in one run.

    python bench/agent_loop.py [PROBLEM] [--snapshots DIR] [--sandbox S]

Runs the ``replay`` agent through PROBLEM (default problems/code_search, its python references) in
one process and prints, per checkpoint, the agent's wall time, the evaluation's (suite with
regressions, then quality) and the rest of the step (prompt, run.json writes, starting and stopping
the agent's fresh sandbox: for docker a container per checkpoint, about a second; snapshot, diff,
trajectory and usage files), then their totals and the loop's share as a ratio to agent plus
evaluation. Ends with one line ``loop_s_per_checkpoint=X agent_s=Y eval_s=Z``.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

from scbench.agent.invoke import Call
from scbench.agent.loop import Experiment, run_problem
from scbench.agent.table import agents
from scbench.problem.loader import load
from scbench.sandbox.registry import choose

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problem", type=Path, nargs="?", default=ROOT / "problems/code_search")
    parser.add_argument("--snapshots", type=Path)
    parser.add_argument("--sandbox")
    args = parser.parse_args()
    snapshots = (args.snapshots or args.problem / "solutions/python").resolve()
    replay = agents()["replay"]
    call = Call(replay, replay.timeout_s, {"snapshots": str(snapshots)}, (), (), choose(args.sandbox))
    with tempfile.TemporaryDirectory() as out:
        record = run_problem(Path(out) / "run", load(args.problem), Experiment(call, "replay", None, "just-solve",
                                                                              "python", args.sandbox))
    print(f"{'checkpoint':14} {'agent s':>8} {'eval s':>8} {'loop s':>8}")
    loops = []
    for cp in record.checkpoints:
        loops.append(cp.total_s - cp.agent_s - cp.eval_s)
        print(f"{cp.name:14} {cp.agent_s:8.3f} {cp.eval_s:8.3f} {loops[-1]:8.3f}")
    agent, evaluation = (sum(getattr(cp, key) for cp in record.checkpoints) for key in ("agent_s", "eval_s"))
    print(f"{'total':14} {agent:8.3f} {evaluation:8.3f} {sum(loops):8.3f}   loop / (agent + eval) = "
          f"{sum(loops) / (agent + evaluation):.4f}x")
    print(f"loop_s_per_checkpoint={statistics.fmean(loops):.4f} agent_s={agent:.3f} eval_s={evaluation:.3f}")


if __name__ == "__main__":
    main()
