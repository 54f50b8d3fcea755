"""Structured expectations (json, jsonl, yaml, csv, lines): prune, sort, then deepdiff.

Differences come back as located, readable lines (``$[3].start.col: expected 5, actual 6``),
expected before actual.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from functools import reduce
from typing import Any

import jsonpath
from deepdiff import DeepDiff
from deepdiff.operator import BaseOperator

from scbench.grade import text
from scbench.grade.show import json_path, value
from scbench.problem.model import OutputExpectation, Tolerance

ANY = "[..]"
"""A string leaf that is exactly this matches any value."""


class LeafOperator(BaseOperator):
    """deepdiff operator for leaves compared by our rules: wildcard strings and toleranced floats."""

    def __init__(self, tolerance: Tolerance | None):
        super().__init__()
        self.tolerance = tolerance

    def _is_number_pair(self, level) -> bool:
        numbers = (int, float)
        return all(isinstance(x, numbers) and not isinstance(x, bool) for x in (level.t1, level.t2))

    def match(self, level) -> bool:
        wildcard = isinstance(level.t1, str) and text.INLINE_WILDCARD in level.t1
        return wildcard or (self.tolerance is not None and self._is_number_pair(level))

    def _equal(self, expected: Any, actual: Any) -> bool:
        if expected == ANY:
            return True
        if isinstance(expected, str):
            return isinstance(actual, str) and text.matches(expected, actual)
        return math.isclose(expected, actual, rel_tol=self.tolerance.rel, abs_tol=self.tolerance.abs)

    def give_up_diffing(self, level, diff_instance) -> bool:
        if not self._equal(level.t1, level.t2):
            diff_instance.custom_report_result("values_changed", level)
        return True

    def normalize_value_for_hashing(self, parent: Any, obj: Any) -> Any:
        return obj


def _prune(data: Any, expressions: list[str]) -> Any:
    """A copy of ``data`` without the nodes the JSONPath ``expressions`` select."""
    data = copy.deepcopy(data)
    for expression in expressions:
        for match in reversed(list(jsonpath.finditer(expression, data))):
            if match.parent is not None:
                del match.parent.obj[match.parts[-1]]
    return data


def _sort_key(keys: list[str]) -> Callable[[Any], tuple]:
    def key(record: Any) -> tuple:
        fields = [reduce(lambda node, part: node.get(part) if isinstance(node, dict) else None,
                         name.split("."), record) for name in keys]
        return tuple((field is None, str(type(field)), field if field is not None else 0) for field in fields)
    return key


def _prepare(data: Any, spec: OutputExpectation) -> Any:
    data = _prune(data, spec.ignore) if spec.ignore else data
    return sorted(data, key=_sort_key(spec.sort_by)) if spec.sort_by and isinstance(data, list) else data


MESSAGES: dict[str, Callable[[Any], str]] = {
    "values_changed": lambda lv: f"expected {value(lv.t1)}, actual {value(lv.t2)}",
    "type_changes": lambda lv: f"expected {value(lv.t1)} ({type(lv.t1).__name__}), "
                               f"actual {value(lv.t2)} ({type(lv.t2).__name__})",
    "dictionary_item_removed": lambda lv: f"missing key (expected {value(lv.t1)})",
    "dictionary_item_added": lambda lv: f"unexpected key (actual {value(lv.t2)})",
    "iterable_item_removed": lambda lv: f"missing item {value(lv.t1)}",
    "iterable_item_added": lambda lv: f"unexpected item {value(lv.t2)}",
    "repetition_change": lambda lv: f"expected {lv.additional['repetition']['old_repeat']} occurrence(s) "
                                    f"of {value(lv.t1)}, actual {lv.additional['repetition']['new_repeat']}",
}


def _shared_children(expected: Any, actual: Any) -> list[tuple[Any, Any, Any]]:
    """``(key, expected child, actual child)`` for the children both values have."""
    if isinstance(expected, list) and isinstance(actual, list):
        return list(zip(range(len(actual)), expected, actual, strict=False))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return [(key, expected[key], actual[key]) for key in expected if key in actual]
    return []


def _key_order(expected: Any, actual: Any, path: list) -> list[str]:
    children = _shared_children(expected, actual)
    lines = []
    if isinstance(expected, dict) and isinstance(actual, dict):
        order = [key for key, _, _ in children]
        seen = [key for key in actual if key in expected]
        lines = [] if order == seen else [
            f"{json_path(path)}: keys expected in order {value(order)}, actual {value(seen)}"]
    return lines + [line for key, e, a in children for line in _key_order(e, a, [*path, key])]


def differences(expected: Any, actual: Any, spec: OutputExpectation) -> list[str]:
    """Every difference between the expected and the actual parsed value under ``spec``
    (ignore, sort_by, subset, unordered, tolerance, wildcards, key_order); empty if they match."""
    expected, actual = _prepare(expected, spec), _prepare(actual, spec)
    diff = DeepDiff(expected, actual, ignore_order=spec.unordered, report_repetition=spec.unordered,
                    ignore_numeric_type_changes=True, custom_operators=[LeafOperator(spec.tolerance)], view="tree",
                    threshold_to_diff_deeper=0)
    skipped = {"dictionary_item_added"} if spec.subset else set()
    lines = [f"{json_path(level.path(output_format='list'))}: {MESSAGES[kind](level)}"
             for kind, levels in diff.items() if kind not in skipped for level in levels]
    if spec.key_order and not lines:
        lines = _key_order(expected, actual, [])
    return sorted(lines)
