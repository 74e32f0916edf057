"""Test helpers shared by tests/ and benchmarks/: the fake Bot API server."""
