"""commerce-rl: Commerce, the old three-card trading game, for reinforcement learning.

``commerce_env.env(variant=..., num_players=..., **options)`` is a PettingZoo
AEC env; the rules engine beneath it (:mod:`commerce_env.engine`) needs no
PettingZoo, Gymnasium or torch.
"""

from __future__ import annotations

from .cards import Card, format_cards, parse_cards
from .hands import HandValue, evaluate
from .rules import Rules, load_rules, make_rules

__version__ = "0.1.0"


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
    """Register the single-agent env as ``gymnasium.make("commerce/Commerce-v0", ...)`` (idempotent)."""
    import gymnasium

    if GYM_ENV_ID not in gymnasium.registry:
        gymnasium.register(id=GYM_ENV_ID, entry_point="commerce_env.single_agent:CommerceEnv",
                           disable_env_checker=True)


register_gymnasium()

__all__ = ["GYM_ENV_ID", "Card", "HandValue", "Rules", "env", "evaluate", "format_cards", "load_rules",
           "make_rules", "parse_cards", "raw_env", "register_gymnasium"]
