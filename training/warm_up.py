"""The batched engine compiled before a run's clock starts, with a line that says so.

numba compiles the batched engine at its first use after an install (the kernels are cached on
disk: later processes load them in a second or two).  Left to the first step of training, that
minute or more would pass in silence and count against the run's time budget, and the progress
bar would then jump; here a copy of the run's env, two games wide, plays a few steps first while
a line counts the seconds.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO

DELAY = 2.0  # seconds before the line shows: loading the kernels from the cache takes about this
EVERY_LINE = 15.0  # seconds between lines where the output is not a terminal (a log file, a pipe)
STEPS = 64  # steps of the small env: every kernel of a step, an episode's end and its reset included


@contextmanager
def counting(label: str, stream: TextIO | None = None, delay: float = DELAY) -> Iterator[None]:
    """While the block runs and once it has taken ``delay`` seconds, show ``label`` with the seconds so
    far: one line rewritten every second on a terminal, a line every 15 s elsewhere; then how long it took."""
    out = stream if stream is not None else sys.stdout
    live = out.isatty()
    done, shown = threading.Event(), threading.Event()
    started = time.monotonic()

    def tick() -> None:
        if done.wait(delay):
            return
        last = None
        while not done.is_set():
            seconds = time.monotonic() - started
            if live:
                out.write(f"\r{label} {seconds:.0f} s")
            elif last is None or seconds - last >= EVERY_LINE:
                out.write(f"{label} {seconds:.0f} s\n")
                last = seconds
            out.flush()
            shown.set()
            done.wait(1.0)

    thread = threading.Thread(target=tick, name="compile-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        if shown.is_set():
            out.write(f"{chr(13) if live else ''}{label} done in {time.monotonic() - started:.0f} s\n")
            out.flush()


def warm_up(make_env: Callable[[], Any], label: str, stream: TextIO | None = None) -> None:
    """Play :data:`STEPS` steps of ``make_env()`` (a small copy of the run's SB3 ``VecEnv``, its first legal
    action in every game) under :func:`counting`, then close it."""
    with counting(label, stream):
        env = make_env()
        try:
            env.reset()
            for _ in range(STEPS):
                env.step(env.action_masks().argmax(axis=1))
        finally:
            env.close()
