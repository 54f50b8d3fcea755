"""Every AST-grep rule matches each of its ``invalid`` examples and none of its ``valid`` ones."""

import pytest
from ast_grep_py import SgRoot

from scbench.paths import RULES
from scbench.quality.astgrep import Rule, load_rules

RULE_DIRS = tuple(sorted(path.name for path in RULES.iterdir() if path.is_dir()))
ALL_RULES = load_rules(RULE_DIRS)


def _count(rule: Rule, code: str) -> int:
    return len(rule.matches(SgRoot(code, rule.language).root()))


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: f"{rule.source.parent.name}/{rule.id}")
def test_rule_examples(rule: Rule) -> None:
    assert rule.valid and rule.invalid
    assert [_count(rule, code) > 0 for code in rule.invalid] == [True] * len(rule.invalid)
    assert [_count(rule, code) for code in rule.valid] == [0] * len(rule.valid)


def test_rule_ids_match_file_names_and_languages_match_directories() -> None:
    assert [rule.source.stem for rule in ALL_RULES] == [rule.id for rule in ALL_RULES]
    assert {rule.language for rule in ALL_RULES} == set(RULE_DIRS)


def test_rule_counts() -> None:
    counts = {name: len(load_rules((name,))) for name in RULE_DIRS}
    assert counts["python"] >= 60
    assert counts["javascript"] >= 25

