"""Input-file forms written into a case's working directory, byte for byte."""

import gzip
import hashlib
import io
import json
import subprocess
import sys
import tarfile

import pytest

from scbench.evaluate.session import Selection, Target, evaluate
from scbench.problem.compiler import compile_problem
from scbench.problem.model import CaseBase, TarFile
from scbench.run.workdir import write_inputs


def test_a_tar_input_holds_its_members_in_order_with_fixed_headers(tmp_path):
    spec = TarFile.model_validate({"tar": {"b/x.txt": "héllo\n", "a.bin": {"base64": "AAH/"}}})
    write_inputs(tmp_path, {"backup/job/pack-1.tar": spec}, tmp_path)
    with tarfile.open(tmp_path / "backup/job/pack-1.tar") as archive:
        members = archive.getmembers()
        assert [(m.name, m.size, m.type, m.mtime, m.mode, m.uid, m.gid, m.uname, m.gname) for m in members] == [
            ("b/x.txt", 7, tarfile.REGTYPE, 0, 0o644, 0, 0, "", ""),
            ("a.bin", 3, tarfile.REGTYPE, 0, 0o644, 0, 0, "", "")]
        assert [archive.extractfile(m).read() for m in members] == ["héllo\n".encode(), b"\x00\x01\xff"]


def test_a_tar_input_takes_the_header_format_asked_for(tmp_path):
    members = {"A": "1", "B": "22"}
    write_inputs(tmp_path, {name: TarFile.model_validate({"tar": members, "format": name})
                            for name in ("pax", "gnu", "ustar")}, tmp_path)
    magic = {name: (tmp_path / name).read_bytes()[257:265] for name in ("pax", "gnu", "ustar")}
    assert magic == {"pax": b"ustar\x0000", "gnu": b"ustar  \x00", "ustar": b"ustar\x0000"}
    # the default (pax) is the archive Python's tarfile writes by default for the same headers, as
    # SlopCodeBench's file_backup harness builds its packs
    expected = io.BytesIO()
    with tarfile.open(fileobj=expected, mode="w") as archive:
        for name, text in members.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(text), 0, 0o644
            info.uid, info.gid, info.uname, info.gname = 0, 0, "", ""
            archive.addfile(info, io.BytesIO(text.encode()))
    write_inputs(tmp_path, {"default.tar": TarFile.model_validate({"tar": members})}, tmp_path)
    assert (tmp_path / "default.tar").read_bytes() == expected.getvalue()


def test_an_input_replaces_a_link_a_solution_left_and_never_writes_through_it(tmp_path):
    outside, work = tmp_path / "outside", tmp_path / "work"
    outside.mkdir()
    work.mkdir()
    (outside / "kept.txt").write_text("the host's file\n")
    (work / "a.txt").symlink_to(outside / "kept.txt")
    (work / "sub").symlink_to(outside, target_is_directory=True)
    write_inputs(work, {"a.txt": "one\n", "sub/b.txt": "two\n"}, tmp_path)
    assert sorted(path.name for path in outside.iterdir()) == ["kept.txt"]
    assert (outside / "kept.txt").read_text() == "the host's file\n"
    assert [(path.is_symlink(), path.read_text()) for path in (work / "a.txt", work / "sub/b.txt")] == [
        (False, "one\n"), (False, "two\n")]


def test_an_input_replaces_a_file_or_directory_a_solution_left_in_its_way(tmp_path):
    work = tmp_path / "work"
    (work / "report.txt/nested").mkdir(parents=True)
    (work / "state").write_text("a file where an input needs a directory\n")
    (work / "deep").write_text("another\n")
    write_inputs(work, {"state/config.json": "{}\n", "report.txt": "fresh\n", "deep/er/x.txt": "x\n"}, tmp_path)
    assert [(work / name).read_text() for name in ("state/config.json", "report.txt", "deep/er/x.txt")] == [
        "{}\n", "fresh\n", "x\n"]


