"""Inference of a plan from sample rows: which input rows the output keeps (a filter) and how each output
column is made from an input row. The rules and their order of preference are the spec's."""

from __future__ import annotations

import re
from itertools import combinations

NUMBER = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$")
SEPARATORS = " ,;|-_/@.:"
STRING_OPS = {"lower": str.lower, "upper": str.upper, "trim": str.strip}


def as_number(value) -> float | None:
    """``value`` as a number: an int or float (not a bool), or a string spelling one; else ``None``."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and NUMBER.match(value):
        return float(value)
    return None


def _close(actual: float, expected: float) -> bool:
    return abs(actual - expected) <= 1e-6 * max(1.0, abs(expected))


def _same(actual, expected) -> bool:
    """Equal as values, or as numbers when both are numeric."""
    if actual == expected and type(actual) is type(expected):
        return True
    left, right = as_number(actual), as_number(expected)
    return left is not None and right is not None and _close(left, right)


# ----------------------------------------------------------------------------------------- alignment

def align(inputs: list[dict], outputs: list[dict]) -> list[int]:
    """For each output row, the index of the input row it comes from: the order-keeping matching that
    agrees on the most cells of the columns both sides name (the earliest input row on ties)."""
    if len(outputs) > len(inputs):
        raise ValueError("the sample output has more rows than its input")
    shared = [name for name in (outputs[0] if outputs else {}) if inputs and name in inputs[0]]
    score = [[sum(_same(out.get(name), row.get(name)) for name in shared) for row in inputs] for out in outputs]
    n, m = len(outputs), len(inputs)
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for j in range(n - 1, -1, -1):
        best[j][m] = -10**9
        for i in range(m - 1, -1, -1):
            best[j][i] = max(best[j][i + 1], score[j][i] + best[j + 1][i + 1])
    matched, i = [], 0
    for j in range(n):
        while best[j][i] != score[j][i] + best[j + 1][i + 1]:
            i += 1
        matched.append(i)
        i += 1
    return matched


# -------------------------------------------------------------------------------------------- filter

def _atom(column: str, op: str, value) -> dict:
    return {"column": column, "op": op, "value": value}


def holds(atom: dict, row: dict) -> bool:
    """Whether ``row`` meets the comparison ``atom`` (as the generated code decides it)."""
    value, op = row.get(atom["column"]), atom["op"]
    if op in ("==", "!="):
        return (value == atom["value"] and type(value) is type(atom["value"])) == (op == "==")
    number = as_number(value)
    return number is not None and (number > atom["value"] if op == ">" else number < atom["value"])


def _numbers(rows: list[dict], column: str) -> list[float] | None:
    values = [as_number(row.get(column)) for row in rows]
    return None if any(value is None for value in values) else values


def _distinct(values: list) -> list:
    seen: list = []
    for value in values:
        if not any(value == other and type(value) is type(other) for other in seen):
            seen.append(value)
    return seen


def _equal_atoms(columns: list[str], inside: list[dict], outside: list[dict], op: str) -> list[dict]:
    """``column OP value`` for each value of ``inside`` rows that no ``outside`` row has (first seen first)."""
    return [_atom(column, op, value) for column in columns for value in _distinct([row.get(column) for row in inside])
            if not any(holds(_atom(column, "==", value), row) for row in outside)]


def _threshold_atoms(columns: list[str], kept: list[dict], dropped: list[dict], nearest: bool) -> list[dict]:
    """Per numeric column, ``> t`` and ``< t`` bounds set at a dropped value: with ``nearest``, the dropped
    values nearest to the kept range from below and from above (true on every kept row); else the largest
    and the smallest dropped value (false on every dropped row)."""
    atoms = []
    for column in columns:
        low, high = _numbers(kept, column), _numbers(dropped, column)
        if low is None or high is None or not high:
            continue
        below = [d for d in high if d < min(low)] if nearest else high
        above = [d for d in high if d > max(low)] if nearest else high
        atoms += [_atom(column, ">", max(below))] if below else []
        atoms += [_atom(column, "<", min(above))] if above else []
    return atoms


def _single(columns: list[str], kept: list[dict], dropped: list[dict]) -> dict | None:
    """The first single comparison that keeps exactly the kept rows, by the spec's order of kinds:
    ``==`` (every kept row has the value), a bound, then ``!=`` (every dropped row has the value)."""
    candidates = [atom for atom in _equal_atoms(columns, kept, dropped, "==")
                  if len(_distinct([row.get(atom["column"]) for row in kept])) == 1]
    candidates += _threshold_atoms(columns, kept, dropped, nearest=True)
    candidates += [atom for atom in _equal_atoms(columns, dropped, kept, "!=")
                   if len(_distinct([row.get(atom["column"]) for row in dropped])) == 1]
    for atom in candidates:
        if all(holds(atom, row) for row in kept) and not any(holds(atom, row) for row in dropped):
            return atom
    return None


def _and_atoms(columns: list[str], kept: list[dict], dropped: list[dict]) -> list[dict]:
    """Comparisons true on every kept row, in the spec's order: ``==``, bounds, ``!=``."""
    equal = [atom for atom in _equal_atoms(columns, kept, [], "==")
             if len(_distinct([row.get(atom["column"]) for row in kept])) == 1]
    return equal + _threshold_atoms(columns, kept, dropped, nearest=True) + _equal_atoms(columns, dropped, kept, "!=")


