"""The small games solved exactly: ``python -m benchmarks.small_game``.

For each research-size game (:mod:`commerce_env.small_game`) it walks the whole tree, runs CFR+
(:mod:`agents.cfr`), measuring its average policy's exact NashConv along the way, and measures the
exact exploitability of ``random``, ``greedy``, ``expected_value`` and CFR's policy after
:data:`PARTLY` iterations (partly converged) and at the end.  It writes
``docs/benchmark/small_game.json`` (every figure), ``docs/benchmark/small_game_cfr.json`` (CFR's
curves) and ``docs/benchmark/small_game.md``, the section of docs/benchmark.md that
``python -m benchmarks.suite`` includes.  CFR's state is kept in ``--cache`` at each checkpoint, so
an interrupted run resumes where it stopped.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from agents.cfr import CFRPlus
from agents.exact import gains, policy_table
from agents.ground_truth import TARGET as TARGET_SHARE
from commerce_env.files import atomic_write
from commerce_env.game_tree import GameTree, build_tree
from commerce_env.small_game import SMALL_GAMES, small_game

ROOT = Path(__file__).resolve().parent.parent
CHECKPOINTS = (1, 2, 3, 5, 10, 20, 30, 50, 100, 200, 300, 500, 1000)  # where NashConv is measured
PARTLY = 10  # the iterations of "a partly converged CFR policy"
POLICIES = ("random", "greedy", "expected_value")
TARGET = 0.01  # NashConv below this share of the game's value range
LEARNED = "small_game_learned*.json"  # python -m training.exploit_small --output <out>/small_game_learned.json (a file
# per run: other PPO settings, say)
SEARCHED = "small_game_search*.json"  # the same with --method search (a file per run: one per game, say)


def solve(tree: GameTree, iterations: int, cache: Path) -> tuple[CFRPlus, list[dict[str, Any]], np.ndarray | None]:
    """CFR+ to ``iterations``, resuming from ``cache``; its curve and its average after :data:`PARTLY`."""
    solver = CFRPlus(tree)
    state, curve_file, partly_file = cache / "cfr.npz", cache / "curve.json", cache / "partly.npy"
    curve: list[dict[str, Any]] = []
    if state.is_file() and curve_file.is_file():
        solver.load(state)
        curve = [point for point in json.loads(curve_file.read_text()) if point["iterations"] <= solver.iterations]
    started = time.perf_counter() - (curve[-1]["seconds"] if curve else 0.0)
    for checkpoint in [c for c in CHECKPOINTS if solver.iterations < c <= iterations]:
        solver.run(checkpoint - solver.iterations)
        seconds = time.perf_counter() - started
        average = solver.average()
        curve.append({"iterations": solver.iterations, "nash_conv": gains(tree, average)["nash_conv"],
                      "seconds": round(seconds, 1)})
        if checkpoint == PARTLY:
            atomic_write(partly_file, lambda handle, table=average: np.save(handle, table))
        solver.save(state)
        atomic_write(curve_file, json.dumps(curve))
        print(f"  CFR+ {solver.iterations}: NashConv {curve[-1]['nash_conv']:.5f} ({seconds:.0f} s)", flush=True)
    return solver, curve, np.load(partly_file) if partly_file.is_file() else None


def run_variant(variant: str, iterations: int, cache: Path) -> dict[str, Any]:
    game = small_game(variant)
    print(f"{game.name}: walking the tree", flush=True)
    started = time.perf_counter()
    tree = build_tree(game)
    print(f"  {tree.num_nodes:,} nodes ({time.perf_counter() - started:.0f} s)", flush=True)
    cache.mkdir(parents=True, exist_ok=True)
    solver, curve, partly = solve(tree, iterations, cache)
    span = tree.value_range()
    below = next((p["iterations"] for p in curve if p["nash_conv"] < TARGET * span), None)
    policies: dict[str, Any] = {}
    for name in POLICIES:
        started = time.perf_counter()
        policies[name] = gains(tree, policy_table(tree, name))
        print(f"  {name}: exploitability {policies[name]['exploitability']:.4f} "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
    if partly is not None:
        policies[f"cfr+ ({PARTLY} iterations)"] = gains(tree, partly)
    policies[f"cfr+ ({solver.iterations} iterations)"] = gains(tree, solver.average())
    return {"variant": variant, "game": game.name, "deck": list(map(str, _cards(game.pack))),
            "num_players": game.num_players, "max_rounds": game.max_rounds, "deals": len(tree.deals),
            "nodes": tree.num_nodes, "information_states": tree.num_infosets, "value_range": span,
            "cfr_iterations": solver.iterations, "cfr_below_one_percent_at": below,
            "cfr_curve": [{"iterations": p["iterations"], "nash_conv": p["nash_conv"]} for p in curve],
            "policies": policies}


def _cards(cards: Any) -> list[str]:
    from commerce_env.cards import CARDS

    return [str(CARDS[c]) for c in cards]


def markdown(results: list[dict[str, Any]], command: str, learned: dict[str, Any] | None = None,
             searched: dict[str, Any] | None = None) -> str:
    """The section of docs/benchmark.md; ``learned`` and ``searched``: ``python -m training.exploit_small``'s
    reports (learned and ``--method search``), if made."""
    lines = ["## Exploitability: a small game solved exactly", "",
             "Exploitability is what a best response gains against a policy. In the full games it can only be "
             "bounded from below (a learned or a search best response finds *a* deviation); in a game small "
             "enough to walk whole it is exact, and it is the yardstick those bounds are checked against. "
             "The research-size games (`commerce_env.small_game`, not rule options) keep every decision of "
             "their variant: two players, one round, one deal, and a research pack, a few cards of the 52-card "
             "pack listed below (hands valued by R2 unchanged). Chance deals whole hands at once (the widow's three "
             "cards as a set, listed in card order); a card drawn for ready money is chance's when it is drawn. "
             "Returns are per deal; seat 0 deals, seat 1 is the eldest hand. 'Best response's gain as dealer' is "
             "what a best response sitting as the dealer gains over the policy in that seat, the policy playing "
             "the other seat.", "",
             f"Made by `{command}` (CFR+ state cached, so a run resumes).", ""]
    for result in results:
        span = result["value_range"]
        lines += [f"### {result['variant']}", "",
                  f"{result['game']}: pack {' '.join(result['deck'])}; {result['deals']:,} deals, "
                  f"{result['nodes']:,} nodes, {result['information_states']:,} information states, returns "
                  f"spread over {span:g} counters.", "",
                  "| policy | its return as dealer | as eldest | best response's gain as dealer | as eldest | "
                  "exploitability (mean gain per deal) | NashConv | NashConv / value range |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for name, row in result["policies"].items():
            dealer, eldest = row["seats"]
            lines.append(f"| {name} | {dealer['policy']:+.3f} | {eldest['policy']:+.3f} | {dealer['gain']:.3f} | "
                         f"{eldest['gain']:.3f} | {row['exploitability']:.4f} | {row['nash_conv']:.4f} | "
                         f"{row['nash_conv'] / span:.2%} |")
        at = result["cfr_below_one_percent_at"]
        lines += ["", f"CFR+'s average policy: NashConv below 1% of the value range after {at} iterations." if at
                  else "CFR+ did not reach 1% of the value range in this run.", "",
                  "| CFR+ iterations | NashConv | NashConv / value range |", "|---:|---:|---:|"]
        for point in result["cfr_curve"]:
            lines.append(f"| {point['iterations']} | {point['nash_conv']:.5f} | {point['nash_conv'] / span:.3%} |")
        lines.append("")
    if learned:
        from .exploit_table import ppo_flags

        lines += ["### A learned best response checked against the exact one", "",
                  "`commerce exploit`'s learner (MaskablePPO with its network and PPO settings, in a rotating seat "
                  "against the policy in the other), trained on the small game and then measured exactly: its "
                  "greedy action at every information state of its seat, over the whole tree, against the "
                  f"policy. The target is {TARGET_SHARE:.0%} of the exact best response's gain. The learner plays "
                  "from the env's observation, which does not tell apart every pair of states its seat can (the "
                  "card it drew for ready money, for one, R11): *from the observation* is what a responder "
                  "playing from that observation reaches (a local optimum over the whole tree, "
                  "`agents.exact.grouped_best_response`), the share of the exact gain the observation leaves "
                  f"within reach. Made by {learned['command']}.", "",
                  "| game | policy | learner's PPO settings | exact best response's gain | from the observation | "
                  "learned | learned / exact | as dealer | as eldest | env steps |",
                  "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for report in learned["reports"]:
            ceiling = report.get("observation_gain")
            reach = f"{ceiling:.4f} ({ceiling / report['exact_gain']:.0%})" if ceiling is not None else "-"
            seats = [f"{mine:.3f} of {best:.3f}" for mine, best in
                     zip(report["curve"][-1]["seats"], report["exact_seats"], strict=True)]
            lines.append(f"| {report['variant']} | {report['agent']} | {ppo_flags(_changed(report))} | "
                         f"{report['exact_gain']:.4f} | {reach} | {report['learned_gain']:.4f} | "
                         f"{report['share']:.0%} | {seats[0]} | {seats[1]} | {report['steps']:,} |")
        today = [report for report in learned["reports"] if not _changed(report)]
        lines += ["", f"With its default settings the learned best response reaches {TARGET_SHARE:.0%} of the exact "
                  f"gain against {_which(today, True)}. It falls short against {_which(today, False)}; a negative "
                  "gain is a learner that does worse in a seat than the policy itself.", ""]
    if searched:
        lines += ["### A search best response checked against the exact one", "",
                  "The search best response (`commerce exploit --method search`: `search` in one seat, its worlds "
                  "weighted by how likely the policy's choices were in each, its rollouts playing the policy in the "
                  "other seat and, for its own later moves, greedy or the policy too: `--continuation agent`), "
                  "measured exactly: its choice at every information state of "
                  "its seat, over the whole tree, against the policy. It needs no training; it plays from the seat "
                  f"view, which tells apart every state its seat can. Made by {searched['command']}.", "",
                  "| game | policy | its own later moves | exact best response's gain | search | search / exact | "
                  "as dealer | as eldest | worlds | ms a decision |",
                  "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"]
        for report in searched["reports"]:
            seats = [f"{mine:.3f} of {best:.3f}" for mine, best in
                     zip(report["seats"], report["exact_seats"], strict=True)]
            lines.append(f"| {report['variant']} | {report['agent']} | {report.get('continuation', 'greedy')} | "
                         f"{report['exact_gain']:.4f} | {report['search_gain']:.4f} | {report['share']:.0%} | "
                         f"{seats[0]} | {seats[1]} | {report['worlds']} | {report['ms_per_decision']:.1f} |")
        lines += ["", f"The search best response reaches {TARGET_SHARE:.0%} of the exact gain against "
                  f"{_which(searched['reports'], True)}. It falls short against "
                  f"{_which(searched['reports'], False)}.", ""]
    lines += ["The curves are in [small_game_cfr.json](small_game_cfr.json), every figure in "
              "[small_game.json](small_game.json). `agents.ground_truth.exact_gain(policy, variant)` "
              "gives the exact best response's gain against any policy, to check a learned or search best "
              "response against (docs/openspiel.md: OpenSpiel's own algorithms run on these games too).", ""]
    return "\n".join(lines)


def _changed(report: dict[str, Any]) -> list[str]:
    """A learned row's ``--ppo`` pairs: where its learner's settings differ from today's defaults."""
    from training.exploit_command import ppo_pairs
    from training.exploit_small import learner_ppo

    return ppo_pairs(report["settings"]["ppo"], learner_ppo(report["variant"]))


