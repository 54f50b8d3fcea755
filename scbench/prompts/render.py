"""Agent prompts: a checkpoint's spec rendered for one track inside a template of ``templates/``."""

from __future__ import annotations

import jinja2
import yaml

from scbench.paths import PROMPTS
from scbench.problem.bundle import Bundle
from scbench.run.tracks import tracks

ENTRY_PLACEHOLDER = "<entry_command>"


def entry_command(track: str, entry_file: str) -> str:
    """The entry command an agent on ``track`` is told about, e.g. ``node code_search.js``."""
    return tracks()[track].entry.format(entry_file=entry_file, python="python")


def render_spec(spec: str, track: str, entry_file: str) -> str:
    """``spec`` with every ``<entry_command>`` replaced by the track's entry command."""
    return spec.replace(ENTRY_PLACEHOLDER, entry_command(track, entry_file))


def track_words() -> dict[str, dict[str, str]]:
    """Track -> the words prompts use for its language (``words.yaml`` beside this module)."""
    return yaml.load((PROMPTS / "words.yaml").read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)


def templates() -> list[str]:
    """Names of the prompt templates in ``templates/`` (file stems)."""
    return sorted(path.stem for path in (PROMPTS / "templates").glob("*.j2"))


def render_prompt(bundle: Bundle, number: int, template: str, track: str) -> str:
    """The prompt for checkpoint ``number`` (continuation from checkpoint 2 on).
    Raises ``jinja2.TemplateNotFound`` for an unknown template, ``KeyError`` for an unknown
    track or checkpoint."""
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(PROMPTS / "templates"),
                                     undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
    entry_file = bundle.config.entry_file
    note = {key: text.format(entry_file=entry_file) for key, text in tracks()[track].setup_note.items()}
    return environment.get_template(f"{template}.j2").render(
        spec=render_spec(bundle.checkpoint(number).spec, track, entry_file), is_continuation=number > 1,
        track=track, entry_command=entry_command(track, entry_file), setup_note=note, words=track_words()[track])
