"""What each link of a sandbox's process chain costs per run: the floor of a case's start.

    python bench/process_chain.py [--runs 200] [--rounds 3]

Every case is one process started through a chain of programs before the solution's own: ``prlimit``
(rlimits, at every level), ``sh`` (joining a cgroup, ``local``), ``setpriv`` (dropping to an unused uid,
``bwrap`` under root), ``bwrap`` itself. This starts ``true`` (the shell builtin's program, ``/bin/true``)
bare and through each link and chain in turn, interleaved (a change of load hits all alike), with
``subprocess.run`` as the harness; it prints the mean wall milliseconds per run and the ratio to the
bare start. Chains whose program is missing are skipped.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import time

from scbench.sandbox.limits import Limits

TRUE = ["/bin/true"]
LIMITS = Limits().prlimit()
SETPRIV = ["setpriv", "--reuid=65533", "--regid=65533", "--clear-groups", "--inh-caps=-all"]
BWRAP = ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--die-with-parent",
         "--"]
CHAINS = {
    "bare": TRUE,
    "prlimit": LIMITS + TRUE,
    "sh + prlimit (local)": ["sh", "-c", 'exec "$@"', "sh", *LIMITS, *TRUE],
    "setpriv": SETPRIV + TRUE,
    "bwrap": BWRAP + TRUE,
    "bwrap + setpriv + prlimit (bwrap level)": BWRAP + SETPRIV + LIMITS + TRUE,
}
"""Name -> argv: each link alone, and each level's whole chain."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200, help="runs per chain per round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    chains = {name: argv for name, argv in CHAINS.items() if all(shutil.which(word) for word in argv[:1])}
    spent = dict.fromkeys(chains, 0.0)
    for _ in range(args.rounds):
        for name, argv in chains.items():
            started = time.perf_counter()
            for _ in range(args.runs):
                subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, capture_output=True)
            spent[name] += time.perf_counter() - started
    bare = spent["bare"]
    print(f"{'chain':<42} {'ms/run':>8} {'ratio':>6}")
    for name, seconds in spent.items():
        print(f"{name:<42} {seconds / args.rounds / args.runs * 1000:8.2f} {seconds / bare:5.2f}x")


if __name__ == "__main__":
    main()
