"""A single-file masked DQN on the Gymnasium vector env, in CleanRL's shape: read it top to bottom.

    python -m training.dqn --variant widow --total-timesteps 2000000 --output runs/dqn_widow
    python -m training.dqn --help

One learner in one seat (rotating), the other seats played by fixed opponents
(``--opponents greedy``); all games run in one batched engine
(``gymnasium.make_vec("commerce/Commerce-v0")``).  CleanRL's ``dqn.py`` with the
two changes a card game with illegal moves needs: the greedy action and the
target's maximum are taken over the legal actions only (the next state's mask
is stored with it in the replay buffer), and exploration draws among the legal
actions.  A transition runs from one of the learner's decisions to its next
(the opponents' moves happen inside the env's step); a deal's end is terminal,
so the target is the reward alone there.  The Q-network is saved in the safe
model format (``agents.save_policy``): it plays as ``model:<output>/model``,
choosing its largest legal Q-value.  No stable-baselines3 import.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn

from training.single_file import TableArgs, make_envs, parse_fields, report_model, write_run_record


@dataclass
class Args(TableArgs):
    """The game and budget (:class:`training.single_file.TableArgs`), then DQN's own settings."""

    num_envs: int = 64
    """games played at once (each vector step adds this many transitions)"""
    learning_rate: float = 2.5e-4
    """Adam's step size"""
    buffer_size: int = 200_000
    """transitions kept in the replay buffer"""
    gamma: float = 1.0
    """discount (a deal is short; the reward is the counters it won)"""
    target_network_frequency: int = 8_000
    """env steps between copies of the Q-network into the target network"""
    batch_size: int = 256
    """transitions per gradient step"""
    train_frequency: int = 64
    """env steps between gradient steps (64 with 64 envs: one step per vector step)"""
    start_e: float = 1.0
    """exploration rate at the start"""
    end_e: float = 0.05
    """exploration rate at the end of its decay"""
    exploration_fraction: float = 0.3
    """share of the budget over which exploration decays linearly"""
    learning_starts: int = 20_000
    """env steps of pure exploration before the first gradient step"""
    max_grad_norm: float = 10.0
    """gradient clipping"""
    hidden: list[int] = field(default_factory=lambda: [128, 128])
    """hidden layers of the Q-network (ReLU between them)"""
    checkpoint_every: int = 0
    """every this many steps the Q-network is saved in <output>/checkpoints/step_<n> (0: never)"""
    eval_deals: int = 1000
    """duplicate deals of the final evaluation against each opponent (0: none)"""
    output: str = "runs/dqn"
    """where the model (and checkpoints) go"""
    threads: int = 1
    """torch threads (1: two runs share two cores without spinning)"""


def q_network(size: int, hidden: list[int], actions: int = 27) -> nn.Sequential:
    """An MLP from the observation to one Q-value per action (ReLU between layers)."""
    sizes = [size, *hidden, actions]
    layers: list[nn.Module] = []
    for k in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[k], sizes[k + 1]))
        if k < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def linear_schedule(start_e: float, end_e: float, duration: float, t: int) -> float:
    """CleanRL's exploration rate: linear from ``start_e`` to ``end_e`` over ``duration`` steps."""
    return max(end_e, start_e + (end_e - start_e) * t / max(duration, 1.0))


