"""Subcommands of ``mpsim``: each module defines ``register(app)``; :mod:`mpsim.cli` lists them."""
