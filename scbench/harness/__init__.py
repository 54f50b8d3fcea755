"""Coding-agent harnesses' output: stream formats read incrementally into an attempt's spend
(:mod:`~scbench.harness.tally`, :mod:`~scbench.harness.formats`), prices as data (:mod:`~scbench.harness.prices`)
and failure classes (:mod:`~scbench.harness.failures`)."""