def test_stdin_given_as_a_value_or_a_data_file_is_sent_as_documented(kv_copy, tmp_path):
    (kv_copy / "data/in.bin").write_bytes("caf\u00e9\r\nno newline".encode())
    (kv_copy / "cases/checkpoint_1/stdin.yaml").write_text(
        "cases:\n"
        "  - id: json_inline\n    stdin: {json: {b: é, a: [1, 2.5, null]}}\n"
        "    expect: {stdout: \"{\\\"b\\\": \\\"é\\\", \\\"a\\\": [1, 2.5, null]}\\n\"}\n"
        "  - id: steps\n    steps:\n"
        "      - {stdin: {yaml: {b: é, a: [1]}}, expect: {stdout: \"b: é\\na:\\n- 1\\n\"}}\n"
        "      - {stdin: {yaml: plain}, expect: {stdout: \"plain\\n...\\n\"}}\n"
        "      - {stdin: {copy: docs/a.txt}, expect: {stdout: \"one two three\\nfour five\\n\"}}\n"
        "      - {stdin: {copy: in.bin}, expect: {stdout: \"café\\r\\nno newline\"}}\n"
        "      - {stdin: \"as is\", expect: {stdout: \"as is\"}}\n")
    solution = tmp_path / "cat"
    solution.mkdir()
    (solution / "cat.py").write_text("import sys\nsys.stdout.buffer.write(sys.stdin.buffer.read())\n")
    results = evaluate(compile_problem(kv_copy), 1, Target(solution, entry="python3 cat.py"))
    cases = {case.id: case for case in results.cases}
    assert [(case, [(s.name, s.failures) for s in cases[case].steps]) for case in ("json_inline", "steps")] == [
        ("json_inline", [("step 1", [])]),
        ("steps", [(f"step {n}", []) for n in range(1, 6)])]


ROWS = [{"id": 1, "name": "a,b", "ok": True}, {"id": 2, "score": 2.5, "name": None}]

GENERATED = {
    "t.csv": {"rows": ROWS, "format": "csv"},
    "t.tsv": {"rows": ROWS, "format": "tsv", "columns": ["name", "id"]},
    "t.jsonl": {"rows": ROWS, "format": "jsonl"},
    "t.json.bz2": {"bz2": {"rows": ROWS, "format": "json"}},
    "t.parquet": {"rows": ROWS, "format": "parquet"},
    "t.parquet.gz": {"gzip": {"rows": ROWS, "format": "parquet"}},
    "notes.txt.gz": {"gzip": "in {cwd}\n"},
}

WRITE = """\
import hashlib, json, sys
from pathlib import Path
from scbench.problem.model import CaseBase
from scbench.run.workdir import write_inputs
work = Path(sys.argv[1])
write_inputs(work, CaseBase.model_validate({"id": "x", "files": json.loads(sys.argv[2])}).files, work, {"cwd": "/w"})
print(json.dumps({p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(work.iterdir())}))
"""


def test_rows_are_written_in_their_format_and_compressed_as_asked(tmp_path):
    import bz2
    import gzip

    import pyarrow.parquet

    write_inputs(tmp_path, {name: CaseBase.model_validate({"id": "x", "files": {name: spec}}).files[name]
                            for name, spec in GENERATED.items()}, tmp_path, {"cwd": "/w"})
    assert (tmp_path / "t.csv").read_text() == 'id,name,ok,score\n1,"a,b",true,\n2,,,2.5\n'
    assert (tmp_path / "t.tsv").read_text() == "name\tid\na,b\t1\n\t2\n"
    assert (tmp_path / "t.jsonl").read_text() == (
        '{"id": 1, "name": "a,b", "ok": true, "score": null}\n{"id": 2, "name": null, "ok": null, "score": 2.5}\n')
    assert json.loads(bz2.decompress((tmp_path / "t.json.bz2").read_bytes())) == [
        {"id": 1, "name": "a,b", "ok": True, "score": None}, {"id": 2, "name": None, "ok": None, "score": 2.5}]
    assert gzip.decompress((tmp_path / "notes.txt.gz").read_bytes()) == b"in /w\n"
    table = pyarrow.parquet.read_table(io.BytesIO(gzip.decompress((tmp_path / "t.parquet.gz").read_bytes())))
    assert (table.column_names, table.to_pylist()) == (["id", "name", "ok", "score"], [
        {"id": 1, "name": "a,b", "ok": True, "score": None}, {"id": 2, "name": None, "ok": None, "score": 2.5}])
    assert str(table.schema.field("score").type) == "double"


