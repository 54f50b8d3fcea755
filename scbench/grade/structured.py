"""Structured expectations (json, jsonl, yaml, csv, lines): prune, sort, then deepdiff.

Differences come back as located, readable lines (``$[3].start.col: expected 5, actual 6``),
expected before actual.
"""

from __future__ import annotations

import copy
import json
import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import partial, reduce
from itertools import chain
from typing import Any

from scbench.grade import text
from scbench.grade.show import json_path, value
from scbench.problem.model import ANY, OutputExpectation, TextNormalization, Tolerance


@dataclass(frozen=True)
class Boolean:
    """A boolean kept apart from numbers while diffing (in Python ``True == 1``, in JSON not)."""

    value: bool


def _scalar(item: Any) -> Any:
    return Boolean(item) if isinstance(item, bool) else item


def _hashable_scalar(item: Any) -> Any:
    """For ``unordered`` lists, compared by hash: integral floats as integers, so ``1.0`` finds ``1``."""
    return int(item) if isinstance(item, float) and item.is_integer() else _scalar(item)


def canonical(item: Any, scalar: Callable[[Any], Any] = _scalar) -> Any:
    """``item`` for comparing, recursively through lists and objects: booleans wrapped in
    :class:`Boolean`, other scalars through ``scalar``."""
    if isinstance(item, dict):
        return {key: canonical(child, scalar) for key, child in item.items()}
    if isinstance(item, list):
        return [canonical(child, scalar) for child in item]
    return scalar(item)


def _json(item: Any) -> str:
    """``item`` (canonical) as compact JSON with sorted keys: the identity of an item of a list."""
    return json.dumps(item, sort_keys=True, ensure_ascii=False, default=lambda boolean: boolean.value)


def _shown(item: Any) -> str:
    """A canonical value rendered for a message."""
    return value(json.loads(_json(item)))


def _number(item: Any) -> bool:
    return isinstance(item, int | float) and not isinstance(item, bool)


def leaf_equal(expected: Any, actual: Any, tolerance: Tolerance | None) -> bool:
    """Whether leaf ``actual`` meets leaf ``expected`` (both canonical): a wildcard string matches
    by its pattern, numbers by value within ``tolerance``, anything else exactly."""
    if expected == ANY:
        return True
    if isinstance(expected, str):
        return isinstance(actual, str) and text.matches(expected, actual)
    if tolerance is None or not (_number(expected) and _number(actual)):
        return expected == actual
    return math.isclose(expected, actual, rel_tol=tolerance.rel, abs_tol=tolerance.abs)


class LeafOperator:
    """deepdiff operator (its ``match`` / ``give_up_diffing`` / ``normalize_value_for_hashing`` protocol) for
    leaves compared by our rules: wildcard strings, and numbers by value (``1`` equals ``1.0``; ``0.1 + 0.2`` is
    not ``0.3`` unless a ``tolerance`` says so). Not a subclass of deepdiff's base class: deepdiff (and numpy,
    which it imports) is loaded only when two values differ in their JSON text."""

    def __init__(self, tolerance: Tolerance | None):
        self.tolerance = tolerance

    def match(self, level) -> bool:
        wildcard = isinstance(level.t1, str) and text.INLINE_WILDCARD in level.t1
        return wildcard or (_number(level.t1) and _number(level.t2))

    def give_up_diffing(self, level, diff_instance) -> bool:
        if not leaf_equal(level.t1, level.t2, self.tolerance):
            diff_instance.custom_report_result("values_changed", level)
        return True

    def normalize_value_for_hashing(self, parent: Any, obj: Any) -> Any:
        return obj


def prune(data: Any, expressions: list[str]) -> Any:
    """A copy of ``data`` without the nodes the JSONPath ``expressions`` select."""
    import jsonpath  # loaded by the suites that ignore or normalize paths only

    data = copy.deepcopy(data)
    for expression in expressions:
        for match in reversed(list(jsonpath.finditer(expression, data))):
            if match.parent is not None:
                del match.parent.obj[match.parts[-1]]
    return data


def rewrite(text: str, rule: TextNormalization) -> str:
    """``text`` stripped, without ``rule.delete``'s characters and lower-cased, as far as ``rule`` asks."""
    text = text.strip() if rule.strip else text
    text = text.translate(dict.fromkeys(map(ord, rule.delete)))
    return text.lower() if rule.lower else text


