"""Episodes of one deal for the learner, in the match variants (``training.episode: deal``).

In the widow game, My Ship Sails and pool commerce an episode is a whole match,
a dozen deals or more, and with ``gamma = 1`` the advantage of a decision also
carries the luck of the deals after it: noise that no action of this deal
caused.  This wrapper ends the learner's episode where its next decision falls
in a later deal (the env's ``info["deal_ended"]``, :mod:`commerce_env.single_agent`),
so a decision is credited with what its own deal paid, no bootstrap across the
deal's end.

What that changes: the learner now maximises each deal's reward, not the
match's.  Where a deal's reward is the match's money for that deal (the widow
game, My Ship Sails: counters change hands at each showdown, R6, R7), the two
differ only in what a deal's play does to later deals (who is out, R4.6).  In
pool commerce most of the money is the pool, paid at the match's end (R9.5), so
a deal's own reward misses most of what it did: the config refuses this option
there.  The matches themselves are played out as before, and the monitor below
this wrapper still logs whole matches' returns.
"""

from __future__ import annotations

import numpy as np
from stable_baselines3.common.vec_env import VecEnv, VecEnvWrapper


class DealEpisodes(VecEnvWrapper):
    """``dones[i]`` is also set where ``infos[i]["deal_ended"]``; rewards and observations are
    passed on unchanged."""

    def __init__(self, venv: VecEnv):
        super().__init__(venv)

    def reset(self) -> np.ndarray:
        return self.venv.reset()

    def step_wait(self):
        observations, rewards, dones, infos = self.venv.step_wait()
        ended = np.array([bool(info.get("deal_ended", False)) for info in infos])
        return observations, rewards, dones | ended, infos
