"""IS-MCTS and an external-sampling MCCFR policy against our built-in agents, in the arena.

``python -m benchmarks.openspiel_arena [--iterations N] [--games G] [--ismcts-games G] [--out DIR]``

1. External-sampling MCCFR (OpenSpiel's) on a configuration small enough for
   a tabular method: trade and barter, 2 players, the 32-card pack, one deal,
   ``max_rounds=1``.  Its average policy is written as JSON and played through
   ``openspiel:policy:<file>`` against each built-in agent, head to head on
   duplicate deals.
2. IS-MCTS (``openspiel:ismcts``, random roll-outs) in the same configuration
   and in the 4-player trade and barter game with R12's defaults.

Prints one markdown table: each pairing's mean reward difference per deal
with its 95% bootstrap interval, and whether that interval excludes zero.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from agents.arena import MIN_GROUPS  # fewer duplicate groups: the bootstrap interval means little

SMALL = {"deck_size": 32, "max_rounds": 1}  # trade and barter, 2 players, deals=1 (R12's default)
BUILT_IN = ("random", "greedy", "expected_value", "search")


def train_mccfr(iterations: int, path: Path, seed: int = 0) -> tuple[float, int]:
    """Run external-sampling MCCFR and write its average policy; (seconds, information states)."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import external_sampling_mccfr

    import commerce_env.openspiel as cos
    from agents.openspiel import mccfr_table, save_policy

    game = pyspiel.load_game(cos.game_name("trade_barter"), {"players": 2, **SMALL})
    np.random.seed(seed)
    solver = external_sampling_mccfr.ExternalSamplingSolver(game)
    started = time.perf_counter()
    for _ in range(iterations):
        solver.iteration()
    seconds = time.perf_counter() - started
    table = mccfr_table(solver)
    save_policy(table, game, path)
    return seconds, len(table)


def head_to_head(ours: str, other: str, players: int, options: dict, games: int, seed: int) -> dict:
    from agents.arena import run_arena

    result = run_arena([ours, other], variant="trade_barter", num_players=players, options=options,
                       deals=games, seed=seed, progress=False)
    pair = next(p for p in result["pairwise"] if {p["a"], p["b"]} == {ours, other})
    sign = 1.0 if pair["a"] == ours else -1.0
    low, high = sorted(sign * x for x in pair["ci95"])
    return {"ours": ours, "other": other, "players": players, "games": result["games"], "groups": result["groups"],
            "mean": result["agents"][ours]["mean"], "other_mean": result["agents"][other]["mean"],
            "difference": sign * pair["mean_difference"], "ci95": [low, high], "seconds": result["seconds"]}


def verdict(row: dict) -> str:
    low, high = row["ci95"]
    if row["groups"] < MIN_GROUPS:
        return f"sample too small to mean anything ({row['groups']} duplicate groups)"
    if low > 0:
        return "better"
    if high < 0:
        return "worse"
    return "no difference shown (the interval holds 0)"


def table(rows: list[dict]) -> str:
    lines = ["| agent | against | players | games (groups) | agent's mean/deal | difference/deal [95% CI] | verdict |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        low, high = r["ci95"]
        lines.append(f"| {r['label']} | {r['other']} | {r['players']} | {r['games']} ({r['groups']}) | "
                     f"{r['mean']:+.3f} | {r['difference']:+.3f} [{low:+.3f}, {high:+.3f}] | {verdict(r)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2000, help="MCCFR iterations (default 2000)")
    parser.add_argument("--games", type=int, default=2000, help="games per MCCFR pairing (default 2000)")
    parser.add_argument("--ismcts-games", type=int, default=200, help="games per IS-MCTS pairing (default 200)")
    parser.add_argument("--simulations", type=int, default=50, help="IS-MCTS simulations per decision")
    parser.add_argument("--out", default="benchmarks/results", help="folder for the policy file")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "mccfr_trade_barter_2p_32.json"
    seconds, states = train_mccfr(args.iterations, path, args.seed)
    print(f"MCCFR: {args.iterations} iterations in {seconds:.0f} s, {states} information states -> {path}")

    rows = []
    policy = f"openspiel:policy:{path}"
    for other in BUILT_IN:
        row = head_to_head(policy, other, 2, SMALL, args.games, args.seed)
        rows.append({**row, "label": f"MCCFR ({args.iterations} it.)"})
        print(table(rows[-1:]).splitlines()[-1], flush=True)
    ismcts = f"openspiel:ismcts:simulations={args.simulations}"
    for players, options in ((2, SMALL), (4, {})):
        for other in ("random", "greedy"):
            row = head_to_head(ismcts, other, players, options, args.ismcts_games, args.seed)
            setting = "2p, 32 cards, max_rounds 1" if players == 2 else "4p, R12 defaults"
            rows.append({**row, "label": f"IS-MCTS ({args.simulations} sims, {setting})"})
            print(table(rows[-1:]).splitlines()[-1], flush=True)
    print()
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
