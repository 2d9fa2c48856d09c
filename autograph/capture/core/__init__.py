"""capture's foundation: the Value protocol, the registry, breaks, guards, state.

Imports nothing of ``families`` or ``engine`` (tests/test_architecture.py).
"""
