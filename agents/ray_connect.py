"""Joining a Ray cluster, or starting a local one, for the arena and RLlib training.

``address`` (or the ``RAY_ADDRESS`` environment variable) joins a running
cluster (``ray start --head`` on one node, ``ray start --address ...`` on the
others); without one, a fresh local instance starts with ``num_cpus`` CPUs.
``address="local"`` is passed explicitly because a killed run can leave Ray's
``ray_current_cluster`` file pointing at a dead head, which a bare
``ray.init()`` would try to join.
"""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def connect(address: str | None = None, num_cpus: int | None = None) -> bool:
    """Make sure Ray is up; True if this call started it (the caller then shuts it down)."""
    try:
        import ray
    except ImportError:
        raise ValueError("the Ray backend needs the 'distributed' extra: pip install -e \".[distributed]\"") from None
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


def shutdown(started: bool) -> None:
    """Shut Ray down if :func:`connect` started it."""
    if started:
        import ray

        ray.shutdown()
