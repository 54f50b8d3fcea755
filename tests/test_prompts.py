"""Agent prompts render a checkpoint's spec for a track inside a template."""

from conftest import ROOT, scbench
from scbench.prompts.render import track_words
from scbench.run.tracks import tracks


def test_prompt_renders_the_entry_command_per_track():
    done = scbench("prompt", ROOT / "problems/code_search", "-c", 2, "--track", "node", "--template", "just-solve")
    assert done.returncode == 0, done.stderr
    assert "<entry_command>" not in done.stdout
    assert "node code_search.js" in done.stdout
    assert "Add any new npm dependency to package.json." in done.stdout


def test_first_checkpoint_is_not_a_continuation():
    done = scbench("prompt", ROOT / "problems/code_search", "-c", 1, "--template", "plan-first")
    assert "Use a virtual environment in .venv and list every dependency in requirements.txt." in done.stdout
    assert ".venv/bin/python code_search.py" in done.stdout


def test_unknown_template_is_a_usage_error():
    done = scbench("prompt", ROOT / "problems/code_search", "-c", 1, "--template", "nope")
    assert done.returncode == 2
    assert "unknown template 'nope'" in done.stderr


def test_prompts_use_the_words_of_the_tracks_language():
    node = scbench("prompt", ROOT / "problems/code_search", "-c", 1, "--track", "node", "--template", "anti-slop")
    assert node.returncode == 0, node.stderr
    instructions = node.stdout.split("The specification:")[0]
    assert not {"try/except", "docstrings", "if/elif", "Python"} & set(instructions.replace(",", " ").split())
    assert "JSDoc comments" in node.stdout and "try/catch blocks" in node.stdout
    assert "careful JavaScript (Node.js) engineer" in node.stdout
    python = scbench("prompt", ROOT / "problems/code_search", "-c", 1, "--template", "anti-slop").stdout
    assert "try/except blocks" in python and "if/elif ladders" in python


def test_every_track_has_its_words():
    assert set(track_words()) == set(tracks())
    assert all(set(words) == {"language", "docs", "handlers", "ladders"} for words in track_words().values())


def test_a_misspelt_template_gets_the_closest_one():
    # before: "known: anti-slop, just-solve, plan-first" whatever was meant
    done = scbench("prompt", ROOT / "problems/code_search", "-c", 1, "--template", "anti-slp")
    assert (done.returncode, "unknown template 'anti-slp'; did you mean 'anti-slop'?" in done.stderr) == (2, True)
