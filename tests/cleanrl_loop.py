"""A plain-torch masked PPO in CleanRL's style on the vector env: what a researcher would write.

``python tests/cleanrl_loop.py`` runs three updates and prints a line; the tests run it in a
process where stable-baselines3 cannot be imported, to show the env needs none of it."""

from __future__ import annotations

import numpy as np


def run() -> tuple[bool, list[float]]:
    """Three PPO updates; returns whether the actor's weights moved and the match returns seen."""
    import gymnasium
    import torch
    from torch import nn

    import commerce_env

    torch.manual_seed(0)
    torch.set_num_threads(1)
    num_envs, num_steps = 16, 32
    envs = gymnasium.make_vec(commerce_env.GYM_ENV_ID, num_envs=num_envs, variant="trade_barter", num_players=3,
                              opponents=["greedy"])
    size = envs.single_observation_space["observation"].shape[0]
    actor = nn.Sequential(nn.Linear(size, 64), nn.Tanh(), nn.Linear(64, 27))
    critic = nn.Sequential(nn.Linear(size, 64), nn.Tanh(), nn.Linear(64, 1))
    optimizer = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=3e-4)
    before = [p.detach().clone() for p in actor.parameters()]

    def policy(obs: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
        return torch.distributions.Categorical(logits=actor(obs).masked_fill(~mask, -1e9))

    next_obs, _ = envs.reset(seed=0)
    returns_seen = []
    for _ in range(3):  # updates
        buffer = []
        for _ in range(num_steps):
            obs = torch.as_tensor(next_obs["observation"])
            mask = torch.as_tensor(next_obs["action_mask"]).bool()
            with torch.no_grad():
                dist = policy(obs, mask)
                action = dist.sample()
                value = critic(obs).squeeze(-1)
            next_obs, reward, terminated, truncated, infos = envs.step(action.numpy())
            done = torch.as_tensor(terminated | truncated, dtype=torch.float32)
            buffer.append((obs, mask, action, dist.log_prob(action), value, torch.as_tensor(reward).float(), done))
            if "final_info" in infos:
                returns_seen += infos["final_info"]["returns"][infos["final_info"]["_returns"]].tolist()
        with torch.no_grad():
            next_value = critic(torch.as_tensor(next_obs["observation"])).squeeze(-1)
        advantages, last = [], torch.zeros(num_envs)
        for _, _, _, _, value, reward, done in reversed(buffer):  # GAE, gamma 0.99, lambda 0.95
            delta = reward + 0.99 * next_value * (1 - done) - value
            last = delta + 0.99 * 0.95 * (1 - done) * last
            advantages.insert(0, last)
            next_value = value
        obs, mask, action, logp, value = (torch.cat([b[i] for b in buffer]) for i in range(5))
        advantage = torch.cat(advantages)
        ratio = (policy(obs, mask).log_prob(action) - logp).exp()
        norm = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        loss = -torch.min(ratio * norm, ratio.clamp(0.8, 1.2) * norm).mean() \
            + 0.5 * (critic(obs).squeeze(-1) - (advantage + value)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        assert torch.isfinite(loss)
    moved = any(not torch.equal(a, b) for a, b in zip(before, actor.parameters(), strict=True))
    return moved, returns_seen


if __name__ == "__main__":
    import sys

    for name in sys.argv[1:]:  # modules to make unimportable, e.g. stable_baselines3
        sys.modules[name] = None
    moved, returns = run()
    print(f"moved={moved} returns={len(returns)} finite={bool(np.isfinite(returns).all())}")


