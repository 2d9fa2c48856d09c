"""tests/dynamic: TRITON_INTERPRET must be set before triton is first imported (CPU interpreter)."""
import os

os.environ.setdefault("TRITON_INTERPRET", "1")
