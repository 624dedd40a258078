"""Joining a Ray cluster, or starting a local one, for the arena and RLlib training.

``address`` (or the ``RAY_ADDRESS`` environment variable) joins a running
cluster (``ray start --head`` on one node, ``ray start --address ...`` on the
others); without one, a fresh local instance starts with ``num_cpus`` CPUs.
``address="local"`` is passed explicitly because a killed run can leave Ray's
``ray_current_cluster`` file pointing at a dead head, which a bare
``ray.init()`` would try to join.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent

# What Ray 2.60 and RLlib print on the driver when a run goes well, none of it a fault: (logger, the
# start of its message).  Filtered where the project starts Ray, and listed in docs/distributed.md.
BENIGN_LINES = (
    # a local instance turns token authentication on and keeps a token in ~/.ray/auth_token (it stays on)
    ("ray._private.authentication.authentication_token_setup", "Token authentication is enabled"),
    ("ray._private.authentication.authentication_token_setup", "Generated new authentication token"),
    ("ray._private.worker", "Started a local Ray instance"),
    # RLlib's notice that PPO runs on its new API stack, which the project uses on purpose
    ("ray.rllib.algorithms.algorithm_config", "You are running PPO on the new API stack"),
    # RLlib 2.60's own RLModule.__init__ builds the deprecated RLModuleConfig (no code of ours passes it)
    ("ray._common.deprecation", "DeprecationWarning: `RLModule(config=[RLModuleConfig object])`"),
    ("ray.tune.trainable.trainable", "Trainable.setup took"),
    ("ray.tune.utils.util", "Install gputil for GPU system monitoring"),
)


class _BenignLines(logging.Filter):
    """Drops a logger's known benign lines (:data:`BENIGN_LINES`); everything else passes."""

    def __init__(self, starts: tuple[str, ...]):
        super().__init__()
        self.starts = starts

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(self.starts)


def quiet_benign_lines() -> None:
    """Filter :data:`BENIGN_LINES` out of Ray's loggers (once per process; errors and other warnings stay)."""
    for name in dict.fromkeys(name for name, _ in BENIGN_LINES):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _BenignLines) for f in logger.filters):
            logger.addFilter(_BenignLines(tuple(start for n, start in BENIGN_LINES if n == name)))


def connect(address: str | None = None, num_cpus: int | None = None) -> bool:
    """Make sure Ray is up; True if this call started it (the caller then shuts it down)."""
    try:
        import ray
    except ImportError:
        raise ValueError("the Ray backend needs the 'distributed' extra: pip install -e \".[distributed]\"") from None
    quiet_benign_lines()
    if ray.is_initialized():
        return False
    address = address or os.environ.get("RAY_ADDRESS") or None
    if address is not None and address != "local":
        ray.init(address=address, log_to_driver=False)
        return True
    # A local instance runs this checkout's code: its workers get the project on their path.
    path = os.pathsep.join(p for p in (str(PROJECT_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    ray.init(address="local", num_cpus=num_cpus or os.cpu_count() or 1, include_dashboard=False,
             log_to_driver=False, runtime_env={"env_vars": {"PYTHONPATH": path}})
    return True


def cluster_cpus() -> int:
    """The CPUs of the Ray cluster joined (at least 1): the arena's tasks take one each."""
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def shutdown(started: bool) -> None:
    """Shut Ray down if :func:`connect` started it."""
    if started:
        import ray

        ray.shutdown()
