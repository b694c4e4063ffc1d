"""GPU-buying-guide static site generator.

The pipeline, one module per stage:
load (``sources``, ``datasets``, ``content``) -> validate (``schema``) -> compute (``sizing``)
-> render (``markdown``, ``formatting``, ``render``) -> check (``checks``) -> publish (``publish``).
``build.run_build`` strings them together; ``cli`` is the command line.
"""
