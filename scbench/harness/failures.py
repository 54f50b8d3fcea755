"""Failure classes of an agent attempt, and the classification of a harness's error message.

A class says who ended the attempt: the provider (``rate_limit``, ``quota``, ``authentication``), the
infrastructure between (``infrastructure``: network, 5xx, overloaded), the agent (``agent_error``), or one of
scbench's limits (``time_limit``, ``turn_limit``, ``cost_limit``). Transient classes (:data:`TRANSIENT`) are
retried by the loop.
"""

from __future__ import annotations

import re
from typing import Literal

FailureClass = Literal["rate_limit", "quota", "authentication", "infrastructure", "agent_error", "time_limit",
                       "turn_limit", "cost_limit"]
TRANSIENT: frozenset[str] = frozenset({"rate_limit", "infrastructure"})
"""Classes that say nothing of the agent: its attempt is retried (a bounded number of times, with back-off)."""
NOT_THE_AGENT: frozenset[str] = frozenset({"rate_limit", "quota", "authentication", "infrastructure"})
"""Classes of an attempt ended by the provider or the infrastructure rather than by the agent."""

PATTERNS: tuple[tuple[FailureClass, re.Pattern[str]], ...] = tuple((name, re.compile(pattern, re.IGNORECASE)) for
                                                                   name, pattern in (
    ("quota", r"quota|billing|credit balance|exceeded your current|payment required|\b402\b"),
    ("rate_limit", r"\b429\b|rate.?limit|too many requests|resource.?exhausted"),
    ("authentication", r"\b40[13]\b|authenticat|auth ?error|api.?key|unauthori[sz]ed|forbidden"
                       r"|permission.?denied|credential|not logged in|login"),
    ("infrastructure", r"\b5\d\d\b|overloaded|network|connection|disconnected|error sending request|econn"
                       r"|etimedout|enotfound|eai_again|socket"
                       r"|unavailable|fetch failed|timed? ?out|dns"),
))
"""(class, pattern of an error message) in order of precedence (a 429 about quota is ``quota``)."""


def classify(message: str) -> FailureClass:
    """The class of a harness's error ``message`` (status codes included), ``agent_error`` when no
    pattern of :data:`PATTERNS` matches."""
    return next((name for name, pattern in PATTERNS if pattern.search(message)), "agent_error")
