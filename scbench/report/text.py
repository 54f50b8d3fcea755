"""How a report's figures read, the same in the terminal and in HTML."""

from __future__ import annotations

from scbench.report.model import Figure, Rate, Total

LABELS = {"cost_usd": "$/CKPT", "minutes": "Min/CKPT", "erosion": "Erosion", "verbosity": "Verbosity", "loc": "LOC"}
"""Column names of the measures (the paper's, plus LOC)."""
COLUMNS = ("Strict", "Iso.", "Core", "Partial", "$/CKPT", "Net $", "Min/CKPT", "Erosion", "Verbosity", "LOC")
"""Table 1's columns after the row's name."""
DIGITS = {"cost_usd": 2, "minutes": 1, "erosion": 2, "verbosity": 2, "loc": 0}
"""Decimals each measure is shown with (the paper's)."""


def rate(value: Rate) -> str:
    """``3/5 60.0%``; ``0/0`` when there is nothing to count."""
    return f"{value.solved}/{value.total}" + (f" {100 * value.rate:.1f}%" if value.rate is not None else "")


def figure(value: Figure, digits: int) -> str:
    """``0.70±0.20 n=5``, ``-`` without values."""
    if value.mean is None:
        return "-"
    spread = f"±{value.sd:.{digits}f}" if value.sd is not None else ""
    return f"{value.mean:.{digits}f}{spread} n={value.n}"


def total(value: Total) -> str:
    """``12.34 n=5``, ``-`` without values."""
    return "-" if value.value is None else f"{value.value:.2f} n={value.n}"


def shown(value: float | int | None, key: str) -> str:
    """One checkpoint's measure, ``-`` when missing."""
    return "-" if value is None else f"{value:.{DIGITS[key]}f}"


def row_name(agent: str, model: str | None, prompt: str) -> str:
    """``agent / model / prompt`` (the model left out when there is none)."""
    return " / ".join(part for part in (agent, model, prompt) if part)


def series(values: list[int | None]) -> str:
    """``38 → 52 → 240``, ``-`` where a checkpoint has no value."""
    return " → ".join("-" if value is None else str(value) for value in values)


def missing(reasons: dict[str, str]) -> list[str]:
    """``erosion, verbosity, loc: the agent failed``: the measures missing for one reason, per reason."""
    keys: dict[str, list[str]] = {}
    for key, why in reasons.items():
        keys.setdefault(why, []).append(key)
    return [f"{', '.join(names)}: {why}" for why, names in keys.items()]
