"""NFSP (Heinrich & Silver, 2016) on the pyspiel game: OpenSpiel's PyTorch NFSP, every seat learning.

    python -m training.nfsp --variant widow --total-timesteps 1000000 --output runs/nfsp_widow

Each seat is one OpenSpiel ``NFSP`` agent: a DQN best response to the others'
average policies and a network of its own average policy, trained by
supervised learning on its best response's choices.  The episodes are single
deals of the pyspiel game (``python_commerce_<variant>``, extra ``openspiel``)
through ``open_spiel.python.rl_environment``, the dealer drawn at random for
each deal so that every seat's agent plays every position.  The networks read
the observation tensor, which is the AEC env's observation
(:mod:`commerce_env.openspiel.observer`), so seat 0's average policy is saved
in the safe model format (``agents.save_policy``, no extra features) and plays
as ``model:<output>/model`` everywhere a model does, choosing its most likely
legal action.  An env step is one decision of any seat.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from commerce_env.rules import DEFAULT_PLAYERS, DEFAULT_VARIANT
from training.single_file import parse_fields, report_model, write_run_record


@dataclass
class Args:
    variant: str = DEFAULT_VARIANT
    """the game"""
    num_players: int = DEFAULT_PLAYERS
    """players at the table (each an NFSP agent)"""
    seed: int = 0
    """the seed of the deals, the dealers and the networks"""
    total_timesteps: int = 1_000_000
    """env steps (decisions of any seat) in all"""
    hidden: list[int] = field(default_factory=lambda: [128, 128])
    """hidden layers of both networks of each agent"""
    replay_buffer_capacity: int = 200_000
    """transitions of the best response's DQN"""
    reservoir_buffer_capacity: int = 2_000_000
    """(state, best-response action) pairs kept for the average policy"""
    anticipatory_param: float = 0.1
    """share of deals an agent plays its best response (else its average policy)"""
    batch_size: int = 128
    """minibatch of both learners"""
    rl_learning_rate: float = 0.01
    """SGD step of the DQN"""
    sl_learning_rate: float = 0.01
    """SGD step of the average policy"""
    learn_every: int = 64
    """an agent's own steps between its updates"""
    min_buffer_size_to_learn: int = 1000
    """transitions before the first update"""
    epsilon_decay_duration: int = 1_000_000
    """an agent's own steps over which its DQN's exploration decays"""
    checkpoint_every: int = 0
    """every this many steps seat 0's average policy is saved in <output>/checkpoints/step_<n> (0: never)"""
    eval_deals: int = 1000
    """duplicate deals of the final evaluation against greedy (0: none)"""
    output: str = "runs/nfsp"
    """where the model (and checkpoints) go"""
    threads: int = 1
    """torch threads"""


def turn_environment(game, seed: int):
    """OpenSpiel's ``rl_environment.Environment`` over ``game`` that observes only the player to move (every
    player at the deal's end) and draws chance's cards with Python's generator: NFSP reads no other
    player's observation mid-deal, and observing all four at every step and numpy's ``choice`` for each of
    a deal's fifty-odd chance draws were a third of the run.  The time steps are otherwise the same."""
    import random

    from open_spiel.python import rl_environment

    draws = random.Random(seed)

    def chance(state) -> int:
        actions, probabilities = zip(*state.chance_outcomes(), strict=True)
        return draws.choices(actions, probabilities)[0]

    class Environment(rl_environment.Environment):
        def get_time_step(self, step_type=None):
            state = self._state
            if state.is_terminal():
                return super().get_time_step()
            player = state.current_player()
            info, legal = [[] for _ in range(self.num_players)], [[] for _ in range(self.num_players)]
            info[player], legal[player] = state.observation_tensor(player), state.legal_actions(player)
            return rl_environment.TimeStep(
                observations={"info_state": info, "legal_actions": legal, "current_player": player,
                              "serialized_state": []},
                rewards=None if step_type is not None else list(state.rewards()),
                discounts=None if step_type is not None else self._discounts,
                step_type=step_type or rl_environment.StepType.MID)

        def reset(self):
            self._should_reset = False
            self._state = self._game.new_initial_state()
            self._sample_external_events()
            return self.get_time_step(rl_environment.StepType.FIRST)

    return Environment(game, observation_type=rl_environment.ObservationType.OBSERVATION, chance_event_sampler=chance)