def _or_atoms(columns: list[str], kept: list[dict], dropped: list[dict]) -> list[dict]:
    """Comparisons false on every dropped row, in the spec's order: ``==``, then bounds."""
    return _equal_atoms(columns, kept, dropped, "==") + _threshold_atoms(columns, kept, dropped, nearest=False)


NEIGHBOR_OPS = (">", "<", "==", "!=")
"""How a neighbouring row's value may relate to the row's own, in the spec's order."""


def compares(op: str, left, right) -> bool:
    """``left OP right``: ``==`` and ``!=`` as equal values (or equal numbers), ``>`` and ``<`` on numbers only."""
    if op in ("==", "!="):
        return _same(left, right) == (op == "==")
    a, b = as_number(left), as_number(right)
    return a is not None and b is not None and (a > b if op == ">" else a < b)


def neighbor_keeps(rule: dict, previous: dict | None, row: dict, following: dict | None) -> bool:
    """Whether the neighbour rule keeps ``row`` (a row without that neighbour is dropped)."""
    other = following if rule["neighbor"] == "next" else previous
    return other is not None and compares(rule["op"], other.get(rule["column"]), row.get(rule["column"]))


def _neighbor_filter(columns: list[str], inputs: list[dict], kept: set[int]) -> dict | None:
    """The first rule comparing a row's cell with the next (then the previous) row's that keeps exactly the
    kept rows: columns in input order, then next before previous, then the operators in order."""
    for column in columns:
        for neighbor in ("next", "previous"):
            for op in NEIGHBOR_OPS:
                rule = {"column": column, "neighbor": neighbor, "op": op}
                verdicts = [neighbor_keeps(rule, inputs[i - 1] if i else None, row,
                                           inputs[i + 1] if i + 1 < len(inputs) else None)
                            for i, row in enumerate(inputs)]
                if verdicts == [i in kept for i in range(len(inputs))]:
                    return rule
    return None


def infer_filter(inputs: list[dict], kept_indexes: list[int]) -> dict | None:
    """``None`` when every row is kept; else ``{"all": [atoms]}`` or ``{"any": [atoms]}``."""
    kept = [inputs[i] for i in kept_indexes]
    dropped = [row for i, row in enumerate(inputs) if i not in set(kept_indexes)]
    if not dropped:
        return None
    columns = list(inputs[0])
    if (atom := _single(columns, kept, dropped)) is not None:
        return {"all": [atom]}
    if (neighbor := _neighbor_filter(columns, inputs, set(kept_indexes))) is not None:
        return {"neighbor": neighbor}
    for pair in combinations(_and_atoms(columns, kept, dropped), 2):
        if not any(all(holds(atom, row) for atom in pair) for row in dropped):
            return {"all": list(pair)}
    for pair in combinations(_or_atoms(columns, kept, dropped), 2):
        if all(any(holds(atom, row) for atom in pair) for row in kept):
            return {"any": list(pair)}
    raise ValueError("no filter of one or two comparisons keeps exactly the sample's output rows")


# ------------------------------------------------------------------------------------------- columns

def _sources(name: str, columns: list[str]) -> list[str]:
    return ([name] if name in columns else []) + [column for column in columns if column != name]


def _strings(rows: list[dict], column: str) -> list[str] | None:
    values = [row.get(column) for row in rows]
    return values if all(isinstance(value, str) for value in values) else None


def _copy(name, pairs, columns):
    for source in _sources(name, columns):
        if all(_same(out, row.get(source)) and type(out) is type(row.get(source)) for row, out in pairs):
            return {"kind": "copy", "source": source}
    return None


def _constant(name, pairs, columns):
    values = _distinct([out for _, out in pairs])
    return {"kind": "constant", "value": values[0]} if len(values) == 1 else None


