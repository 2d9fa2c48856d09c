"""Helpers for testing compiled code against eager: small model builders and comparisons.

Shared by the test suite, the coverage/benchmark scripts, and users' own smoke tests.
"""
