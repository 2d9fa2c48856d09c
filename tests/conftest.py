"""Shared pytest configuration (kept empty on purpose: each room's fixtures live in its folder)."""