def _affix(outs: list[str], ins: list[str]) -> dict | None:
    """A constant prefix or suffix turning every ``ins`` into its ``outs``."""
    if all(o.endswith(s) and len(o) > len(s) for o, s in zip(outs, ins, strict=True)):
        prefixes = {o[:len(o) - len(s)] for o, s in zip(outs, ins, strict=True)}
        if len(prefixes) == 1:
            return {"kind": "prefix", "text": prefixes.pop()}
    if all(o.startswith(s) and len(o) > len(s) for o, s in zip(outs, ins, strict=True)):
        suffixes = {o[len(s):] for o, s in zip(outs, ins, strict=True)}
        if len(suffixes) == 1:
            return {"kind": "suffix", "text": suffixes.pop()}
    return None


def _string_op(name, pairs, columns):
    outs = [out for _, out in pairs]
    if not all(isinstance(out, str) for out in outs):
        return None
    for source in _sources(name, columns):
        ins = _strings([row for row, _ in pairs], source)
        if ins is None:
            continue
        for kind, op in STRING_OPS.items():
            if all(op(s) == o for s, o in zip(ins, outs, strict=True)):
                return {"kind": kind, "source": source}
        if (affix := _affix(outs, ins)) is not None:
            return {**affix, "source": source}
    return None


def _linear(name, pairs, columns):
    outs = [as_number(out) for _, out in pairs]
    if any(out is None or isinstance(raw, bool) for out, (_, raw) in zip(outs, pairs, strict=True)):
        return None
    for source in _sources(name, columns):
        ins = _numbers([row for row, _ in pairs], source)
        if ins is None or len(set(ins)) < 2:
            continue
        first = ins.index(min(ins))
        second = ins.index(max(ins))
        a = (outs[second] - outs[first]) / (ins[second] - ins[first])
        b = outs[first] - a * ins[first]
        if all(_close(a * x + b, y) for x, y in zip(ins, outs, strict=True)):
            return {"kind": "linear", "source": source, "a": a, "b": b}
    return None


def _concat(name, pairs, columns):
    outs = [out for _, out in pairs]
    if not all(isinstance(out, str) for out in outs):
        return None
    rows = [row for row, _ in pairs]
    for left in columns:
        for right in columns:
            lefts, rights = _strings(rows, left), _strings(rows, right)
            if left == right or lefts is None or rights is None:
                continue
            if not all(o.startswith(a) and o.endswith(b) and len(o) >= len(a) + len(b)
                       for o, a, b in zip(outs, lefts, rights, strict=True)):
                continue
            separators = {o[len(a):len(o) - len(b)] for o, a, b in zip(outs, lefts, rights, strict=True)}
            if len(separators) == 1:
                return {"kind": "concat", "sources": [left, right], "separator": separators.pop()}
    return None


def _split(name, pairs, columns):
    outs = [out for _, out in pairs]
    if not all(isinstance(out, str) for out in outs):
        return None
    for source in _sources(name, columns):
        ins = _strings([row for row, _ in pairs], source)
        if ins is None:
            continue
        for separator in SEPARATORS:
            parts = [s.split(separator) for s in ins]
            if any(len(p) < 2 for p in parts):
                continue
            for index in [*range(min(map(len, parts))), -1]:
                if all(p[index] == o for p, o in zip(parts, outs, strict=True)):
                    return {"kind": "split", "source": source, "separator": separator, "index": index}
    return None


def _own_copy(name, pairs, columns):
    return _copy(name, pairs, [name]) if name in columns else None


def _fits(outs: list, values: list) -> bool:
    return all(value is not None and as_number(out) is not None and _close(value, as_number(out))
               for out, value in zip(outs, values, strict=True))


def _row_number(name, pairs, columns):
    outs = [as_number(out) for _, out in pairs]
    if len(outs) < 2 or any(out is None for out in outs):
        return None
    a = round(outs[1] - outs[0], 9)
    b = round(outs[0] - a, 9)
    if a != 0 and all(_close(a * n + b, out) for n, out in enumerate(outs, 1)):
        return {"kind": "row_number", "a": a, "b": b}
    return None


def running(kind: str, values: list[float], window: int | None = None) -> list[float]:
    """The running ``kind`` (sum, mean, max, min) of ``values``, over the last ``window`` values or all."""
    results, fold = [], {"sum": sum, "mean": lambda v: sum(v) / len(v), "max": max, "min": min}[kind]
    for i in range(len(values)):
        results.append(fold(values[max(0, i + 1 - window) if window else 0:i + 1]))
    return results


