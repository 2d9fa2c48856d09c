"""A small nanoGPT-shaped program for whole-program tests (run in subprocesses)."""
