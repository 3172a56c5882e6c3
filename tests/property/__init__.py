"""Property-based tests: Hypothesis over the record model, the service and every parser."""
