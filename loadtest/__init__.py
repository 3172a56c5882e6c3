"""Benchmarks (not tests): run with ``make bench``; results go to RESULTS.md."""
