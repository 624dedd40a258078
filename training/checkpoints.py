"""What a run writes of its policy: the numpy agent, the safe-format export, checkpoints."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents.learned import LearnedAgent, make_meta, save_model, weights_from_policy
from commerce_env.files import atomic_write

from .config import EnvSection
from .run_folder import RunFolder

CHECKPOINT = "checkpoints/last.zip"
STATE = "checkpoints/state.json"


def policy_agent(model: Any, env: EnvSection, name: str, search: dict[str, Any] | None = None,
                 **extra: Any) -> tuple[LearnedAgent, dict, dict]:
    """The current policy as a numpy :class:`LearnedAgent` playing by its network alone (what the
    run trains and evaluates), its weights and its ``model.json`` record: ``env``'s game, the run's
    ``name``, and ``search`` (``policy.search``: the test-time search the exported model plays with;
    None: none)."""
    rules = env.make_rules()
    weights, network = weights_from_policy(model.policy)
    meta = make_meta(rules, env.num_players, network, features=env.features,
                     search=search, trained_steps=int(model.num_timesteps), run=name, **extra)
    return LearnedAgent(weights, meta, search=False), weights, meta


def export_model(model: Any, env: EnvSection, name: str, folder: str | Path, run: RunFolder | None = None,
                 search: dict[str, Any] | None = None) -> Path:
    """Write the policy of ``model`` in the safe format (:mod:`agents.learned`), its record as
    :func:`policy_agent`'s; ``run`` records its files.  ``search``: the config's ``policy.search`` for
    the run's model; None for the clone and the snapshots, which play as batched opponents during
    training, by their networks alone."""
    _, weights, meta = policy_agent(model, env, name, search)
    folder = save_model(folder, weights, meta)
    if run is not None:
        run.record_tree(Path(folder).relative_to(run.path).as_posix())
    return folder


def save_checkpoint(model: Any, run: RunFolder, state: dict[str, Any]) -> None:
    """The model zip then its state, each written atomically; TensorBoard's files recorded with them."""
    path = run.path / CHECKPOINT
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, model.save)
    run.record([path])
    run.write(STATE, json.dumps(dict(state, num_timesteps=int(model.num_timesteps)), indent=2))
    run.record_tree("tb")
