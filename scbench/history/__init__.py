"""Human calibration: erosion and verbosity along a git repository's history (SlopCodeBench paper section 3.3).

``git.py`` reads a repository's history and a commit's source files straight from git objects (the work tree
is never touched); ``model.py`` is the typed result; ``session.py`` samples commits, measures each snapshot with
:func:`scbench.quality.measure.measure` in parallel and resumes from an earlier result. Nothing is imported
here, so that the command line starts fast.
"""
