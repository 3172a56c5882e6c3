"""The system clock behind the core's ``Clock`` port (tests inject a fixed one)."""

from __future__ import annotations

from datetime import UTC, datetime


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)
