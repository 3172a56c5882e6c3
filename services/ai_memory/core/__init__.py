"""The pure domain core: records, events, decisions, projections. No I/O here."""
