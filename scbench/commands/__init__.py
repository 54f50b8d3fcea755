"""The command line's commands, one module per command (``scbench eval`` in ``eval.py``, ``scbench report``
in ``report.py``, ...), each parsing its arguments and calling one function of the library; what they share
is in ``common.py``. They import only typer and the standard library at module level, the library inside
command bodies, so that ``scbench --help`` starts at typer's speed."""
