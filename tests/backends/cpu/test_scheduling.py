"""Where CPU grids run (``backends.cpu.scheduling``), with a Python stand-in for a kernel's grid
function: every program runs once, small grids stay on the calling thread, chunks hold enough
work, and the pool's cost is measured."""

from __future__ import annotations

import threading

import pytest

from kernellab.backends.cpu import scheduling


class Grid:
    """Records which programs ran, on which thread, in how many calls."""

    def __init__(self):
        self.ran: list[int] = []
        self.threads: set[int] = set()
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, slots, start, end, gx, gy, gz):
        with self.lock:
            self.ran.extend(range(start, end))
            self.threads.add(threading.get_ident())
            self.calls += 1


@pytest.mark.parametrize("threads", [1, 2, 4])
@pytest.mark.parametrize("total", [1, 3, 64, 1000])
def test_every_program_runs_once(threads, total):
    schedule = scheduling.Schedule(threads)
    for _ in range(3):  # unmeasured, then measured
        grid = Grid()
        schedule.run(grid, None, total, total, 1, 1)
        assert sorted(grid.ran) == list(range(total))


def test_small_grids_stay_on_the_calling_thread(monkeypatch):
    schedule = scheduling.Schedule(4)
    monkeypatch.setattr(scheduling.pool(), "overhead_ns", 30_000.0)
    schedule.measured(10, 1000)  # 100 ns a program: under 40 us (30 us * 4/3), 400 programs run inline
    assert schedule.inline_programs.value == 400 and schedule.inline_work_ns.value == 40_000
    grid = Grid()
    schedule.run(grid, None, 400, 400, 1, 1)
    assert grid.threads == {threading.get_ident()} and grid.calls == 1


def test_chunks_hold_enough_work_and_the_pools_cost_is_measured(monkeypatch):
    schedule = scheduling.Schedule(4)
    monkeypatch.setattr(scheduling.pool(), "overhead_ns", 0.0)  # any grid of several programs: the pool
    schedule.measured(1, 1000)  # 1 us a program: chunks of at least 20 programs
    for _ in range(5):  # the calling thread times its own chunks; on a loaded machine the pool's
        grid = Grid()  # workers may take them all in one launch, and then nothing is recorded
        schedule.run(grid, None, 1000, 1000, 1, 1)
        assert sorted(grid.ran) == list(range(1000))
        assert grid.calls <= 1000 // (scheduling.MIN_CHUNK_NS // 1000) + 1
        if scheduling.pool().overhead_ns > 0.0:
            break
    assert scheduling.pool().overhead_ns > 0.0  # what the launch cost beyond its work was recorded
    assert schedule.ns_per_program is not None and schedule.ns_per_program < 1000  # the stand-in is fast


def test_one_thread_runs_everything_inline():
    schedule = scheduling.Schedule(1)
    grid = Grid()
    schedule.run(grid, None, 10_000, 100, 100, 1)
    assert grid.calls == 1 and schedule.inline_programs.value >= 10_000
