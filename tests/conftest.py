"""Fixtures shared by the test files (plain helpers are in helpers.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    """``tiny_model(variant, num_players, folder=None, *, seed=0, hidden=(16,), features=(),
    layout_version=None, **options) -> Path``: a small untrained model saved in the safe format.

    Its weights are random (``seed``), so its moves are arbitrary but fixed; ``folder`` is where it
    is saved (a new temporary folder when None); ``layout_version`` is the observation layout its
    ``model.json`` records (the current one when None); ``options`` are the variant's R12 options.
    """
    try:
        import safetensors  # noqa: F401 - save_model's weights file: safetensors, else torch
    except ImportError:
        pytest.importorskip("torch")
    from agents.model_files import expected_shapes, input_size, make_meta, save_model
    from commerce_env.rules import make_rules

    def make(variant: str, num_players: int, folder: str | Path | None = None, *, seed: int = 0,
             hidden: Sequence[int] = (16,), features: Sequence[str] = (), layout_version: int | None = None,
             **options) -> Path:
        network = {"hidden": list(hidden), "activation": "tanh"}
        meta = make_meta(make_rules(variant, **options), num_players, network, features=list(features))
        if layout_version is not None:
            meta["observation_layout_version"] = layout_version
        rng = np.random.default_rng(seed)
        weights = {name: rng.normal(0.0, 1.0 / np.sqrt(shape[-1]), shape).astype(np.float32)
                   for name, shape in expected_shapes(input_size(meta), network["hidden"]).items()}
        if folder is None:
            folder = tmp_path_factory.mktemp(f"{variant}-{num_players}") / "model"
        return save_model(folder, weights, meta)

    return make
