"""Flakiness and mutation score on small real fixtures (real subprocesses)."""

from __future__ import annotations

from scbench.check.flaky import find_flaky
from scbench.check.mutants import mutants_of, mutation_score, sample
from scbench.evaluate.session import Target
from scbench.problem.loader import load
from tests.conftest import FIXTURES

KV = FIXTURES / "kv"


def test_a_case_whose_reference_answer_changes_between_runs_is_flaky() -> None:
    problem = FIXTURES / "lint_flaky"
    target = Target(problem / "solutions" / "python" / "checkpoint_1", "python")
    assert find_flaky(load(problem), 1, target, repeat=3) == ["checkpoint_1/count_first"]


def test_kv_is_not_flaky() -> None:
    assert find_flaky(load(KV), 2, Target(KV / "solutions" / "python" / "checkpoint_2", "python"), repeat=2) == []


def test_mutation_score_of_kv_checkpoint_1_lists_its_survivors() -> None:
    score = mutation_score(load(KV), 1, KV / "solutions" / "python" / "checkpoint_1")
    assert (score.checkpoint, score.killed, score.total) == ("checkpoint_1", 5, 7)
    # json.dumps(sort_keys=False) changes no output the cases read as JSON: equivalent mutants survive
    assert [(m.file, m.line, m.column, m.operator, m.description) for m in score.survivors] == [
        ("kv.py", 15, 50, "true", "`True` -> `False`"),
        ("kv.py", 29, 51, "true", "`True` -> `False`"),
    ]


def test_mutants_cover_the_operators_and_are_sampled_deterministically() -> None:
    mutants = list(mutants_of(KV / "solutions" / "python" / "checkpoint_2"))
    assert [(m.line, m.column, m.operator, m.description) for m in mutants] == [
        (40, 13, "comparison", "`==` -> `!=`"),
        (15, 50, "true", "`True` -> `False`"),
        (29, 51, "true", "`True` -> `False`"),
        (22, 18, "integer", "`1` -> `2`"),
        (35, 85, "integer", "`3` -> `4`"),
        (41, 23, "integer", "`1` -> `2`"),
        (41, 37, "integer", "`2` -> `3`"),
        (9, 5, "return-none", "`return json.loads(STORE.read_text()) if STORE.exists() else {}` -> `return None`"),
    ]
    assert 'if __name__ != "__main__":' in mutants[0].source
    assert [(m.line, m.column) for m in sample(mutants, 3)] == [(m.line, m.column) for m in sample(mutants, 3)]
    assert len(sample(mutants, 3)) == 3 and sample(mutants, 20) == mutants
