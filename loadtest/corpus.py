"""The benchmarks' synthetic corpus: it lives in ``ai_memory.benchmarks.corpus`` (the
shipped ``ai-memory bench`` uses it too); this module keeps the loadtest imports working."""

from ai_memory.benchmarks.corpus import (
    OBJECTS,
    PLACES,
    PREFS,
    QUERIES,
    SKILLS,
    STATUSES,
    SUBJECTS,
    TASKS,
    TYPES,
    memories,
    sentence,
)

__all__ = [
    "OBJECTS",
    "PLACES",
    "PREFS",
    "QUERIES",
    "SKILLS",
    "STATUSES",
    "SUBJECTS",
    "TASKS",
    "TYPES",
    "memories",
    "sentence",
]
