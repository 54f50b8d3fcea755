"""Speed of ``scbench history``: wall and CPU seconds to measure N sampled commits of a repository, and the
LOC at HEAD, so that the figure per 100k LOC can be compared across machines.

    python bench/history_speed.py REPO [--commits 30] [--jobs 2]

Measures into a fresh temporary ``--out`` (nothing resumed). CPU time is the user + system time of the
command and its worker processes (from ``wait4``), which a loaded machine disturbs far less than wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "history.json"
        started = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-m", "scbench", "history", str(options.repo), "--commits",
                                    str(options.commits), "-j", str(options.jobs), "--out", str(out)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        if os.waitstatus_to_exitcode(status):
            raise SystemExit(f"scbench history exited {os.waitstatus_to_exitcode(status)}")
        result = json.loads(out.read_text())
    cpu = usage.ru_utime + usage.ru_stime
    head_loc = result["points"][-1]["loc"]
    measured = sum(point["loc"] for point in result["points"])
    print(f"{options.repo}: {len(result['points'])} commits ({len(result['dropped'])} dropped), HEAD {head_loc} LOC, "
          f"{measured} LOC measured in all; wall {wall:.1f} s, CPU {cpu:.1f} s "
          f"({cpu / measured * 100_000:.1f} CPU s per 100k LOC measured), jobs {options.jobs}")


if __name__ == "__main__":
    main()
