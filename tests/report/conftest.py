"""Run directories the report tests read, made once per session by real ``scbench run`` processes on the calc
fixture: ``replay`` of a sloppy trajectory (its ``main()`` grows, checkpoint 3 breaks ``add``), and two runs of
one scripted agent spending $0.25 per checkpoint, one never changing its first workspace, one crashing at
checkpoint 2."""

import pytest

from conftest import FIXTURES, scbench

CALC = FIXTURES / "calc"
SCRIPTED = "{python} tests/fixtures/agents/scripted.py {snapshots} {checkpoint} --spend 0.25"


@pytest.fixture(scope="session")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    made = {"sloppy": ["--agent", "replay", "--snapshots", FIXTURES / "agents/sloppy"],
            "frozen": ["--agent-command", f"{SCRIPTED} --freeze-after 1", "--name", "scripted", "--usage",
                       "claude-code", "--snapshots", CALC / "solutions/python"],
            "crashed": ["--agent-command", f"{SCRIPTED} --crash-at 2", "--name", "scripted", "--usage", "claude-code",
                        "--snapshots", CALC / "solutions/python"]}
    for name, options in made.items():
        done = scbench("run", CALC, *options, "--out", root / name)
        assert done.returncode == (1 if name == "crashed" else 0), done.stderr
    return {name: root / name for name in made}
