"""Code generator: infer a row filter and per-column transforms from a sample input/output pair,
then write a streaming `DynamicPreprocessor` module in Python or JavaScript that applies them."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from infer import infer_plan
from tables import EXTENSIONS, read_table

HERE = Path(__file__).resolve().parent
TARGETS = {"python": "runtime_py.py", "javascript": "runtime_js.js"}


def _find_sample(sample: Path) -> tuple[Path, Path, str]:
    """The sample's input and output files and their shared extension."""
    for ext in EXTENSIONS:
        source, target = sample / f"input.{ext}", sample / f"output.{ext}"
        if source.is_file() and target.is_file():
            return source, target, ext
    raise ValueError(f"{sample} holds no input.EXT and output.EXT pair (EXT one of {', '.join(EXTENSIONS)})")


def _render(language: str, plan: dict) -> str:
    template = (HERE / TARGETS[language]).read_text(encoding="utf-8")
    return template.replace("__PLAN__", json.dumps(plan, ensure_ascii=False))


def generate(module: str, output: Path, sample: Path, language: str) -> Path:
    """Write the module for ``language`` under ``output`` and return the file written."""
    source, target, ext = _find_sample(sample)
    plan = infer_plan(read_table(source, ext), read_table(target, ext))
    plan["format"] = ext
    package = output / module
    package.mkdir(parents=True, exist_ok=True)
    written = package / ("__init__.py" if language == "python" else "index.js")
    written.write_text(_render(language, plan), encoding="utf-8")
    return written


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and write the module; exit 1 with the reason when that fails."""
    parser = argparse.ArgumentParser(prog="dynamic_buffer", description=__doc__)
    parser.add_argument("module")
    parser.add_argument("--output", required=True, type=Path)
    parser.add_argument("--sample", required=True, type=Path)
    languages = parser.add_mutually_exclusive_group(required=True)
    for language in TARGETS:
        languages.add_argument(f"--{language}", dest="language", action="store_const", const=language)
    args = parser.parse_args(argv)
    try:
        generate(args.module, args.output, args.sample, args.language)
    except (ValueError, OSError) as error:
        sys.exit(f"error: {error}")


if __name__ == "__main__":
    main()
