"""Projection drivers: the pure projector (``ai_memory.core.projection``) applied to sinks
by an in-process tailer (embedded) or by stream-processor agents (distributed)."""
