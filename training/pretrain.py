"""Imitation before PPO: the policy first learns a teacher agent's play, its value head
the returns of that play, so that PPO starts from the teacher's level instead of from
random play (the ``pretrain`` section of a training config).

Why: the batched engine cannot run ``expected_value`` as a training opponent, and PPO
from scratch meets it only in evaluation.  A clone of it can join the league from step 0
(``pretrain.snapshot``), and the learner starts where the teacher is.  The objective PPO
then optimises is unchanged; only its starting point moves.

The teacher plays every seat of matches on the readable engine (R12 rules of the run,
the run's observation and features, so the demonstrations are what the learner will see).
With ``explore`` > 0 a seat sometimes plays a uniformly random legal action instead,
but the label is always the teacher's action in that state: the clone also learns what
to do after a mistake.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .config import EnvSection, PretrainSection

PRETRAIN_FILE = "pretrain.json"


@dataclass
class Demonstrations:
    """A teacher's decisions: what the seat saw, what it might do, what it did, and what it got."""

    observations: np.ndarray  # (n, size) float32: the learner's input (observation and features)
    masks: np.ndarray  # (n, 27) bool: the legal actions
    actions: np.ndarray  # (n,) int64: the teacher's action
    returns: np.ndarray  # (n,) float32: the seat's reward from this decision to the match's end

    def __len__(self) -> int:
        return len(self.actions)

    @staticmethod
    def concatenate(parts: list[Demonstrations]) -> Demonstrations:
        return Demonstrations(*(np.concatenate([getattr(p, name) for p in parts])
                                for name in ("observations", "masks", "actions", "returns")))


def collect(teacher: Any, variant: str, num_players: int, options: dict[str, Any], features: list[str],
            decisions: int, seed: int, explore: float = 0.0) -> Demonstrations:
    """At least ``decisions`` of ``teacher``'s decisions (a spec for :func:`agents.make_agent`),
    from whole matches in every seat; deterministic for a seed."""
    from agents import make_agent
    from commerce_env import observation as obs
    from commerce_env.engine import new_game
    from commerce_env.features import append_features, feature_builders
    from commerce_env.rules import make_rules
    from commerce_env.view import seat_view

    if decisions < 1:
        raise ValueError(f"decisions must be at least 1, got {decisions!r}")
    if not 0.0 <= explore <= 1.0:
        raise ValueError(f"explore must lie in [0, 1], got {explore!r}")
    rules = make_rules(variant, **options)
    agent = make_agent(teacher, variant=variant, num_players=num_players)
    agent.reset(0, num_players, rules, seed=seed)  # a teacher that samples (search) samples the same for a seed
    builders = feature_builders(features, rules, num_players)
    rng = random.Random(seed)
    rows: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    while len(actions) < decisions:
        game = new_game(rules, num_players, dealer=rng.randrange(num_players), rng=random.Random(rng.getrandbits(64)))
        earned = np.asarray(game.take_rewards(), dtype=np.float64)  # antes and the like, before any decision
        seats, before = [], []
        while not game.over:
            seat = game.current_player
            view = seat_view(game, seat)
            vector = append_features(obs.encode(game, seat), builders)
            mask = obs.action_mask(game, seat).astype(bool)
            action = int(agent.act(view))
            rows.append(vector.astype(np.float32))
            masks.append(mask)
            actions.append(action)
            seats.append(seat)
            before.append(earned[seat])
            played = rng.choice(np.flatnonzero(mask).tolist()) if explore and rng.random() < explore else action
            game.apply(played)
            earned += np.asarray(game.take_rewards(), dtype=np.float64)
        returns.extend(float(earned[s] - b) for s, b in zip(seats, before, strict=True))
    return Demonstrations(np.stack(rows), np.stack(masks), np.asarray(actions, dtype=np.int64),
                          np.asarray(returns, dtype=np.float32))


def _collect_part(arguments: tuple) -> Demonstrations:
    return collect(*arguments)


