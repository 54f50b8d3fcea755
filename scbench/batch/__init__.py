"""``scbench batch PLAN``: many (solution, checkpoint) evaluations in one run, on one machine or a Ray cluster.

``plan`` is the typed plan, ``resolve`` turns a plan file into jobs, ``scheduler`` runs the cases
of every job on one pool of workers (the local engine), ``ray_engine`` shards jobs over a Ray
cluster, ``engines`` names them, ``store`` is the results tree and what resuming needs,
``session`` ties them together, ``summary`` reports, ``command`` is the CLI.
"""
