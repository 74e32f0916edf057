"""Helpers shared by tests and benchmarks (neither imports the other)."""
