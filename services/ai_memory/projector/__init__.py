"""projector layer."""
