"""Potential-based reward shaping for the learner (Ng, Harada and Russell, 1999).

The learner's reward becomes ``r + phi(s') - phi(s)``, with ``phi = 0`` at the end
of an episode.  With ``gamma = 1`` (every config here) the shaping terms of an
episode add up to ``-phi(first state)``, which no action changes, so the best
policy is the same; what changes is *when* the learner hears about an outcome.

In pool commerce (R9) most of a match's money is the pool, paid only when the
match ends (R9.5), and the deals in between pay 1 a deal (R9.3): a life lost in
the second deal costs its price dozens of decisions later.  ``pool_share`` is
what the seat's lives are worth now, ``pool x`` its chance to be the last one
with lives (``agents.heuristics.life_shares``, R9.5, the same figure
``expected_value`` and ``search`` weigh a life by), so a lost life is paid for
in the deal that loses it.  It reads only the pool and the lives, which every
seat sees (R11), from the observation vector.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper

from commerce_env import observation as obs

Potential = Callable[[np.ndarray], np.ndarray]


class PoolShare:
    """``phi = pool x P(this seat is the last one with lives)`` from a batch of observations."""

    name = "pool_share"

    def __init__(self, num_players: int):
        from agents.heuristics import life_shares

        sections = {name: start for name, start, _ in obs.layout(num_players)}
        self.pool_at = sections["flags"] + 3  # the pool, in tens (observation.SCALE; observation.encode)
        self.lives_at = sections["players"] + obs.PLAYER_FEATURES * np.arange(num_players)  # seat 0: this seat
        self.share = life_shares

    def __call__(self, observations: np.ndarray) -> np.ndarray:
        pools = np.rint(observations[:, self.pool_at] / obs.SCALE)
        lives = np.rint(observations[:, self.lives_at] / obs.SCALE).astype(int)
        shares = np.array([self.share(tuple(max(0, n) for n in row))[0] for row in lives.tolist()])
        return (pools * shares).astype(np.float32)


POTENTIALS: dict[str, type] = {PoolShare.name: PoolShare}


def check_potential(name: str, variant: str, reward: str) -> str | None:
    """Why ``name`` cannot shape ``variant``'s reward, or None if it can."""
    from commerce_env.engine import ENGINES
    from commerce_env.rules import make_rules

    if name not in POTENTIALS:
        return f"unknown potential {name!r}; choose from {', '.join(POTENTIALS)}"
    engine, rules = ENGINES[variant], make_rules(variant)
    if not (engine.plays_for_money and rules.has_lives):
        return f"{name} needs a variant played for a pool with lives (R9), not {variant!r}"
    if reward != "counters":
        return f"{name} shapes the money reward (reward: counters), not reward {reward!r}"
    return None


class PotentialShaping(VecEnvWrapper):
    """Adds ``phi(next observation) - phi(observation)`` to each env's reward, ``phi = 0`` when
    the episode ends; ``infos[i]["unshaped_reward"]`` keeps the env's own reward.  Wrap it
    outside ``VecMonitor``, so that the logged episode returns stay the game's."""

    def __init__(self, venv: VecEnv, potential: Potential):
        super().__init__(venv)
        self.potential = potential
        self._last = np.zeros(venv.num_envs, dtype=np.float32)

    def reset(self) -> np.ndarray:
        observations = self.venv.reset()
        self._last = self.potential(observations)
        return observations

    def step_wait(self):
        observations, rewards, dones, infos = self.venv.step_wait()
        now = self.potential(observations)  # after a done: the next episode's first state
        reached = np.where(dones, 0.0, now)
        shaped = rewards + reached - self._last
        for info, reward in zip(infos, rewards.tolist(), strict=True):
            info["unshaped_reward"] = reward
        self._last = now
        return observations, shaped.astype(np.float32), dones, infos
