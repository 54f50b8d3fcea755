"""Agent prompts: the templates (``templates/*.j2``), each track's language words (``words.yaml``), their
rendering (``render.py``) and ``scbench prompt`` (``command.py``)."""
