"""The quality package's YAML files are parsed once per content, then read from scbench's cache as JSON."""

import datetime
import json
import subprocess
import sys

import pytest
import yaml

from scbench.paths import CACHE
from scbench.quality import documents


def _holding(documents_json: list) -> list:
    """The cache files holding ``documents_json`` (other tests, maybe in another worker, write there too)."""
    return [path for path in (CACHE / "documents").glob("*/documents.json")
            if json.loads(path.read_text()) == documents_json]


def test_documents_are_parsed_once_per_content(tmp_path) -> None:
    first, second = tmp_path / "a.yml", tmp_path / "b.yml"
    first.write_text(f"id: {tmp_path.name}\nrule: {{kind: call}}\nvalid: [x]\n")
    second.write_text("- 1\n- two\n")
    expected = [{"id": tmp_path.name, "rule": {"kind": "call"}, "valid": ["x"]}, [1, "two"]]
    assert documents.load([first, second]) == expected
    [cached] = _holding(expected)
    cached.write_text('[{"id": "from the cache"}, []]')
    assert documents.load([first, second]) == [{"id": "from the cache"}, []]
    second.write_text("- 1\n- three\n")
    assert documents.load([first, second]) == [expected[0], [1, "three"]]


def test_documents_json_cannot_hold_are_parsed_each_time(tmp_path) -> None:
    path = tmp_path / "odd.yml"
    path.write_text(f"1: {tmp_path.name}\nwhen: 2024-01-02\n")
    assert documents.load([path]) == [{1: tmp_path.name, "when": datetime.date(2024, 1, 2)}]
    assert _holding([{"1": tmp_path.name, "when": "datetime.date(2024, 1, 2)"}]) == []


def test_a_malformed_file_raises(tmp_path) -> None:
    path = tmp_path / "bad.yml"
    path.write_text("rule: [unclosed\n")
    with pytest.raises(yaml.YAMLError):
        documents.load([path])


def test_measuring_with_a_warm_cache_never_imports_pyyaml(tmp_path) -> None:
    (tmp_path / "main.py").write_text("def f(x):\n    return x\n")
    code = ("import sys; from pathlib import Path; from scbench.quality.measure import measure; "
            f"report = measure(Path({str(tmp_path)!r})); print(report.loc, 'yaml' in sys.modules)")
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
            for _ in range(2)]
    assert runs[1] == "2 False\n"
