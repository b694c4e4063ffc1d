"""GPU-buying-guide static site generator.

The pipeline, one package per stage: ``structure`` loads and validates the content and data,
``figures`` computes every figure from the data (pure functions: sizing, serving, formatting),
``markdown`` and ``render`` turn pages into HTML, and ``build`` strings the stages together
(``build.pipeline``: load, validate, plan, render, check, publish, save). ``commands`` is the
command line (``commands.cli``), which ``build.py`` runs.
"""
