"""The metrics command through a tiny typer app, as the lead will register it."""

import json

import typer
from typer.testing import CliRunner

from scbench.commands.metrics import metrics
from tests.quality.conftest import FIXTURES

app = typer.Typer()
app.command("metrics")(metrics)
app.command("noop")(lambda: None)  # a second command keeps "metrics" a subcommand name


def test_json_output() -> None:
    result = CliRunner().invoke(app, ["metrics", str(FIXTURES / "python"), "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert (data["loc"], data["verbose_lines"], data["eroded_mass"]) == (30, 6, 44.0)
    assert data["top_callables"][0]["name"] == "classify"
    assert data["flags_by_rule"] == {
        "self-assign-binary-op": 2,
        "bool-return-if-else": 1,
        "else-after-return": 1,
        "len-compare-zero": 1,
    }


def test_table_output() -> None:
    result = CliRunner().invoke(app, ["metrics", str(FIXTURES / "python"), "--language", "python"])
    assert result.exit_code == 0
    assert "erosion" in result.stdout and "classify" in result.stdout


def test_unknown_language_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["metrics", str(FIXTURES / "python"), "--language", "pyhton"])
    assert result.exit_code == 2
    assert "Did you mean 'python'?" in result.output


def test_a_directory_without_a_file_of_the_language_is_an_error(tmp_path) -> None:
    (tmp_path / "main.py").write_text("print(1)\n")
    result = CliRunner().invoke(app, ["metrics", str(tmp_path), "--language", "go"])
    assert (result.exit_code, result.stderr) == (1, f"no go file under {tmp_path}: nothing to measure\n")
    result = CliRunner().invoke(app, ["metrics", str(tmp_path / "main.py"), "--language", "python", "--json"])
    assert result.exit_code == 0
