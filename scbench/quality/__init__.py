"""Code quality of a snapshot: erosion and verbosity as the SlopCodeBench paper defines them (eq. 2-4).

See docs/metrics.md for the definitions (callable, CC, SLOC, LOC, flagged and clone lines).
"""

from scbench.quality.measure import delta, measure
from scbench.quality.model import QualityReport

__all__ = ["QualityReport", "delta", "measure"]