def test_generated_inputs_are_byte_identical_across_processes(tmp_path):
    digests = []
    for run in ("one", "two"):
        (tmp_path / run).mkdir()
        done = subprocess.run([sys.executable, "-c", WRITE, tmp_path / run, json.dumps(GENERATED)],
                              capture_output=True, text=True, check=True)
        digests.append(json.loads(done.stdout))
    assert sorted(digests[0]) == sorted(GENERATED)
    assert digests[0] == digests[1]
    # gzip and bz2 wrapping of fixed bytes is fixed too (no name, no time in the gzip header)
    assert digests[0]["notes.txt.gz"] == hashlib.sha256(gzip.compress(b"in /w\n", 9, mtime=0)).hexdigest()


def test_a_parquet_input_without_pyarrow_names_the_extra(tmp_path):
    blocked = "import sys; sys.modules['pyarrow'] = None\n" + WRITE
    done = subprocess.run([sys.executable, "-c", blocked, tmp_path, json.dumps({"t.parquet": GENERATED["t.parquet"]})],
                          capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "RuntimeError: parquet inputs are written by pyarrow, which is not installed: pip install 'scbench[parquet]'")


def test_a_solution_reads_generated_compressed_inputs_in_a_case(kv_copy, tmp_path):
    (kv_copy / "cases/checkpoint_1/rows.yaml").write_text(
        "cases:\n"
        "  - id: gz_rows\n"
        "    files: {in/t.csv.gz: {gzip: {rows: [{a: 1, b: x}], format: csv}}}\n"
        "    args: [in/t.csv.gz]\n"
        "    expect: {stdout: {format: csv, cells: {a: int}, value: [{a: 1.0, b: x}]}}\n")
    solution = tmp_path / "zcat"
    solution.mkdir()
    (solution / "zcat.py").write_text("import gzip, sys\nsys.stdout.write(gzip.open(sys.argv[1], 'rt').read())\n")
    results = evaluate(compile_problem(kv_copy), 1, Target(solution, entry="python3 zcat.py"),
                       selection=Selection(pattern="gz_rows"))
    assert [(case.id, case.passed) for case in results.cases] == [("gz_rows", True)]


def test_rows_outside_their_columns_and_a_parquet_column_of_two_kinds_are_compile_errors(kv_copy):
    from scbench.problem.diagnostics import ProblemError

    (kv_copy / "cases/checkpoint_1/rows.yaml").write_text(
        "cases:\n"
        "  - id: bad_rows\n"
        "    files:\n"
        "      t.csv: {rows: [{a: 1, b: 2, c: 3}], format: csv, columns: [a]}\n"
        "      t.parquet.gz: {gzip: {rows: [{n: 1, s: x}, {n: 2.5, s: null}, {n: '3'}], format: parquet}}\n")
    with pytest.raises(ProblemError) as caught:
        compile_problem(kv_copy)
    assert [d.render().replace(str(kv_copy.parent) + "/", "") for d in caught.value.diagnostics] == [
        "kv/cases/checkpoint_1/rows.yaml:4: cases[0].files.t.csv.rows[0].b: column 'b' is not one of columns\n"
        "    fix: add 'b' to columns, or remove it from the row",
        "kv/cases/checkpoint_1/rows.yaml:4: cases[0].files.t.csv.rows[0].c: column 'c' is not one of columns\n"
        "    fix: add 'c' to columns, or remove it from the row",
        "kv/cases/checkpoint_1/rows.yaml:5: cases[0].files.t.parquet.gz.gzip.rows[2].n: a parquet column holds one "
        "kind of value, and 'n' is a number in row 0 but a string here\n"
        "    fix: write every value of the column as one kind (numbers may mix ints and floats), or null"]
