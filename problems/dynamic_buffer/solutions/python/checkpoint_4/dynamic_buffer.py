"""Code generator: infer a row filter and per-column transforms from a sample input/output pair,
then write a streaming `DynamicPreprocessor` module in Python, JavaScript, C++ or Rust that applies them."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from infer import infer_plan
from tables import EXTENSIONS, read_table

HERE = Path(__file__).resolve().parent
TARGETS = {
    "python": {"__init__.py": "runtime_py.py"},
    "javascript": {"index.js": "runtime_js.js"},
    "cpp": {"dynamic_preprocessor.h": "runtime_cpp.h", "dynamic_preprocessor.cpp": "runtime_cpp.cpp"},
    "rust": {"Cargo.toml": "runtime_rs.toml", "src/lib.rs": "runtime_rs.rs"},
}
"""Language -> {file written under OUT_DIR/MODULE: the template it is made from}."""


def _find_sample(sample: Path) -> tuple[Path, Path, str]:
    """The sample's input and output files and their shared extension."""
    for ext in EXTENSIONS:
        source, target = sample / f"input.{ext}", sample / f"output.{ext}"
        if source.is_file() and target.is_file():
            return source, target, ext
    raise ValueError(f"{sample} holds no input.EXT and output.EXT pair (EXT one of {', '.join(EXTENSIONS)})")


def generate(module: str, output: Path, sample: Path, language: str) -> None:
    """Write the module for ``language`` under ``output / module``."""
    source, target, ext = _find_sample(sample)
    plan = infer_plan(read_table(source, ext), read_table(target, ext))
    plan["format"] = ext
    for name, template in TARGETS[language].items():
        written = output / module / name
        written.parent.mkdir(parents=True, exist_ok=True)
        text = (HERE / template).read_text(encoding="utf-8")
        written.write_text(text.replace("__PLAN__", json.dumps(plan, ensure_ascii=False)).replace("__MODULE__", module),
                           encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
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
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
