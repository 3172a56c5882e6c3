"""Rows from Cassandra are the driver's named tuples, with one class per column list."""

from __future__ import annotations

from cassandra.query import named_tuple_factory

from ai_memory.adapters.cassandra.session import named_rows


def test_rows_read_like_the_drivers_and_share_one_class() -> None:
    cols = ["tenant", "memory_id", "position"]
    rows = [("acme", "m1", 3), ("acme", "m2", 4)]
    ours, theirs = named_rows(cols, rows), named_tuple_factory(cols, rows)
    assert ours == theirs
    assert [r.memory_id for r in ours] == ["m1", "m2"]
    assert type(named_rows(cols, rows)[0]) is type(ours[0])  # built once, not per result


def test_a_column_that_is_no_identifier_is_renamed_as_the_driver_does() -> None:
    rows = [(True, "acme")]
    (row,) = named_rows(["[applied]", "tenant"], rows)
    assert row.applied is True and row.tenant == "acme"
    assert named_rows(["[applied]", "tenant"], rows) == named_tuple_factory(
        ["[applied]", "tenant"], rows
    )
