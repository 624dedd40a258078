"""Fixtures shared by the test files (plain helpers are in helpers.py).

The tests are grouped in folders by the layer they test (``engine/``, ``vector/``, ``envs/``,
``openspiel/``, ``agents/``, ``training/``, ``web/``, ``benchmarks/``, and ``project/`` for the
whole repository); the shared helpers stay here, and every folder is importable from any test
(``from helpers import Driver``, ``from test_rules_common import random_options``)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
for _folder in [HERE, *sorted(p for p in HERE.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))]:
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))


@pytest.fixture(scope="session")
def tiny_ppo():
    """``tiny_ppo(variant="trade_barter", num_players=3, *, seed=0, net_arch=(16,), features=())``:
    a small untrained ``MaskablePPO`` on the single-agent env (random opponents), one torch thread."""
    torch = pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from commerce_env.single_agent import CommerceEnv

    def make(variant: str = "trade_barter", num_players: int = 3, *, seed: int = 0,
             net_arch: Sequence[int] = (16,), features: Sequence[str] = ()):
        torch.set_num_threads(1)
        env = CommerceEnv(variant=variant, num_players=num_players, opponents=["random"], features=list(features))
        return sb3_contrib.MaskablePPO("MlpPolicy", env, seed=seed, device="cpu", n_steps=64, batch_size=64,
                                       policy_kwargs=dict(net_arch=list(net_arch)))

    return make


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory):
    """``tiny_model(variant, num_players, folder=None, *, seed=0, hidden=(16,), features=(), ppo=None,
    layout_version=None, use_safetensors=None, **options) -> Path``: a small untrained model saved
    in the safe format (``agents.model_files.save_model``).

    Its weights are random (``seed``; moves arbitrary but fixed), or ``ppo``'s policy's
    (:func:`tiny_ppo`; then ``hidden`` is its own).  ``folder`` is where it is saved (a new
    temporary folder when None); ``layout_version`` is the observation layout its ``model.json``
    records (the current one when None); ``options`` are the variant's R12 options.
    """
    try:
        import safetensors  # noqa: F401 - save_model's weights file: safetensors, else torch
    except ImportError:
        pytest.importorskip("torch")
    from agents.model_files import expected_shapes, input_size, make_meta, save_model
    from commerce_env.rules import make_rules

    def make(variant: str, num_players: int, folder: str | Path | None = None, *, seed: int = 0,
             hidden: Sequence[int] = (16,), features: Sequence[str] = (), ppo: Any = None,
             layout_version: int | None = None, use_safetensors: bool | None = None, **options) -> Path:
        if ppo is not None:
            from agents.sb3_models import weights_from_policy

            weights, network = weights_from_policy(ppo.policy)
        else:
            network = {"hidden": list(hidden), "activation": "tanh"}
        meta = make_meta(make_rules(variant, **options), num_players, network, features=list(features))
        if layout_version is not None:
            meta["observation_layout_version"] = layout_version
        if ppo is None:
            rng = np.random.default_rng(seed)
            weights = {name: rng.normal(0.0, 1.0 / np.sqrt(shape[-1]), shape).astype(np.float32)
                       for name, shape in expected_shapes(input_size(meta), network["hidden"]).items()}
        if folder is None:
            folder = tmp_path_factory.mktemp(f"{variant}-{num_players}") / "model"
        return save_model(folder, weights, meta, use_safetensors=use_safetensors)

    return make


BROWSER_SKIP_REASONS = ("chromium", "selenium")  # the skip reasons of the browser tests (tests/web/web_browser.py)


def pytest_terminal_summary(terminalreporter) -> None:
    """One line when browser tests were skipped (no Chromium, no Selenium): which, and how to run them.
    Without it ``make test`` skipped them silently."""
    skipped = [report for report in terminalreporter.stats.get("skipped", [])
               if isinstance(report.longrepr, tuple)
               and any(word in str(report.longrepr[2]).lower() for word in BROWSER_SKIP_REASONS)]
    if skipped:
        files = sorted({Path(report.nodeid.split("::")[0]).name for report in skipped})
        terminalreporter.write_line(
            f"{len(skipped)} browser tests skipped ({', '.join(files)}): they need Chromium and its driver; "
            "run them after: apt-get install -y chromium chromium-driver (Debian)")
