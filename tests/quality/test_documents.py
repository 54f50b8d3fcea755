"""The quality package's YAML files are parsed once per content, then read from scbench's cache as JSON."""

import datetime
import subprocess
import sys

import pytest
import yaml

from scbench.paths import CACHE
from scbench.quality import documents


def test_documents_are_parsed_once_per_content(tmp_path) -> None:
    first, second = tmp_path / "a.yml", tmp_path / "b.yml"
    first.write_text("id: a\nrule: {kind: call}\nvalid: [x]\n")
    second.write_text("- 1\n- two\n")
    before = set((CACHE / "documents").glob("*.json"))
    expected = [{"id": "a", "rule": {"kind": "call"}, "valid": ["x"]}, [1, "two"]]
    assert documents.load([first, second]) == expected
    written = set((CACHE / "documents").glob("*.json")) - before
    assert len(written) == 1
    cached = written.pop()
    cached.write_text('[{"id": "from the cache"}, []]')
    assert documents.load([first, second]) == [{"id": "from the cache"}, []]
    second.write_text("- 1\n- three\n")
    assert documents.load([first, second]) == [expected[0], [1, "three"]]


def test_documents_json_cannot_hold_are_parsed_each_time(tmp_path) -> None:
    path = tmp_path / "odd.yml"
    path.write_text("1: one\nwhen: 2024-01-02\n")
    before = set((CACHE / "documents").glob("*.json"))
    assert documents.load([path]) == [{1: "one", "when": datetime.date(2024, 1, 2)}]
    assert set((CACHE / "documents").glob("*.json")) == before


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
