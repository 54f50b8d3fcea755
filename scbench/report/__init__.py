"""Trajectory reports (``scbench report``): Table 1, progress phases, degradation curves, callable growth and
regression onset over run directories, as a terminal table, JSON or one self-contained HTML page."""
