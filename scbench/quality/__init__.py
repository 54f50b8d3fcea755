"""Code quality of a snapshot: erosion and verbosity as the SlopCodeBench paper defines them (eq. 2-4).

See docs/metrics.md for the definitions (callable, CC, SLOC, LOC, flagged and clone lines);
``scbench.quality.measure`` is the entry point. Nothing is imported here, so that the command
line starts fast.
"""
