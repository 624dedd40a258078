"""commerce-rl: Commerce, the old three-card trading game, for reinforcement learning.

``commerce_env.env(variant=..., num_players=..., **options)`` is a PettingZoo
AEC env; the rules engine beneath it (:mod:`commerce_env.engine`) needs no
PettingZoo, Gymnasium or torch, and importing it loads none of them.  The
single-agent env's id ``commerce/Commerce-v0`` is registered with Gymnasium
when Gymnasium is imported (before or after this package).
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys

from .cards import Card, format_cards, parse_cards
from .hands import HandValue, evaluate
from .rules import Rules, load_rules, make_rules

__version__ = "0.2.0"


def env(*args, **kwargs):
    """``commerce_v0`` with PettingZoo's standard wrappers; see :mod:`commerce_env.aec_env`."""
    from .aec_env import env as _env

    return _env(*args, **kwargs)


def raw_env(*args, **kwargs):
    """The unwrapped AEC env; see :mod:`commerce_env.aec_env`."""
    from .aec_env import raw_env as _raw_env

    return _raw_env(*args, **kwargs)


GYM_ENV_ID = "commerce/Commerce-v0"


def register_gymnasium() -> None:
    """Register the single-agent env as ``gymnasium.make("commerce/Commerce-v0", ...)``, and the batched
    vector env as its ``gymnasium.make_vec(..., num_envs=N)`` (the ``vector`` extra; idempotent)."""
    import gymnasium

    if GYM_ENV_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ENV_ID, entry_point="commerce_env.single_agent:CommerceEnv",
                           vector_entry_point="commerce_env.vector_env:CommerceVectorEnv",
                           disable_env_checker=True)


class _RegisterWithGymnasium(importlib.abc.MetaPathFinder):
    """Registers the env id as soon as Gymnasium is imported, without importing it here:
    ``import commerce_env`` (and so ``import commerce_env.engine``) must not load Gymnasium,
    yet ``gymnasium.make("commerce/Commerce-v0")`` must work whichever is imported first."""

    def find_spec(self, name, path=None, target=None):
        if name != "gymnasium":
            return None
        sys.meta_path.remove(self)  # once: the real import below must not come back here
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            register_gymnasium()

        spec.loader.exec_module = exec_module
        return spec


if "gymnasium" in sys.modules:
    register_gymnasium()
elif not any(isinstance(finder, _RegisterWithGymnasium) for finder in sys.meta_path):
    sys.meta_path.insert(0, _RegisterWithGymnasium())

__all__ = ["GYM_ENV_ID", "Card", "HandValue", "Rules", "env", "evaluate", "format_cards", "load_rules",
           "make_rules", "parse_cards", "raw_env", "register_gymnasium"]