def normalized(data: Any, rules: list[TextNormalization]) -> Any:
    """A copy of ``data`` in which every string leaf a rule's JSONPath selects is rewritten by it,
    rules in order; the wildcard ``[..]`` is left as it is."""
    import jsonpath

    data = copy.deepcopy(data)
    for rule in rules:
        for match in list(jsonpath.finditer(rule.path, data)):
            if not isinstance(match.obj, str) or match.obj == ANY:
                continue
            if match.parent is None:
                data = rewrite(match.obj, rule)
            else:
                match.parent.obj[match.parts[-1]] = rewrite(match.obj, rule)
    return data


def _sort_key(keys: list[str]) -> Callable[[Any], tuple]:
    def key(record: Any) -> tuple:
        fields = [reduce(lambda node, part: node.get(part) if isinstance(node, dict) else None,
                         name.split("."), record) for name in keys]
        return tuple((field is None, str(type(field)), field if field is not None else 0) for field in fields)
    return key


def _shape(expected: Any) -> Any:
    """The object keys ``expected`` has, recursively; a list's items merged into one shape."""
    if isinstance(expected, dict):
        return {key: _shape(child) for key, child in expected.items()}
    return [_merge([_shape(item) for item in expected])] if isinstance(expected, list) else None


def _merge(shapes: list) -> Any:
    objects = [shape for shape in shapes if isinstance(shape, dict)]
    lists = [shape for shape in shapes if isinstance(shape, list)]
    if objects:
        return {key: _merge([shape.get(key) for shape in objects]) for key in dict.fromkeys(chain(*objects))}
    return [_merge(list(chain(*lists)))] if lists else None


def _cut(shape: Any, actual: Any) -> Any:
    if isinstance(shape, dict) and isinstance(actual, dict):
        return {key: _cut(shape[key], child) for key, child in actual.items() if key in shape}
    if isinstance(shape, list) and isinstance(actual, list):
        return [_cut(shape[0], item) for item in actual]
    return actual


def subset_of(expected: Any, actual: Any) -> Any:
    """``actual`` without the object keys that ``expected`` lacks: every item of a list is cut
    to the keys any item of the expected list has (so ``subset`` works on ``unordered`` lists,
    whose items have no fixed partner)."""
    return _cut(_shape(expected), actual)


def _prepare(data: Any, spec: OutputExpectation) -> Any:
    data = prune(data, spec.ignore) if spec.ignore else data
    data = normalized(data, spec.normalize) if spec.normalize else data
    return sorted(data, key=_sort_key(spec.sort_by)) if spec.sort_by and isinstance(data, list) else data


JSON_TYPES = {Boolean: "boolean", int: "number", float: "number", str: "string", dict: "object", list: "array",
              type(None): "null"}

