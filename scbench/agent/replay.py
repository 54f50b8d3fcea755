"""The ``replay`` agent: make the workspace an exact copy of a recorded snapshot.

``python replay.py SOURCE WORKSPACE``: SOURCE is ``checkpoint_N`` of a problem's
``solutions/TRACK/`` (the reference solutions: an oracle) or of an earlier run directory (whose
``checkpoint_N/snapshot`` is taken: the same trajectory, graded again). Everything in WORKSPACE
is replaced. Runs inside the agent's sandbox with the standard library only; exits 2 with a
message when SOURCE has no snapshot.
"""

import shutil
import sys
from pathlib import Path


def main(source: Path, workspace: Path) -> int:
    """Replace ``workspace``'s content with ``source``'s; 2 when there is nothing to replay."""
    snapshot = source / "snapshot" if (source / "snapshot").is_dir() else source
    if not snapshot.is_dir():
        print(f"replay: no recorded snapshot at {source}", file=sys.stderr)
        return 2
    for entry in workspace.iterdir():
        (shutil.rmtree if entry.is_dir() and not entry.is_symlink() else Path.unlink)(entry)
    shutil.copytree(snapshot, workspace, symlinks=True, dirs_exist_ok=True)
    names = sorted(path.relative_to(workspace).as_posix() for path in workspace.rglob("*") if path.is_file())
    print(f"replay: {len(names)} files from {snapshot}: {', '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
