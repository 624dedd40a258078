"""Repeated, interleaved timing: medians of rates and of paired ratios."""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

Run = Callable[[float], int]
"""A workload: given a time budget in seconds, do whole units of work and return how many."""


@dataclass
class Series:
    """Rates (units per second) of one workload over repeated runs."""

    name: str
    rates: list[float] = field(default_factory=list)  # per wall-clock second
    cpu_rates: list[float] = field(default_factory=list)  # per second of this process's CPU time

    @property
    def median(self) -> float:
        return statistics.median(self.rates) if self.rates else float("nan")

    @property
    def cpu_median(self) -> float:
        """Units per CPU-second of this process: the rate per core, whatever else
        the machine is running (meaningless for work done in child processes)."""
        return statistics.median(self.cpu_rates) if self.cpu_rates else float("nan")


def timed(run: Run, seconds: float) -> tuple[float, float]:
    """Units per wall-clock second and per CPU-second of one run of ``run`` within about ``seconds``."""
    start, start_cpu = time.perf_counter(), time.process_time()
    units = run(seconds)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return (units / elapsed if elapsed > 0 else float("nan"), units / cpu if cpu > 0 else float("nan"))


def interleaved(runs: dict[str, Run], repeats: int, seconds: float) -> dict[str, Series]:
    """Each workload ``repeats`` times, taking turns round by round, so that a
    burst of load from other processes falls on all of them alike."""
    series = {name: Series(name) for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            rate, cpu_rate = timed(run, seconds)
            series[name].rates.append(rate)
            series[name].cpu_rates.append(cpu_rate)
    return series


def paired_ratio(ours: Series, peer: Series) -> float:
    """The median of the round-by-round ratios ``ours / peer``."""
    ratios = [a / b for a, b in zip(ours.rates, peer.rates, strict=False) if b > 0]
    return statistics.median(ratios) if ratios else float("nan")


def until(seconds: float) -> Callable[[], bool]:
    """A cheap clock check: true once ``seconds`` have passed since the call."""
    deadline = time.perf_counter() + seconds
    clock = time.perf_counter
    return lambda: clock() >= deadline


def speed_arguments(description: str, variants: tuple[str, ...], seconds: float) -> argparse.ArgumentParser:
    """The options of a side-by-side speed benchmark: ``--variants``, ``--repeats``,
    ``--seconds`` per run and ``--out`` (the rows as JSON)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--variants", nargs="+", choices=variants, default=list(variants))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=seconds)
    parser.add_argument("--out", type=Path, default=None, help="write the rows as JSON here")
    return parser