MESSAGES: dict[str, Callable[[Any], str]] = {
    "values_changed": lambda lv: f"expected {_shown(lv.t1)}, actual {_shown(lv.t2)}",
    "type_changes": lambda lv: f"expected {_shown(lv.t1)} ({JSON_TYPES[type(lv.t1)]}), "
                               f"actual {_shown(lv.t2)} ({JSON_TYPES[type(lv.t2)]})",
    "dictionary_item_removed": lambda lv: f"missing key (expected {_shown(lv.t1)})",
    "dictionary_item_added": lambda lv: f"unexpected key (actual {_shown(lv.t2)})",
    "iterable_item_removed": lambda lv: f"missing item {_shown(lv.t1)}",
    "iterable_item_added": lambda lv: f"unexpected item {_shown(lv.t2)}",
    "repetition_change": lambda lv: f"expected {lv.additional['repetition']['old_repeat']} occurrence(s) "
                                    f"of {_shown(lv.t1)}, actual {lv.additional['repetition']['new_repeat']}",
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


def _permuted(expected: Any, actual: Any) -> bool:
    return (isinstance(expected, list) and isinstance(actual, list) and expected != actual
            and Counter(map(_json, expected)) == Counter(map(_json, actual)))


def reorderings(expected: Any, actual: Any, path: list) -> tuple[Any, list[str]]:
    """``actual`` with each list that holds exactly ``expected``'s items in another order put in
    ``expected``'s order, and one line per such list naming its first misplaced item."""
    if _permuted(expected, actual):
        index, wanted, found = next((i, e, a) for i, (e, a) in enumerate(zip(expected, actual, strict=True)) if e != a)
        return expected, [f"{json_path(path)}: same items, different order (first at [{index}]: expected "
                          f"{_shown(wanted)}, actual {_shown(found)})"]
    patched, lines = copy.copy(actual), []
    for key, wanted, found in _shared_children(expected, actual):
        patched[key], more = reorderings(wanted, found, [*path, key])
        lines += more
    return (patched, lines) if lines else (actual, [])


def _compared(expected: Any, actual: Any, spec: OutputExpectation) -> tuple[Any, Any, list[str]]:
    """Both values as deepdiff compares them (pruned, sorted, a subset's extra keys cut from
    unordered lists, canonical), and the lines of the lists found only reordered."""
    scalar = _hashable_scalar if spec.unordered else _scalar
    expected, actual = _prepare(expected, spec), _prepare(actual, spec)
    actual = subset_of(expected, actual) if spec.subset and spec.unordered else actual
    expected, actual = canonical(expected, scalar), canonical(actual, scalar)
    if spec.unordered:
        return expected, actual, []
    return expected, *reorderings(expected, actual, [])


def multiset_key(item: Any) -> str:
    """A string identity of ``item`` (canonical) in which every list counts as a multiset, at every
    level: two values are equal with lists unordered exactly when their keys are equal. One pass,
    each list's item keys sorted."""
    if isinstance(item, dict):
        return "{" + ",".join(f"{_json(key)}:{multiset_key(child)}" for key, child in sorted(item.items())) + "}"
    if isinstance(item, list):
        return "[" + ",".join(sorted(map(multiset_key, item))) + "]"
    return _json(item)


def unpaired(expected: list, actual: list) -> tuple[list[int], list[int]]:
    """The positions of the items of two unordered lists left once every item is paired with an
    exactly equal one of the other list (at most once each): ``(expected positions, actual positions)``."""
    expected_keys, actual_keys = list(map(multiset_key, expected)), list(map(multiset_key, actual))
    waiting = Counter(actual_keys)
    left_expected = [index for index, key in enumerate(expected_keys) if not _take(waiting, key)]
    paired = Counter(expected_keys) - Counter(expected_keys[index] for index in left_expected)
    return left_expected, [index for index, key in enumerate(actual_keys) if not _take(paired, key)]


def _take(counter: Counter, key: str) -> bool:
    """Take one ``key`` from ``counter`` if it has one; whether it had."""
    if counter[key] <= 0:
        return False
    counter[key] -= 1
    return True


def fits(expected: Any, actual: Any, spec: OutputExpectation) -> bool:
    """Whether ``actual`` meets ``expected`` (both canonical) with every list a multiset: leaves by
    :func:`leaf_equal`, extra object keys only under ``subset``."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and (spec.subset or actual.keys() == expected.keys()) and all(
            key in actual and fits(child, actual[key], spec) for key, child in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and not any(unmatched(expected, actual, spec))
    return leaf_equal(expected, actual, spec.tolerance)


def _augment(start: int, candidates: Callable[[int], Iterable[int]], partner: dict[int, int]) -> None:
    """Extend the matching ``partner`` (actual position -> expected position) by an augmenting
    path from expected item ``start`` (Kuhn's algorithm, depth first without recursion)."""
    stack, chosen, seen = [(start, iter(candidates(start)))], [], set()
    while stack:
        actual = next((j for j in stack[-1][1] if j not in seen), None)
        if actual is None:
            stack.pop()
            del chosen[-1:]
        elif actual in partner:
            seen.add(actual)
            chosen.append(actual)
            stack.append((partner[actual], iter(candidates(partner[actual]))))
        else:
            for (expected, _), found in zip(stack, [*chosen, actual], strict=True):
                partner[found] = expected
            return


def unmatched(expected: list, actual: list, spec: OutputExpectation) -> tuple[list[int], list[int]]:
    """The positions of the items of two unordered lists left unpaired: exactly equal items are
    paired first, then the rest as a maximum matching of the items that :func:`fits` allows
    (wildcards and tolerance), so the pairing of one item never takes another's only partner."""
    left_expected, left_actual = unpaired(expected, actual)
    allowed = {i: [j for j in left_actual if fits(expected[i], actual[j], spec)] for i in left_expected}
    partner: dict[int, int] = {}
    for i in left_expected:
        _augment(i, allowed.__getitem__, partner)
    paired = set(partner.values())
    return [i for i in left_expected if i not in paired], [j for j in left_actual if j not in partner]


def _unordered_lines(expected: Any, actual: Any, spec: OutputExpectation) -> list[str]:
    """Differences of two values compared with lists as multisets. DeepDiff pairs unequal items by
    distance, which costs time exponential in nesting and slow on long lists, and by hash, which
    cannot see wildcards or tolerance; so equal values (:func:`fits`) and the items of a top-level
    list that :func:`unmatched` pairs are settled first, and only the items left over go to
    DeepDiff (their paths keep the positions they have in the whole lists: the expected item's, or
    an extra actual item's own)."""
    if multiset_key(expected) == multiset_key(actual) or fits(expected, actual, spec):
        return []
    if not (isinstance(expected, list) and isinstance(actual, list)):
        return _deepdiff_lines(expected, actual, spec, lambda path, kind: path)
    left_expected, left_actual = unmatched(expected, actual, spec)

    def placed(path: list, kind: str) -> list:
        # DeepDiff places a difference at the expected item's position, an extra actual item at its own
        extra = kind == "iterable_item_added" and len(path) == 1
        return [(left_actual if extra else left_expected)[path[0]], *path[1:]] if path else path

    return _deepdiff_lines([expected[i] for i in left_expected], [actual[i] for i in left_actual], spec, placed)


def _deepdiff_lines(expected: Any, actual: Any, spec: OutputExpectation,
                    placed: Callable[[list, str], list]) -> list[str]:
    """One line per DeepDiff difference, its path (a list of keys) passed through ``placed``."""
    from deepdiff import DeepDiff

    diff = DeepDiff(expected, actual, ignore_order=spec.unordered, report_repetition=spec.unordered,
                    custom_operators=[LeafOperator(spec.tolerance)], view="tree",
                    threshold_to_diff_deeper=0)
    skipped = {"dictionary_item_added"} if spec.subset else set()
    return [f"{json_path(placed(level.path(output_format='list'), kind))}: {MESSAGES[kind](level)}"
            for kind, levels in diff.items() if kind not in skipped for level in levels]


def _at(index: int, path: list, kind: str) -> list:
    return [index, *path]


def _aligned_lines(expected: list, actual: list, spec: OutputExpectation) -> list[str]:
    """Differences of two lists of records (JSON Lines) aligned as a sequence diff aligns lines: runs of
    equal items are matched first (difflib), so one missing or extra item is named once, at its
    position (a missing item at the expected one, an extra item at its own), instead of shifting
    every later item. Items left between two matched runs are compared in order, one with one
    (their differences placed at the expected item's position), the rest missing or extra."""
    matcher = SequenceMatcher(None, list(map(_json, expected)), list(map(_json, actual)), autojunk=False)
    lines = []
    for _, first, end, first_actual, end_actual in matcher.get_opcodes():
        paired = min(end - first, end_actual - first_actual)
        for offset in range(paired):
            lines += _deepdiff_lines(expected[first + offset], actual[first_actual + offset], spec,
                                     partial(_at, first + offset))
        lines += [f"$[{i}]: missing item {_shown(expected[i])}" for i in range(first + paired, end)]
        lines += [f"$[{j}]: unexpected item {_shown(actual[j])}" for j in range(first_actual + paired, end_actual)]
    return lines


def _ordered_lines(expected: Any, actual: Any, spec: OutputExpectation) -> list[str]:
    """Differences with lists in order: JSON Lines aligned (:func:`_aligned_lines`), anything else by position."""
    if spec.format == "jsonl" and isinstance(expected, list) and isinstance(actual, list):
        return _aligned_lines(expected, actual, spec)
    return _deepdiff_lines(expected, actual, spec, lambda path, kind: path)


def differences(expected: Any, actual: Any, spec: OutputExpectation) -> list[str]:
    """Every difference between the expected and the actual parsed value under ``spec``
    (ignore, normalize, sort_by, subset, unordered, tolerance, wildcards, key_order); empty if they match.
    Numbers compare by value (``1`` equals ``1.0``, ``0.1 + 0.2`` is not ``0.3``) unless there is
    a tolerance; a boolean never equals a number; without ``unordered`` a list holding the
    expected items in another order is one line, "same items, different order", and JSON Lines
    are aligned as a sequence diff aligns lines."""
    expected, actual, reordered = _compared(expected, actual, spec)
    lines = (_unordered_lines(expected, actual, spec) if spec.unordered
             else [] if _json(expected) == _json(actual)  # equal values match under every spec: skip DeepDiff
             else _ordered_lines(expected, actual, spec))
    lines += reordered
    if spec.key_order and not lines:
        lines = _key_order(expected, actual, [])
    return sorted(lines)