def legal_argmax(q: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Each row's action of largest Q-value among its legal ones."""
    return q.masked_fill(~mask, -torch.inf).argmax(-1)


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniform draw among each row's legal actions."""
    scores = rng.random(mask.shape) * mask
    return scores.argmax(-1)


class ReplayBuffer:
    """A ring of transitions, each with the mask of the state it leads to (for the target's maximum)."""

    def __init__(self, capacity: int, size: int, actions: int = 27):
        self.capacity, self.count, self.at = capacity, 0, 0
        self.obs = np.zeros((capacity, size), np.float32)
        self.next_obs = np.zeros((capacity, size), np.float32)
        self.next_mask = np.zeros((capacity, actions), bool)
        self.actions = np.zeros(capacity, np.int64)
        self.rewards = np.zeros(capacity, np.float32)
        self.dones = np.zeros(capacity, np.float32)

    def add(self, obs, next_obs, next_mask, actions, rewards, dones) -> None:
        rows = (self.at + np.arange(len(actions))) % self.capacity
        self.obs[rows], self.next_obs[rows], self.next_mask[rows] = obs, next_obs, next_mask
        self.actions[rows], self.rewards[rows], self.dones[rows] = actions, rewards, dones
        self.at = (self.at + len(actions)) % self.capacity
        self.count = min(self.count + len(actions), self.capacity)

    def sample(self, batch: int, rng: np.random.Generator) -> tuple[torch.Tensor, ...]:
        rows = rng.integers(0, self.count, batch)
        return tuple(torch.as_tensor(x[rows]) for x in (self.obs, self.next_obs, self.next_mask, self.actions,
                                                          self.rewards, self.dones))


def save_q(q: nn.Sequential, args: Args, folder: Path) -> Path:
    """The Q-network in the safe model format (plays as ``model:<folder>``, its largest legal Q-value)."""
    from agents import save_policy

    return save_policy(folder, q, variant=args.variant, num_players=args.num_players, features=list(args.features))


def train(args: Args, on_checkpoint: Callable[[int, Path], None] | None = None, quiet: bool = False) -> Path:
    """Train; returns the folder of the final model.  ``on_checkpoint(steps, folder)`` is called
    after each checkpoint is saved (``args.checkpoint_every``); ``quiet``: no progress lines."""
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    out = Path(args.output)
    envs = make_envs(args)
    size = envs.single_observation_space["observation"].shape[0]
    q = q_network(size, list(args.hidden))
    target = q_network(size, list(args.hidden))
    target.load_state_dict(q.state_dict())
    optimizer = torch.optim.Adam(q.parameters(), lr=args.learning_rate)
    buffer = ReplayBuffer(args.buffer_size, size)

    raw, _ = envs.reset(seed=args.seed)
    obs, mask = raw["observation"], raw["action_mask"].astype(bool)
    next_checkpoint = args.checkpoint_every or None
    next_train, next_target = args.learning_starts, args.target_network_frequency
    returns: list[float] = []
    started, steps, report_at = time.perf_counter(), 0, 0
    while steps < args.total_timesteps:
        # 1. act: epsilon-greedy among the legal actions
        epsilon = linear_schedule(args.start_e, args.end_e, args.exploration_fraction * args.total_timesteps, steps)
        with torch.no_grad():
            greedy = legal_argmax(q(torch.as_tensor(obs)), torch.as_tensor(mask)).numpy()
        explore = rng.random(args.num_envs) < epsilon
        actions = np.where(explore, random_legal(mask, rng), greedy)
        raw, rewards, terminated, truncated, infos = envs.step(actions)
        next_obs, next_mask = raw["observation"], raw["action_mask"].astype(bool)

        # 2. store: at a deal's end the next observation is the next deal's (no bootstrap there)
        dones = terminated | truncated
        buffer.add(obs, next_obs, next_mask, actions, rewards, dones)
        obs, mask = next_obs, next_mask
        steps += args.num_envs
        final = infos.get("final_info", {})
        if "returns" in final:
            returns.extend(np.asarray(final["returns"])[np.asarray(final["_returns"])].tolist())

        # 3. learn: one minibatch every train_frequency steps, the target network copied now and then
        while steps >= next_train:
            next_train += args.train_frequency
            b_obs, b_next, b_mask, b_actions, b_rewards, b_dones = buffer.sample(args.batch_size, rng)
            with torch.no_grad():
                best_next = target(b_next).masked_fill(~b_mask, -torch.inf).max(-1).values
                best_next = torch.where(b_dones.bool(), torch.zeros_like(best_next), best_next)
                td_target = b_rewards + args.gamma * best_next
            chosen = q(b_obs).gather(1, b_actions[:, None]).squeeze(1)
            loss = nn.functional.mse_loss(chosen, td_target)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(q.parameters(), args.max_grad_norm)
            optimizer.step()
        if steps >= next_target:
            next_target += args.target_network_frequency
            target.load_state_dict(q.state_dict())

        # 4. report and checkpoints (the last step is always one)
        if not quiet and (steps - report_at >= 100_000 or steps >= args.total_timesteps):
            report_at = steps
            recent = returns[-500:]
            mean = f"{np.mean(recent):+.3f}" if recent else "n/a"
            print(f"steps {steps:>10,}  steps/s {steps / (time.perf_counter() - started):>8,.0f}  "
                  f"epsilon {epsilon:.3f}  mean return (last {len(recent)} episodes) {mean}", flush=True)
        if next_checkpoint is not None and (steps >= next_checkpoint or steps >= args.total_timesteps):
            while next_checkpoint <= steps:
                next_checkpoint += args.checkpoint_every
            folder = save_q(q, args, out / "checkpoints" / f"step_{steps}")
            if on_checkpoint is not None:
                on_checkpoint(steps, folder)
    envs.close()
    folder = save_q(q, args, out / "model")
    write_run_record(out, args, steps, started)
    return folder


def main(argv: list[str] | None = None) -> int:
    args = parse_fields(Args, "python -m training.dqn", __doc__.splitlines()[0], argv)
    folder = train(args)
    report_model(folder, args.variant, args.num_players, args.opponents, args.eval_deals)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
