"""A single-file masked PPO on the Gymnasium vector env, in CleanRL's shape: read it top to bottom.

    python -m training.ppo --variant widow --total-timesteps 2000000 --output runs/ppo_widow
    python -m training.ppo --help

One learner in one seat (rotating by default), the other seats played by fixed
opponents (``--opponents greedy``) and, with ``--selfplay-every``, by snapshots
of the learner itself.  All games of a rollout run in one batched engine
(``gymnasium.make_vec("commerce/Commerce-v0")``); illegal actions are masked out
of the logits.  The defaults are those of stable-baselines3's MaskablePPO as
``configs/train/`` sets it (separate actor and critic MLPs, orthogonal
initialisation, clipped objective, GAE), so the two can be compared step for
step (``python -m benchmarks.ppo_speed``).  The actor is saved in the safe
model format (``agents.save_policy``): it plays as ``model:<output>/model``
everywhere a model does.  No stable-baselines3 import.
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
    """The game and budget (:class:`training.single_file.TableArgs`), then PPO's own settings."""

    num_envs: int = 128
    """games played at once"""
    num_steps: int = 32
    """steps per game per rollout (a rollout is num_envs * num_steps)"""
    learning_rate: float = 3e-4
    """Adam's step size"""
    anneal_lr: bool = False
    """decay the learning rate linearly to 0"""
    gamma: float = 1.0
    """discount (a deal is short; the reward is the counters it won)"""
    gae_lambda: float = 0.95
    """GAE's lambda"""
    batch_size: int = 512
    """minibatch size"""
    update_epochs: int = 4
    """passes over each rollout"""
    clip_coef: float = 0.2
    """the surrogate's clipping"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    hidden: list[int] = field(default_factory=lambda: [128, 128])
    """hidden layers of the actor and of the critic"""
    selfplay_every: int = 0
    """every this many steps a snapshot of the learner joins the opponents (0: never)"""
    checkpoint_every: int = 0
    """every this many steps the actor is saved in <output>/checkpoints/step_<n> (0: never)"""
    eval_deals: int = 1000
    """duplicate deals of the final evaluation against each opponent (0: none)"""
    output: str = "runs/ppo"
    """where the model (and checkpoints) go"""
    threads: int = 1
    """torch threads (1: two runs share two cores without spinning)"""


def layer(linear: nn.Linear, gain: float) -> nn.Linear:
    """Orthogonal weights, zero bias: SB3's and CleanRL's initialisation."""
    nn.init.orthogonal_(linear.weight, gain)
    nn.init.zeros_(linear.bias)
    return linear


def mlp(sizes: list[int], out_gain: float) -> nn.Sequential:
    """Linear layers with tanh between them; the last one's gain ``out_gain``."""
    layers: list[nn.Module] = []
    for k in range(len(sizes) - 1):
        last = k == len(sizes) - 2
        layers.append(layer(nn.Linear(sizes[k], sizes[k + 1]), out_gain if last else np.sqrt(2)))
        if not last:
            layers.append(nn.Tanh())
    return nn.Sequential(*layers)


