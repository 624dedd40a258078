"""Ray's known benign lines are filtered where the project starts Ray; every other line passes.

No Ray needed: the filter sits on Python's loggers, by name (agents/ray_connect.py).
"""

from __future__ import annotations

import logging

import pytest

from agents.ray_connect import BENIGN_LINES, _BenignLines, quiet_benign_lines


class Kept(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def kept():
    """What Ray's loggers let through, seen by a handler on each of them."""
    handler = Kept()
    names = {name for name, _ in BENIGN_LINES}
    for name in names:
        logging.getLogger(name).addHandler(handler)
    yield handler
    for name in names:
        logging.getLogger(name).removeHandler(handler)


def test_known_benign_lines_are_dropped_and_everything_else_passes(kept):
    quiet_benign_lines()
    quiet_benign_lines()  # twice is once
    for name, start in BENIGN_LINES:
        logging.getLogger(name).warning(f"{start} and the rest of the line")
    logging.getLogger("ray._private.worker").error("A worker died or was killed")
    logging.getLogger("ray.rllib.algorithms.algorithm_config").warning("a setting that is not what you meant")
    assert kept.messages == ["A worker died or was killed", "a setting that is not what you meant"]


def test_one_filter_per_logger():
    quiet_benign_lines()
    quiet_benign_lines()
    for name in {name for name, _ in BENIGN_LINES}:
        assert sum(isinstance(f, _BenignLines) for f in logging.getLogger(name).filters) == 1