def _which(reports: list[dict[str, Any]], reached: bool) -> str:
    """The policies whose best response reached (or not) the target share, by game (a search best response
    whose own later moves are the policy's says so)."""
    by_game: dict[str, list[str]] = {}
    named = [(r["variant"], r["agent"], r.get("continuation")) for r in reports]
    for report, name in zip(reports, named, strict=True):
        if (report["share"] >= TARGET_SHARE) == reached:
            agent = report["agent"] + (" (`--continuation agent`)" if report.get("continuation") == "agent" else "")
            if named.count(name) > 1 and "steps" in report:  # the same policy at two budgets: say which
                agent += f" ({report['steps']:,} steps)"
            by_game.setdefault(report["variant"], []).append(agent)
    return "; ".join(f"{game}: {', '.join(agents)}" for game, agents in by_game.items()) or "none"


def _saved(out: Path, pattern: str) -> dict[str, Any] | None:
    """The reports of every file of ``out`` that ``pattern`` names, in name order, and their commands (as
    Markdown: each in backticks)."""
    saved = [json.loads(path.read_text()) for path in sorted(out.glob(pattern))]
    if not saved:
        return None
    return {"command": ", ".join(_made_by(s) for s in saved), "reports": [r for s in saved for r in s["reports"]]}


def _made_by(saved: dict[str, Any]) -> str:
    """A file's command, and what it holds where the command was stopped before its last policy."""
    words = saved["command"].split()
    asked = [len(words[words.index(flag) + 1].split(",")) if flag in words else 1
             for flag in ("--agents", "--variants")]
    held = [report["agent"] for report in saved["reports"]]
    made = f"`{saved['command']}`"
    if len(held) >= asked[0] * asked[1]:
        return made
    return f"{made} (stopped after {len(held)} of {asked[0] * asked[1]}: {', '.join(held)})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.small_game", description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", nargs="+", default=list(SMALL_GAMES), choices=list(SMALL_GAMES))
    parser.add_argument("--iterations", type=int, default=300, help="CFR+ iterations (default 300)")
    parser.add_argument("--cache", default="runs/small_game", help="CFR+'s state, to resume (default runs/small_game)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "benchmark"))
    parser.add_argument("--write-only", action="store_true", help="solve nothing: rewrite small_game.md from "
                        "the saved small_game.json")
    args = parser.parse_args(argv)
    if not 1 <= args.iterations <= 100_000:
        parser.error(f"--iterations must be from 1 to 100000, got {args.iterations}")
    out = Path(args.out)
    if args.write_only:
        if not (out / "small_game.json").is_file():
            parser.error(f"--write-only: no {out / 'small_game.json'} to write from")
        saved = json.loads((out / "small_game.json").read_text())
        atomic_write(out / "small_game.md", markdown(saved["results"], saved["command"], _saved(out, LEARNED),
                                                     _saved(out, SEARCHED)))
        return 0
    command = "python -m benchmarks.small_game" + (f" --iterations {args.iterations}" if args.iterations != 300 else "")
    results = [run_variant(v, args.iterations, Path(args.cache) / v) for v in args.variants]
    out.mkdir(parents=True, exist_ok=True)
    atomic_write(out / "small_game.json", json.dumps({"command": command, "results": results}, indent=2) + "\n")
    curves = {r["variant"]: {"value_range": r["value_range"], "curve": r["cfr_curve"]} for r in results}
    atomic_write(out / "small_game_cfr.json", json.dumps(curves, indent=2) + "\n")
    atomic_write(out / "small_game.md", markdown(results, command, _saved(out, LEARNED), _saved(out, SEARCHED)))
    print(f"wrote {out / 'small_game.json'}, small_game_cfr.json and small_game.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
