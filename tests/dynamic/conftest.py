"""tests/dynamic: triton runs in interpreter mode (set for the whole suite in tests/conftest.py)."""
