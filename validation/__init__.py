"""Cross-validation of mpsim against other simulators: the same scenarios built and run in both, compared.

``python -m validation ns3`` (``make validate-ns3``) compares the ``ns3`` profile with ns-3.44;
validation/README.md describes the harness.
"""
