"""The arena's duplicate groups as Ray tasks, on one machine or a cluster.

Agents travel to the workers as specs (names and ``model:<path>`` strings),
never as live objects; a model's files (``model.json`` and its weights) are
read on the driver and sent along as bytes, so the workers need no shared
file system, and every worker checks them again as :mod:`agents.learned`
does.  Each task plays a chunk of groups with the local arena's own
``_init_worker`` / ``_play_group``; group ``g`` depends on ``(seed, g)``
alone, so the result equals ``workers=1`` for the same seed.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from .base import Agent
from .ray_connect import cluster_cpus, connect, shutdown
from .specs import is_model_spec

TASKS_PER_CPU = 4  # chunks per CPU: small enough to balance, big enough to amortise a task's start


def model_files(spec: str) -> dict[str, bytes]:
    """The files of the model a ``model:<path>`` spec names: ``model.json`` and its weights."""
    path = Path(spec[len("model:"):] if spec.startswith("model:") else spec)
    json_path = path / "model.json" if path.is_dir() else path
    try:
        meta = json.loads(json_path.read_text())
        weights = json_path.parent / str(meta["weights_file"])
        return {"model.json": json_path.read_bytes(), Path(weights.name).name: weights.read_bytes()}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"cannot read model {spec!r} to send it to the Ray workers ({error})") from None


def _play_chunk(lineup: list[str], models: dict[str, dict[str, bytes]], variant: str, options: dict[str, Any],
                num_players: int, seed: int, duplicate: bool, groups: list[int],
                worker: tuple[Callable, Callable]) -> tuple[str, list]:
    """On a worker: rebuild the agents from their specs, then play ``groups`` as the local arena does
    (``worker``: the arena's ``(init_worker, play_group)``, passed in so that this module does not
    import the arena that imports it); returns the node's id and the groups' games."""
    import ray

    from commerce_env.rules import make_rules

    init_worker, play_group = worker

    with tempfile.TemporaryDirectory(prefix="commerce-arena-") as folder:
        local = []
        for spec in lineup:
            if spec in models:  # a distinct folder per distinct spec keeps the agents' identities
                target = Path(folder) / str(sorted(models).index(spec))
                target.mkdir(exist_ok=True)
                for name, data in models[spec].items():
                    (target / name).write_bytes(data)
                spec = f"model:{target}"
            local.append(spec)
        rules = make_rules(variant, **{k: v for k, v in options.items() if k != "variant"})
        init_worker(local, rules, num_players, seed, duplicate)
        return ray.get_runtime_context().get_node_id(), [play_group(group) for group in groups]


def play_groups(lineup: Sequence[Any], rules: Any, num_players: int, seed: int, groups: int, duplicate: bool,
                address: str | None = None, nodes: set[str] | None = None,
                worker: tuple[Callable, Callable] | None = None) -> Iterator[tuple[int, list]]:
    """``(group, games)`` for every group, as Ray tasks finish them (in any order); ``nodes``, if
    given, collects the ids of the nodes that played."""
    if worker is None:
        raise TypeError("play_groups needs worker=(init_worker, play_group), the arena's (agents.arena)")
    if any(isinstance(spec, Agent) or not isinstance(spec, str) for spec in lineup):
        raise ValueError("the Ray backend takes agents as specs (names or model:<path>), not Agent objects")
    specs = list(lineup)
    models = {spec: model_files(spec) for spec in dict.fromkeys(specs) if is_model_spec(spec)}
    started = connect(address)
    try:
        import ray

        cpus = cluster_cpus()
        size = max(1, math.ceil(groups / (cpus * TASKS_PER_CPU)))
        task = ray.remote(num_cpus=1)(_play_chunk)
        shared = [ray.put(specs), ray.put(models)]
        pending = [task.remote(*shared, rules.variant, rules.options(), num_players, seed, duplicate,
                               list(range(first, min(first + size, groups))), worker)
                   for first in range(0, groups, size)]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            node, results = ray.get(done[0])
            if nodes is not None:
                nodes.add(node)
            yield from results
    finally:
        shutdown(started)
