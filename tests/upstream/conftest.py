"""Vendored upstream test files are run by scripts/dynamo_suite.py (through autograph), never
collected by pytest directly (they would test torch.compile, not autograph)."""
collect_ignore_glob = ["dynamo/test_*.py"]
