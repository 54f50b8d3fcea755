"""Running agents through a problem's checkpoints: the agents table, usage parsers, the run directory,
the loop (``scbench run``) and the built-in ``replay`` agent."""