class ActorCritic(nn.Module):
    """Separate actor and critic MLPs on the observation (SB3's ``net_arch=dict(pi=..., vf=...)``)."""

    def __init__(self, size: int, hidden: list[int], actions: int = 27):
        super().__init__()
        self.actor = mlp([size, *hidden, actions], out_gain=0.01)
        self.critic = mlp([size, *hidden, 1], out_gain=1.0)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def policy(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
        """The action distribution with illegal actions' logits masked out."""
        return torch.distributions.Categorical(logits=self.actor(obs).masked_fill(~mask, -1e8), validate_args=False)


def save_actor(model: ActorCritic, args: Args, folder: Path) -> Path:
    """The actor in the safe model format (plays as ``model:<folder>``)."""
    from agents import save_policy

    return save_policy(folder, model.actor, variant=args.variant, num_players=args.num_players,
                       features=list(args.features))


def train(args: Args, on_checkpoint: Callable[[int, Path], None] | None = None, quiet: bool = False) -> Path:
    """Train; returns the folder of the final model.  ``on_checkpoint(steps, folder)`` is called
    after each checkpoint is saved (``args.checkpoint_every``); ``quiet``: no progress lines."""
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    out = Path(args.output)
    envs = make_envs(args)
    size = envs.single_observation_space["observation"].shape[0]
    model = ActorCritic(size, list(args.hidden))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, eps=1e-5)

    # rollout storage
    shape = (args.num_steps, args.num_envs)
    obs = torch.zeros((*shape, size))
    masks = torch.zeros((*shape, 27), dtype=torch.bool)
    actions = torch.zeros(shape, dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros(shape) for _ in range(4))

    rollout = args.num_envs * args.num_steps
    updates = max(1, args.total_timesteps // rollout)
    next_checkpoint = args.checkpoint_every or None
    next_snapshot = args.selfplay_every or None
    returns: list[float] = []
    started = time.perf_counter()
    raw, _ = envs.reset(seed=args.seed)
    next_obs, next_mask = torch.as_tensor(raw["observation"]), torch.as_tensor(raw["action_mask"]).bool()
    next_done = torch.zeros(args.num_envs)
    steps = 0
    for update in range(1, updates + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = args.learning_rate * (1.0 - (update - 1.0) / updates)

        # 1. collect a rollout with the current policy
        for t in range(args.num_steps):
            obs[t], masks[t], dones[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                dist = model.policy(next_obs, next_mask)
                action = dist.sample()
                values[t] = model.value(next_obs)
            actions[t], logprobs[t] = action, dist.log_prob(action)
            raw, reward, terminated, truncated, infos = envs.step(action.numpy())
            rewards[t] = torch.as_tensor(reward, dtype=torch.float32)
            next_done = torch.as_tensor(terminated | truncated, dtype=torch.float32)
            next_obs, next_mask = torch.as_tensor(raw["observation"]), torch.as_tensor(raw["action_mask"]).bool()
            final = infos.get("final_info", {})
            if "returns" in final:
                returns.extend(np.asarray(final["returns"])[np.asarray(final["_returns"])].tolist())
        steps += rollout

        # 2. advantages by GAE, bootstrapped from the value of the state after the rollout
        with torch.no_grad():
            next_value = model.value(next_obs)
            advantages = torch.zeros(shape)
            last = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                not_done = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                after = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * after * not_done - values[t]
                last = delta + args.gamma * args.gae_lambda * not_done * last
                advantages[t] = last
            targets = advantages + values

        # 3. several epochs of minibatch updates of the clipped objective
        b_obs, b_masks, b_actions = obs.reshape(-1, size), masks.reshape(-1, 27), actions.reshape(-1)
        b_logprobs, b_adv, b_targets = logprobs.reshape(-1), advantages.reshape(-1), targets.reshape(-1)
        for _ in range(args.update_epochs):
            order = torch.randperm(rollout)
            for start in range(0, rollout, args.batch_size):
                batch = order[start:start + args.batch_size]
                dist = model.policy(b_obs[batch], b_masks[batch])
                ratio = (dist.log_prob(b_actions[batch]) - b_logprobs[batch]).exp()
                adv = b_adv[batch]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = -torch.min(ratio * adv, ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef) * adv).mean()
                value_loss = (model.value(b_obs[batch]) - b_targets[batch]).pow(2).mean()
                loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * dist.entropy().mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()

        # 4. report, snapshots for self-play, checkpoints
        if not quiet and (update % 10 == 0 or update == updates):
            recent = returns[-500:]
            mean = f"{np.mean(recent):+.3f}" if recent else "n/a"
            print(f"steps {steps:>10,}  steps/s {steps / (time.perf_counter() - started):>8,.0f}  "
                  f"mean return (last {len(recent)} episodes) {mean}", flush=True)
        if next_snapshot is not None and steps >= next_snapshot:
            next_snapshot += args.selfplay_every
            envs.unwrapped.add_snapshot(str(save_actor(model, args, out / "snapshots" / f"step_{steps}")))
        if next_checkpoint is not None and (steps >= next_checkpoint or update == updates):  # and the last
            next_checkpoint += args.checkpoint_every
            folder = save_actor(model, args, out / "checkpoints" / f"step_{steps}")
            if on_checkpoint is not None:
                on_checkpoint(steps, folder)
    envs.close()
    folder = save_actor(model, args, out / "model")
    write_run_record(out, args, steps, started)
    return folder


def parse_args(argv: list[str] | None = None) -> Args:
    """``Args`` from the command line: one ``--flag`` per field (lists comma separated)."""
    return parse_fields(Args, "python -m training.ppo", __doc__.splitlines()[0], argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    folder = train(args)
    report_model(folder, args.variant, args.num_players, args.opponents, args.eval_deals)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
