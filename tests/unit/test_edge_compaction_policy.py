"""When the embedded index compacts (``edge_compaction.Compactor``), on a fake clock."""

from __future__ import annotations

from ai_memory.adapters.edge_compaction import (
    QUIET_BEFORE_RETRY,
    RETRY_AFTER_ABANDON,
    RETRY_AFTER_FAILURE,
    Applied,
    CompactionPolicy,
    Compactor,
    is_generation,
    next_generation,
)

NOTHING = Applied((), 0, False)  # an apply with no mutations: only the counts matter here


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def compactor(**kw: float) -> tuple[Compactor, Clock]:
    clock = Clock()
    policy = CompactionPolicy(**{"after_points": 10, "forget_delay": 30.0, **kw})  # type: ignore[arg-type]
    return Compactor(policy, clock), clock


def test_due_after_enough_points() -> None:
    c, _ = compactor()
    c.record(NOTHING, written=9, forgotten=0)
    assert not c.due()
    c.record(NOTHING, written=1, forgotten=0)
    assert c.due()


def test_due_once_a_forget_is_old_enough() -> None:
    c, clock = compactor()
    c.record(NOTHING, written=1, forgotten=1)
    clock.now += 29.9
    c.record(NOTHING, written=1, forgotten=1)  # a later forget does not push the deadline
    assert not c.due()
    clock.now += 0.1
    assert c.due()


def test_an_attempt_that_did_not_swap_puts_its_triggers_back() -> None:
    c, clock = compactor()
    c.record(NOTHING, written=4, forgotten=2)
    epoch = c.begin("shard.1")
    assert c.status()["running"] == 1 and c.status()["points_since"] == 0
    c.record(NOTHING, written=7, forgotten=0)  # arrived during the attempt
    c.end(epoch)  # abandoned or failed: nothing swapped
    assert c.status()["points_since"] == 11 and c.status()["forgotten_pending"] == 2
    clock.now += 30
    assert c.due() and c.status()["running"] == 1  # due counts as running


def test_a_finished_attempt_keeps_only_what_arrived_meanwhile() -> None:
    c, _ = compactor()
    c.record(NOTHING, written=12, forgotten=1)
    epoch = c.begin("shard.1")
    c.record(NOTHING, written=3, forgotten=0)
    c.finish(epoch)
    c.end(epoch)
    assert c.status()["points_since"] == 3 and c.status()["forgotten_pending"] == 0
    assert c.status()["outcome_done"] == 1 and not c.due()


def test_the_journal_holds_what_was_applied_during_an_attempt_only() -> None:
    c, _ = compactor()
    before, during = Applied((), 1, False), Applied((), 2, True)
    c.record(before, written=1, forgotten=0)
    epoch = c.begin("shard.1")
    c.record(during, written=2, forgotten=0)
    assert c.journal_length() == 1 and c.journal_slice(0, 1) == [during]
    assert c.mutations_between(0, 1) == 2  # counted in mutations, not entries
    c.end(epoch)
    assert c.journal_length() == 0


def test_a_reset_cancels_the_attempt_and_its_triggers() -> None:
    c, _ = compactor()
    c.record(NOTHING, written=12, forgotten=1)
    epoch = c.begin("shard.3")
    assert c.cancel() == "shard.3"  # the directory the thread still owns
    assert not c.current(epoch)
    c.end(epoch)
    assert not c.due() and c.status()["points_since"] == 0


def test_a_failure_waits_before_the_next_try() -> None:
    c, clock = compactor()
    c.record(NOTHING, written=10, forgotten=0)
    c.failed()
    assert not c.due()
    clock.now += RETRY_AFTER_FAILURE
    assert c.due() and c.status()["outcome_failed"] == 1


def test_without_a_policy_nothing_is_ever_due() -> None:
    c = Compactor(None)
    c.record(NOTHING, written=10**6, forgotten=10)
    assert not c.due()


def test_generations_are_named_in_order() -> None:
    assert next_generation("shard") == "shard.1" and next_generation("shard.9") == "shard.10"
    assert is_generation("shard") and is_generation("shard.12")
    assert not is_generation("shard.tmp") and not is_generation("checkpoint.json")


def test_an_abandoned_attempt_waits_a_little_and_counts_its_mutations() -> None:
    c, clock = compactor()
    c.record(NOTHING, written=10, forgotten=0)
    epoch = c.begin("shard.1")
    c.record(Applied((), 2, False), written=2, forgotten=0)
    c.record(Applied((), 1, False), written=1, forgotten=0)
    assert c.journal_length() == 2 and c.mutations_between(0, 2) == 3
    assert c.mutations_between(1, 2) == 1
    c.abandon("test")
    c.end(epoch)
    assert c.status()["outcome_abandoned"] == 1 and not c.due()
    # Still pending while it waits: the index is not as a waiter wants it yet.
    assert c.pending() and c.status()["running"] == 1
    clock.now += RETRY_AFTER_ABANDON
    assert c.due()


def test_an_abandoned_attempt_is_retried_once_the_writes_stop() -> None:
    c, clock = compactor()
    c.record(Applied((), 1, False), written=10, forgotten=0)
    epoch = c.begin("shard.1")
    c.abandon("a bulk import")
    c.end(epoch)
    for _ in range(3):  # the import goes on: the wait holds
        clock.now += QUIET_BEFORE_RETRY / 2
        c.record(Applied((), 1, False), written=1, forgotten=0)
        assert not c.due()
    clock.now += QUIET_BEFORE_RETRY - 0.1
    assert not c.due()
    clock.now += 0.1  # it stopped: no need to wait out the rest of the backoff
    assert clock.now < 100.0 + RETRY_AFTER_ABANDON and c.due()


def test_a_failed_attempt_waits_its_minute_however_quiet() -> None:
    c, clock = compactor()
    c.record(Applied((), 1, False), written=10, forgotten=0)
    epoch = c.begin("shard.1")
    c.abandon("a bulk import")
    c.end(epoch)
    epoch = c.begin("shard.2")
    c.failed()
    c.end(epoch)
    clock.now += RETRY_AFTER_FAILURE - 1
    assert not c.due()
    clock.now += 1
    assert c.due()


def test_abandoned_attempts_in_a_row_wait_longer_until_one_succeeds() -> None:
    c, clock = compactor()
    waits = []
    for _ in range(7):
        c.record(Applied((), 1, False), written=10, forgotten=0)
        epoch = c.begin("shard.1")
        c.abandon("a bulk import")
        c.end(epoch)
        began = clock.now
        while not c.due():
            clock.now += 1
            # The load goes on: the wait holds.
            c.record(Applied((), 1, False), written=0, forgotten=0)
        waits.append(clock.now - began)
    assert waits == [15, 30, 60, 120, 240, 300, 300]
    epoch = c.begin("shard.1")
    c.finish(epoch)
    c.end(epoch)
    c.record(NOTHING, written=10, forgotten=0)
    epoch = c.begin("shard.2")
    c.abandon("again")
    c.end(epoch)
    clock.now += RETRY_AFTER_ABANDON
    assert c.due()  # back to the first wait after a success
