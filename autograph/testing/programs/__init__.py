"""Whole-program workloads for benchmarks and tests: small models written with torch alone.

``WORKLOADS`` maps a name to a :class:`Workload`; ``scripts/bench_programs.py`` runs them
under each variant (plain, the hook, ``torch.compile``) and tests import them to check a
program end to end. Sizes are chosen so one step takes milliseconds on two CPU cores.
"""
from autograph.testing.programs.workloads import WORKLOADS, Workload

__all__ = ["WORKLOADS", "Workload"]
