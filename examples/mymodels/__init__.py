"""The small package docs/guide/understanding.md inspects (one function with a graph break)."""
