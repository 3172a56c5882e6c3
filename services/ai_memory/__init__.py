"""ai-memory: an event-sourced memory backend for AI agents."""

__version__ = "0.1.0"
