"""Wire models of ``/v1/notes`` (one definition, shared by the server and the SDK)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ai_memory.core.record import MemoryType

from . import constraints as wc


class NoteIn(BaseModel):
    """Save, replace or (note: 'off') delete the note on a topic."""

    model_config = ConfigDict(extra="forbid")

    agent: str = Field(
        description="Your agent id; notes live in scope 'agent:<agent>'.",
        json_schema_extra=wc.name(),
    )
    topic: str | list[str] = Field(
        description="Up to 5 tags in any language, split on commas or spaces, e.g. "
        "'neo, jobs'. Case-insensitive; the same tag set is the same topic.",
        examples=[["neo", "jobs"]],  # a string ("neo, jobs") is split the same way
        json_schema_extra={
            "anyOf": [
                {"type": "string", "minLength": 1, "maxLength": 64, "pattern": wc.TAG_PATTERN},
                {"type": "array", "minItems": 1, "maxItems": 5, "items": wc.tags()["items"]},
            ]
        },
    )
    note: str = Field(
        description="At most 500 characters. 'off' deletes the note on this topic.",
        examples=["neo asked about X; I owe a plain answer"],
        json_schema_extra=wc.text(500),
    )
    type: MemoryType | None = Field(None, description="Memory type; defaults to 'fact'.")


class NoteSaveOut(BaseModel):
    """What a save did."""

    id: str = Field(description="The memory id of the note (readable at /v1/memories/{id}).")
    agent: str
    topic: list[str] = Field(description="The normalised tags of the topic.")
    status: Literal["created", "replaced", "unchanged", "deleted", "already_off"]
    version: int | None = Field(description="Memory version; null when deleted.")
    position: int = Field(description="Log position of the change (0 when nothing changed).")
    notes_used: int
    quota: int
    redacted: list[str] | None = Field(
        None, description="note / topic when their credentials were redacted (secret policy)."
    )


class WhyOut(BaseModel):
    """Why a note was returned: its tier, what matched, the reads used to rank it."""

    tier: int = Field(
        description="1: a tag equals a query word; 2: a tag or the body contains one."
    )
    match: Literal["exact_tag", "contains"]
    words: list[str] = Field(description="Query words that matched.")
    tags: list[str] = Field(description="Tags of the note that matched.")
    in_body: bool = Field(description="The note's text contains a matched word.")
    read_count: int = Field(description="Reads before this one (the third ranking key).")
    summary: str


class TopicNoteOut(BaseModel):
    """A note recalled for the topic."""

    id: str
    topic: list[str]
    note: str
    read_count: int = Field(description="Reads before this one.")
    updated_at: str
    why: WhyOut


class YourTopicOut(BaseModel):
    """One of the agent's topics with its read count."""

    id: str
    topic: list[str]
    read_count: int


class NotesOut(BaseModel):
    """The notes recalled for a topic and every topic of the agent."""

    agent: str
    topic: list[str] = Field(description="The normalised query words.")
    topic_notes: list[TopicNoteOut] = Field(description="Best matches first (at most 3).")
    your_topics: list[YourTopicOut] = Field(description="All your topics, most read first.")
    notes_used: int
    quota: int
    recall_position: int | None = Field(
        description="Log position of the read recorded for topic_notes; null if none."
    )