def collect_parallel(teacher: Any, variant: str, num_players: int, options: dict[str, Any], features: list[str],
                     decisions: int, seed: int, explore: float = 0.0, workers: int = 1) -> Demonstrations:
    """:func:`collect` split over ``workers`` processes (worker k plays seed ``seed + k``)."""
    if workers <= 1:
        return collect(teacher, variant, num_players, options, features, decisions, seed, explore)
    import multiprocessing

    share = -(-decisions // workers)
    parts = [(teacher, variant, num_players, options, features, share, seed + k, explore)
             for k in range(workers)]
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        return Demonstrations.concatenate(pool.map(_collect_part, parts))


def fit_policy(policy: Any, size: int, losses: Callable[[np.ndarray], tuple[Any, Any]], epochs: int,
               batch_size: int, learning_rate: float, value_coef: float, seed: int) -> dict[str, float]:
    """Adam on ``policy_loss + value_coef * value_loss``, ``losses(rows)`` giving both for a minibatch
    of row indices, over ``epochs`` shuffles of ``size`` rows; the last epoch's mean losses.  The
    supervised loop of imitation (:func:`imitate`) and of expert iteration (its own targets)."""
    import torch

    torch.manual_seed(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    generator = np.random.default_rng(seed)
    policy.set_training_mode(True)
    stats: dict[str, float] = {}
    for _ in range(epochs):
        order = generator.permutation(size)
        totals = np.zeros(2)
        for start in range(0, size, batch_size):
            batch = order[start:start + batch_size]
            policy_loss, value_loss = losses(batch)
            optimizer.zero_grad()
            (policy_loss + value_coef * value_loss).backward()
            optimizer.step()
            totals += np.array([policy_loss.item(), value_loss.item()]) * len(batch)
        stats = {"policy_loss": float(totals[0] / size), "value_loss": float(totals[1] / size)}
    policy.set_training_mode(False)
    return stats


def imitate(policy: Any, demonstrations: Demonstrations, epochs: int, batch_size: int, learning_rate: float,
            value_coef: float = 0.5, seed: int = 0) -> dict[str, float]:
    """Fits a MaskablePPO policy to the demonstrations: cross-entropy of the teacher's action
    under the masked policy, plus ``value_coef`` times the value head's squared error on the
    returns.  Returns the last epoch's losses and the policy's agreement with the teacher."""
    import torch

    observations = torch.as_tensor(demonstrations.observations)
    masks = demonstrations.masks
    actions = torch.as_tensor(demonstrations.actions)
    returns = torch.as_tensor(demonstrations.returns)

    def losses(batch: np.ndarray) -> tuple[Any, Any]:
        values, log_prob, _ = policy.evaluate_actions(observations[batch], actions[batch], action_masks=masks[batch])
        return -log_prob.mean(), torch.nn.functional.mse_loss(values.flatten(), returns[batch])

    stats = fit_policy(policy, len(demonstrations), losses, epochs, batch_size, learning_rate, value_coef, seed)
    with torch.no_grad():
        distribution = policy.get_distribution(observations, action_masks=masks)
        chosen = distribution.distribution.probs.argmax(dim=1)
    stats["agreement"] = float((chosen == actions).float().mean())
    return stats


def demonstrations_of(section: PretrainSection, env: EnvSection, seed: int) -> Demonstrations:
    """The ``pretrain`` section's demonstrations in ``env``'s game (the same ones again for the same
    sections and seed)."""
    return collect_parallel(section.teacher, env.variant, env.num_players, env.rules,
                            list(env.features), section.decisions, seed, section.explore,
                            section.workers)


def pretrain(model: Any, section: PretrainSection, env: EnvSection,
             seed: int) -> tuple[dict[str, Any], Demonstrations]:
    """The ``pretrain`` step on ``model``'s policy; returns what it did (for ``pretrain.json``) and the
    demonstrations (for :class:`ImitationAnchor`)."""
    started = time.monotonic()
    demonstrations = demonstrations_of(section, env, seed)
    collected = time.monotonic() - started
    stats = imitate(model.policy, demonstrations, section.epochs, section.batch_size,
                    section.learning_rate, section.value_coef, seed)
    return ({"teacher": section.teacher, "decisions": len(demonstrations), "collect_seconds": collected,
             "seconds": time.monotonic() - started, **stats}, demonstrations)


def anchor_rows(demonstrations: Demonstrations, kind: str | None) -> Demonstrations:
    """The decisions an anchor keeps: all of them (``kind`` None), or only those where the
    teacher chose an action of ``kind`` among two or more of that kind, with the mask cut
    down to that kind's actions, so the loss is the teacher's choice *within* the kind."""
    if kind is None:
        return demonstrations
    from commerce_env.engine.actions import ACTION_KINDS

    of_kind = np.array([k == kind for k in ACTION_KINDS])
    masks = demonstrations.masks & of_kind
    keep = of_kind[demonstrations.actions] & (masks.sum(axis=1) >= 2)
    return Demonstrations(demonstrations.observations[keep], masks[keep], demonstrations.actions[keep],
                          demonstrations.returns[keep])


class ImitationAnchor:
    """Keeps a policy near its teacher during PPO: ``batches`` minibatches of the imitation
    loss (cross-entropy of the teacher's action under the mask, the policy only) after every
    PPO update (the ``pretrain.anchor_*`` options, docs/training.md).

    Why: imitation sets where PPO starts, and PPO may then drift from the teacher where the
    returns are too noisy to tell choices apart; the anchor pulls it back on the teacher's
    own states, so PPO changes what its returns can show and keeps the rest."""

    def __init__(self, policy: Any, demonstrations: Demonstrations, kind: str | None, batches: int,
                 batch_size: int, learning_rate: float, seed: int = 0):
        import torch

        rows = anchor_rows(demonstrations, kind)
        if len(rows) == 0:
            raise ValueError(f"pretrain.anchor_kind {kind!r}: the teacher made no such choice in "
                             f"{len(demonstrations)} decisions")
        self.policy, self.batches, self.batch_size = policy, batches, batch_size
        self.observations = torch.as_tensor(rows.observations)
        self.masks, self.actions = rows.masks, torch.as_tensor(rows.actions)
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
        self.generator = np.random.default_rng(seed)

    def __len__(self) -> int:
        return len(self.actions)

    def step(self) -> float:
        """``batches`` imitation steps; the mean loss."""
        self.policy.set_training_mode(True)
        losses = []
        for _ in range(self.batches):
            batch = self.generator.integers(0, len(self), size=min(self.batch_size, len(self)))
            _, log_prob, _ = self.policy.evaluate_actions(self.observations[batch], self.actions[batch],
                                                          action_masks=self.masks[batch])
            loss = -log_prob.mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            losses.append(loss.item())
        self.policy.set_training_mode(False)
        return float(np.mean(losses)) if losses else 0.0
