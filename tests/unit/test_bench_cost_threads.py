"""``bench_cost --threads``' accounting of a process's CPU by thread pool, on made-up
``thread_cpu`` snapshots (tid, name) → seconds: a Cassandra request worker renamed
between the snapshots counts for what it used in between, not for its lifetime."""

from __future__ import annotations

from loadtest.bench_cost import Phase, by_thread, is_jvm, pool_seconds


def test_a_renamed_request_worker_counts_for_its_delta_only() -> None:
    before = {("11", "MutationStage-3"): 40.0, ("12", "C2 CompilerThre"): 9.0}
    after = {("11", "ReadStage-1"): 40.5, ("12", "C2 CompilerThre"): 9.25}
    assert pool_seconds(before, after) == {
        "request stages (shared pool)": 0.5,
        "C2 CompilerThre": 0.25,
    }


def test_numbered_threads_add_up_and_a_new_one_counts_whole() -> None:
    before = {("1", "GC Thread#0"): 1.0}
    after = {("1", "GC Thread#0"): 1.5, ("2", "GC Thread#1"): 0.25}
    assert pool_seconds(before, after) == {"GC Thread#": 0.75}


def test_what_ended_threads_used_is_the_process_less_the_live_ones() -> None:
    before = {("1", "data-plane-kafka-1"): 2.0, ("2", "short-lived"): 1.0}
    after = {("1", "data-plane-kafka-1"): 2.5}
    ms = by_thread(before, after, count=100, process_s=1.5)
    assert ms == {"threads that ended": 10.0, "data-plane-kafka": 5.0}


def test_the_jit_column_sums_the_jvms_compilers_only() -> None:
    phase = Phase("batch", "memory", 10, 1.0, 1.0, {})
    assert phase.jit_ms() is None
    phase.threads_ms = {
        "gateway": {"C2 CompilerThre": 9.0},  # a Python thread named so is no JIT
        "kafka": {"C1 CompilerThre": 0.5, "data-plane-kafk": 1.0},
        "cassandra2": {"C2 CompilerThre": 1.25},
    }
    assert phase.jit_ms() == 1.75
    assert is_jvm("cassandra2") and is_jvm("kafka") and not is_jvm("gateway")


def test_child_processes_are_a_row_and_not_threads_that_ended() -> None:
    before = {("1", "event loop"): 1.0}
    after = {("1", "event loop"): 1.5}
    ms = by_thread(before, after, count=100, process_s=0.75, children_s=0.25)
    assert ms == {"event loop": 5.0, "child processes": 2.5}
