"""``python -m scbench``: the same command line as the ``scbench`` script."""

from scbench.cli import app

app(prog_name="scbench")
