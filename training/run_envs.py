"""The envs and the model of a MaskablePPO run (:mod:`training.train`, :mod:`training.expert_iteration`):
the single-agent env's arguments, the SB3 VecEnv (dummy, subproc or batched) and the model, each from
the config's sections it reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .config import EnvSection, OpponentsSection, PolicySection, PPOSection, SelfPlaySection, TrainingSection


def env_kwargs(env: EnvSection, opponents: OpponentsSection, selfplay: SelfPlaySection) -> dict[str, Any]:
    """Keyword arguments of :class:`commerce_env.single_agent.CommerceEnv` for this run: the game,
    who sits at the other seats, and how many snapshots of self-play they may draw."""
    return dict(variant=env.variant, num_players=env.num_players, seat=env.seat,
                opponents=list(opponents.pool), opponent_weights=opponents.weights,
                snapshot_share=float(selfplay.snapshot_share), max_snapshots=selfplay.max_snapshots,
                features=list(env.features), end_when_out=env.end_when_out,
                illegal_action="raise",
                **env.rules)


def _make_env(kwargs: dict[str, Any]):
    def build():
        import torch

        torch.set_num_threads(1)
        from agents import make_agent
        from commerce_env.single_agent import CommerceEnv

        return CommerceEnv(resolver=make_agent, **kwargs)  # opponent specs resolved by agents
    return build


def make_vec_env(env: EnvSection, opponents: OpponentsSection, selfplay: SelfPlaySection,
                 training: TrainingSection, seed: int):
    """``training.n_envs`` copies of the env (:func:`env_kwargs`) in one process (``dummy``), one process
    each (``subproc``), or all in one batched engine (``batch``, :func:`training.vec_env.make_vec_env`).
    The opponents are a section apart: a run with a clone seats it in a pool of its own
    (:func:`training.train.with_clone`)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    if training.vec_env == "batch":
        from agents.batched import batched_agent
        from training.vec_env import first_compile_notice
        from training.vec_env import make_vec_env as batch_vec_env
        from training.warm_up import warm_up

        kwargs = env_kwargs(env, opponents, selfplay)
        del kwargs["illegal_action"]  # the batched env always raises
        # numba compiles (or loads) the kernels now, a line counting the seconds, before the run's clock starts
        warm_up(lambda: batch_vec_env(num_envs=2, seed=seed, resolver=batched_agent, **kwargs),
                first_compile_notice() or "Loading the batched engine (numba compiles what its cache lacks):")
        vec = VecMonitor(batch_vec_env(num_envs=training.n_envs, seed=seed, resolver=batched_agent, **kwargs))
    else:
        factories = [_make_env(env_kwargs(env, opponents, selfplay)) for _ in range(training.n_envs)]
        vec = DummyVecEnv(factories) if training.vec_env == "dummy" else SubprocVecEnv(factories,
                                                                                       start_method="spawn")
        vec.seed(seed)
        vec = VecMonitor(vec)
    if training.episode == "deal":
        from .deal_episodes import DealEpisodes  # outside the monitor, which logs whole matches

        vec = DealEpisodes(vec)
    return vec


# ---------------------------------------------------------------- train
def build_model(policy: PolicySection, ppo: PPOSection, vec_env: Any, out: Path, seed: int):
    """A fresh MaskablePPO on ``vec_env``: the ``policy`` section's network (its actor copied from
    ``policy.warm_start`` where it names a model), the ``ppo`` section's settings, TensorBoard's logs in
    ``out/tb``."""
    import torch.nn as nn
    from sb3_contrib import MaskablePPO

    activation = {"tanh": nn.Tanh, "relu": nn.ReLU}[policy.activation]
    kwargs = dict(net_arch=dict(pi=list(policy.net_arch), vf=list(policy.net_arch)), activation_fn=activation)
    model = MaskablePPO("MlpPolicy", vec_env, seed=seed, tensorboard_log=str(out / "tb"), verbose=0,
                        device="cpu", policy_kwargs=kwargs, **ppo.to_dict())
    if policy.warm_start is not None:
        warm_start(model.policy, policy.warm_start)
    return model


def warm_start(policy: Any, folder: str | Path) -> None:
    """Copy a safe model's network (its actor) into a MaskablePPO policy of the same shape; the value
    head keeps its fresh weights (a safe model has none)."""
    import torch
    import torch.nn as nn

    from agents.model_files import _layer_names, read_model

    weights, meta = read_model(folder)
    linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, nn.Linear)] + [policy.action_net]
    with torch.no_grad():
        for name, layer in zip(_layer_names(list(meta["network"]["hidden"])), linears, strict=True):
            layer.weight.copy_(torch.as_tensor(weights[f"{name}.weight"]))
            layer.bias.copy_(torch.as_tensor(weights[f"{name}.bias"]))