AGGREGATES = ("sum", "mean", "max", "min")


def _prefix(name, pairs, columns):
    outs = [out for _, out in pairs]
    for source in _sources(name, columns):
        values = _numbers([row for row, _ in pairs], source)
        for kind in AGGREGATES if values is not None else ():
            if _fits(outs, running(kind, values)):
                return {"kind": "running", "aggregate": kind, "source": source}
    return None


def _window(name, pairs, columns):
    outs = [out for _, out in pairs]
    for size in range(2, min(64, len(pairs) - 1) + 1):
        for source in _sources(name, columns):
            values = _numbers([row for row, _ in pairs], source)
            for kind in AGGREGATES if values is not None else ():
                if _fits(outs, running(kind, values, size)):
                    return {"kind": "window", "aggregate": kind, "source": source, "size": size}
    return None


def counted(rule: dict, rows: list[dict]) -> list[int]:
    """The counter column ``rule`` makes over ``rows``."""
    results, count, previous = [], 0 if rule["kind"] == "count_if" else 1, None
    for i, row in enumerate(rows):
        value = row.get(rule["column"])
        if rule["kind"] == "count_if":
            count += _same(value, rule["value"]) and type(value) is type(rule["value"])
        elif i and not _same(value, previous):
            count += 1
        previous = value
        results.append(count)
    return results


def _counter(name, pairs, columns):
    outs, rows = [out for _, out in pairs], [row for row, _ in pairs]
    for column in columns:
        for value in _distinct([row.get(column) for row in rows]):
            rule = {"kind": "count_if", "column": column, "value": value}
            if _fits(outs, counted(rule, rows)):
                return rule
    for column in columns:
        rule = {"kind": "count_changes", "column": column}
        if _fits(outs, counted(rule, rows)):
            return rule
    return None


def toggled(rule: dict, rows: list[dict]) -> list:
    """The labels of the toggle ``rule`` over ``rows``: from ``start``, switched on every trigger row."""
    results, label = [], rule["start"]
    for row in rows:
        value = row.get(rule["column"])
        if value == rule["value"] and type(value) is type(rule["value"]):
            label = rule["labels"][1] if label == rule["labels"][0] else rule["labels"][0]
        results.append(label)
    return results


def _toggle(name, pairs, columns):
    outs, rows = [out for _, out in pairs], [row for row, _ in pairs]
    labels = _distinct(outs)
    if len(labels) != 2:
        return None
    for column in columns:
        for value in _distinct([row.get(column) for row in rows]):
            for start in labels:
                rule = {"kind": "toggle", "column": column, "value": value, "labels": labels, "start": start}
                if toggled(rule, rows) == outs:
                    return rule
    return None


def _bands(name, pairs, columns):
    outs = [out for _, out in pairs]
    labels = _distinct(outs)
    if len(labels) < 2:
        return None
    for source in _sources(name, columns):
        values = _numbers([row for row, _ in pairs], source)
        if values is None:
            continue
        spans = sorted((min(v for v, o in zip(values, outs, strict=True) if o == label),
                        max(v for v, o in zip(values, outs, strict=True) if o == label), i)
                       for i, label in enumerate(labels))
        if all(spans[k][1] < spans[k + 1][0] for k in range(len(spans) - 1)):
            return {"kind": "bands", "source": source, "labels": [labels[i] for _, _, i in spans],
                    "bounds": [high for _, high, _ in spans[:-1]]}
    return None


RULES = (_own_copy, _row_number, _copy, _constant, _string_op, _linear, _concat, _split, _prefix, _window,
         _counter, _toggle, _bands)
"""How an output column can be made, in the spec's order of preference."""


def infer_column(name: str, pairs: list[tuple[dict, object]], columns: list[str]) -> dict:
    """How the output column ``name`` is made from an input row, given (input row, output value) pairs."""
    for rule in RULES:
        if (found := rule(name, pairs, columns)) is not None:
            return {"name": name, **found}
    raise ValueError(f"cannot infer how output column {name!r} is made")


def infer_plan(inputs: list[dict], outputs: list[dict]) -> dict:
    """The filter and the output columns that turn ``inputs`` into ``outputs``."""
    if not inputs:
        raise ValueError("the sample input has no rows")
    kept = align(inputs, outputs)
    columns = list(inputs[0])
    names = list(outputs[0]) if outputs else []
    plan_columns = [infer_column(name, [(inputs[i], out.get(name)) for i, out in zip(kept, outputs, strict=True)],
                                 columns) for name in names]
    return {"filter": infer_filter(inputs, kept), "columns": plan_columns}
