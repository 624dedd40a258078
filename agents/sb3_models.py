"""From stable-baselines3 to the safe format: a policy's weights, and (trusted) MaskablePPO zips.

A zip unpickles Python objects, so it is opened only when the caller says it
trusts the file (:func:`agents.learned.load_agent`'s ``trust_sb3_zip``).  The
rules a ``commerce train`` checkpoint records are read as plain JSON first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from commerce_env import observation as obs
from commerce_env.rules import make_rules

from .model_files import FEATURE_SIZES, _check_expected, _fail, _first_line, _layer_names, make_meta, retired_field


def weights_from_policy(policy: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The actor's tensors and shape of an sb3-contrib ``MaskableActorCriticPolicy`` (MLP, flat input)."""
    import torch.nn as nn

    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)]
    activations = {type(m) for m in policy.mlp_extractor.policy_net if not isinstance(m, nn.Linear)}
    names = {nn.Tanh: "tanh", nn.ReLU: "relu"}
    if len(activations) != 1 or next(iter(activations)) not in names or not linears:
        raise ValueError(f"only MLP policies with tanh or relu can be exported, got {policy.mlp_extractor.policy_net}")
    hidden = [m.out_features for m in linears]
    weights: dict[str, np.ndarray] = {}
    for name, layer in zip(_layer_names(hidden), [*linears, policy.action_net], strict=True):
        weights[f"{name}.weight"] = layer.weight.detach().cpu().numpy().astype(np.float32)
        weights[f"{name}.bias"] = layer.bias.detach().cpu().numpy().astype(np.float32)
    return weights, {"hidden": hidden, "activation": names[next(iter(activations))]}


ZIP_RULES_KEY = "commerce_rules"  # the model attribute training sets; SB3 saves it in the zip's "data" JSON
ZIP_LAYOUT_KEY = "observation_layout_version"  # in that record: the observation the model was trained on


def zip_rules(path: Path) -> dict | None:
    """The rules a ``commerce train`` checkpoint records (``variant``, ``rules``), read as JSON, nothing unpickled."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, RecursionError) as error:
        raise _fail(path, f"not a stable-baselines3 zip ({_first_line(error)})") from None
    record = data.get(ZIP_RULES_KEY) if isinstance(data, dict) else None
    if record is None:
        return None
    if (not isinstance(record, dict) or not isinstance(record.get("variant"), str)
            or not isinstance(record.get("rules", {}), dict)):
        raise _fail(path, f"its {ZIP_RULES_KEY} record is not a mapping with a variant")
    return record


def read_sb3_zip(path: Path, variant: str | None = None,
                 num_players: int | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The weights and a ``model.json`` record of a MaskablePPO zip.  It unpickles: only for a trusted file."""
    from sb3_contrib import MaskablePPO

    recorded = zip_rules(path)
    if recorded is None and variant is None:
        raise _fail(path, "this zip does not record its rules: pass variant= (load_agent(path, "
                          "trust_sb3_zip=True, variant=...)), or export it with `commerce export`")
    if recorded is not None and variant is not None and recorded["variant"] != variant:
        raise _fail(path, f"it was trained for variant {recorded['variant']!r}, not {variant!r}")
    model = MaskablePPO.load(str(path), device="cpu")
    weights, network = weights_from_policy(model.policy)
    size = int(weights[f"{_layer_names(network['hidden'])[0]}.weight"].shape[1])
    fits = [(n, features) for features in ([], ["hand_strength"])
            for n in range(2, 13) if obs.observation_size(n) + sum(FEATURE_SIZES[f] for f in features) == size]
    if not fits:
        raise _fail(path, f"its observation size {size} fits no player count of this commerce_env")
    try:
        if recorded is not None:
            options = {k: v for k, v in recorded.get("rules", {}).items() if k != "variant"}
            rules = make_rules(recorded["variant"], **options)
        else:
            rules = make_rules(variant)
    except (TypeError, ValueError) as error:
        raise _fail(path, str(error)) from None
    problem = retired_field(recorded or {})
    if problem:
        raise _fail(path, problem)
    meta = make_meta(rules, fits[0][0], network, features=fits[0][1])
    if recorded is not None and ZIP_LAYOUT_KEY in recorded:  # zips of older runs do not say: today's layout
        layout = recorded[ZIP_LAYOUT_KEY]
        if not obs.known_layout(layout):
            raise _fail(path, f"observation layout version {layout!r}; this commerce_env reads "
                              f"versions {', '.join(map(str, obs.LAYOUT_VERSIONS))}")
        meta["observation_layout_version"] = layout
    _check_expected(meta, variant, num_players, path)
    return weights, meta