def average_policy(agent) -> torch.nn.Sequential:
    """An NFSP agent's average-policy network as a flat ``Sequential`` (what ``agents.save_policy`` takes)."""
    return torch.nn.Sequential(*(m for m in agent._avg_network.modules()
                                 if isinstance(m, (torch.nn.Linear, torch.nn.ReLU))))


def save_average(agent, args: Args, folder: Path) -> Path:
    """Seat 0's average policy in the safe model format."""
    from agents import save_policy

    return save_policy(folder, average_policy(agent), variant=args.variant, num_players=args.num_players)


def train(args: Args, on_checkpoint: Callable[[int, Path], None] | None = None, quiet: bool = False) -> Path:
    """Train; returns the folder of the final model.  ``on_checkpoint(steps, folder)`` is called after
    each checkpoint is saved (``args.checkpoint_every``); ``quiet``: no progress lines."""
    import pyspiel
    from open_spiel.python.pytorch import nfsp

    import commerce_env.openspiel  # noqa: F401 - registers python_commerce_<variant>

    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    out = Path(args.output)
    name = f"python_commerce_{args.variant}"
    envs = [turn_environment(pyspiel.load_game(name, {"players": args.num_players, "dealer": dealer}),
                             args.seed + dealer) for dealer in range(args.num_players)]
    size = envs[0].observation_spec()["info_state"][0]
    actions = envs[0].action_spec()["num_actions"]
    agents = [nfsp.NFSP(seat, size, actions, list(args.hidden), args.reservoir_buffer_capacity,
                        args.anticipatory_param, batch_size=args.batch_size, rl_learning_rate=args.rl_learning_rate,
                        sl_learning_rate=args.sl_learning_rate, min_buffer_size_to_learn=args.min_buffer_size_to_learn,
                        learn_every=args.learn_every, replay_buffer_capacity=args.replay_buffer_capacity,
                        epsilon_decay_duration=args.epsilon_decay_duration, seed=args.seed * 100 + seat)
              for seat in range(args.num_players)]

    next_checkpoint = args.checkpoint_every or None
    started, steps, report_at, returns = time.perf_counter(), 0, 0, []
    while steps < args.total_timesteps:
        env = envs[int(rng.integers(args.num_players))]  # a random dealer: every agent plays every position
        time_step = env.reset()
        while not time_step.last():
            seat = time_step.observations["current_player"]
            time_step = env.step([agents[seat].step(time_step).action])
            steps += 1
        for agent in agents:  # every agent sees the deal's end (its reward, and a new episode's policy)
            agent.step(time_step)
        returns.append(time_step.rewards[0])
        if not quiet and (steps - report_at >= 50_000 or steps >= args.total_timesteps):
            report_at = steps
            print(f"steps {steps:>10,}  steps/s {steps / (time.perf_counter() - started):>7,.0f}  seat 0's mean "
                  f"return (last 1000 deals) {np.mean(returns[-1000:]):+.3f}", flush=True)
        if next_checkpoint is not None and (steps >= next_checkpoint or steps >= args.total_timesteps):
            while next_checkpoint <= steps:
                next_checkpoint += args.checkpoint_every
            folder = save_average(agents[0], args, out / "checkpoints" / f"step_{steps}")
            if on_checkpoint is not None:
                on_checkpoint(steps, folder)
    folder = save_average(agents[0], args, out / "model")
    write_run_record(out, args, steps, started)
    return folder


def main(argv: list[str] | None = None) -> int:
    args = parse_fields(Args, "python -m training.nfsp", __doc__.splitlines()[0], argv)
    folder = train(args)
    report_model(folder, args.variant, args.num_players, ["greedy"], args.eval_deals)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
