"""The benchmark table researchers cite: ``python -m benchmarks.suite`` writes docs/benchmark.md.

For each variant (4 players, the R12 defaults of docs/rules.md):

1. **Built-in agents, one round-robin**: ``search``, ``expected_value``,
   ``greedy`` and ``random`` at one table, every seating of every duplicate
   group (:mod:`agents.arena`): mean reward per deal with 95% bootstrap CIs,
   pairwise differences with p-values, a plot.
2. **The shipped model** (``models/<variant>/``, if there is one) against each
   built-in agent in the arena's standard lineup: the model in one seat, the
   opponent in the others, every seating; its margin over each, with 95% and
   99% intervals and p-values.

``--quick`` plays few games (minutes in all; the report then says the sample is
too small to mean anything).  Everything is reproducible from ``--seed``; the
report records the exact command, the seed and the versions.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from commerce_env.rules import VARIANTS

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = ROOT / "docs" / "benchmark"  # the reports docs/benchmark.md and the README's headline are made from
QUICK_OUT = Path("runs") / "benchmark_quick"
BUILT_IN = ("search", "expected_value", "greedy", "random")
PLAYERS = 4
BENCHMARK_SEED = 1  # the arena's seed of the page's games (--seed)
FULL = {"table_games": 4800, "model_games": 20000, "match_games": 2000}
QUICK = {"table_games": 240, "model_games": 96, "match_games": 48}


def model_folder(variant: str, models: Path) -> Path | None:
    """The shipped model of ``variant``, if there is one (``models/<variant>/model.json``)."""
    folder = models / variant
    return folder if (folder / "model.json").is_file() else None


def plays_matches(variant: str) -> bool:
    """Whether a game of the variant's defaults is a whole match (R4.5), not one deal."""
    from commerce_env.rules import make_rules

    return make_rules(variant).deals != 1


def table_round_robin(variant: str, games: int, seed: int, workers: int, out: Path) -> dict[str, Any]:
    """The built-in agents at one table (section 1)."""
    from agents.arena import run_arena

    return run_arena(list(BUILT_IN), variant=variant, num_players=PLAYERS, games=games, seed=seed,
                     workers=workers, out_dir=out / variant / "built_in", overwrite=True, progress=False)


def model_versus(variant: str, folder: Path, games: int, seed: int, workers: int, out: Path) -> dict[str, Any]:
    """The shipped model against each built-in agent, standard lineup (section 2)."""
    from agents.arena import write_outputs
    from agents.evaluate import evaluate_agent

    spec = f"model:{folder}"
    rows = {}
    for opponent in BUILT_IN:
        report = evaluate_agent(spec, [opponent], variant=variant, num_players=PLAYERS, deals=games,
                                seed=seed, workers=workers)
        result = report["result"]
        saved = {**result, "agents": {n: {k: v for k, v in a.items() if k not in ("group_means", "group_deals")}
                                      for n, a in result["agents"].items()}}  # thousands of groups
        write_outputs(portable(saved), out / variant / f"model_vs_{opponent}")
        versus = report["vs"][opponent]
        rows[opponent] = {"difference": versus["difference"], "ci95": versus["ci95"],
                          "ci99": versus["ci99"],
                          "p_value": versus["p_value"], "games": result["games"], "groups": result["groups"],
                          "warnings": result["warnings"]}
    return rows


def versions() -> dict[str, str]:
    """The versions of what played (no platform string: the page describes the code, not a machine)."""
    out = {"python": platform.python_version()}
    for name in ("commerce-rl", "numpy", "torch", "stable-baselines3", "sb3-contrib"):
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def portable(value: Any) -> Any:
    """``value`` as the saved results keep it: the repository's own path taken out of every string (a
    model is ``model:models/widow`` wherever the repository was checked out) and no ``commit`` key (the
    versions of the packages say what played; the repository's history says when)."""
    if isinstance(value, str):
        return value.replace(f"{ROOT}{os.sep}", "")
    if isinstance(value, dict):
        return {portable(k): portable(v) for k, v in value.items() if k != "commit"}
    if isinstance(value, list):
        return [portable(v) for v in value]
    return value


def required_games(variant: str) -> int:
    """The sample the model's claim needs: 20,000 duplicate deals, or 2,000 matches."""
    return FULL["match_games"] if plays_matches(variant) else FULL["model_games"]


def beats_every_agent(variant: str, model: dict[str, Any]) -> bool:
    """The model's claim: its 99% interval over every built-in agent lies above zero, on the full sample."""
    return all(row["ci99"][0] > 0 and row["games"] >= required_games(variant) for row in model.values())


def exploitability(variant: str, agent: str | Sequence[str], folder: Path = PUBLISHED / "exploit") -> str:
    """The largest best-response margin (a lower bound on exploitability) of ``agent`` in ``variant``
    among the exploitability table's rows (``python -m benchmarks.exploit_table``), as a cell; with
    several names (one policy under two names), the largest over them all."""
    names = {agent} if isinstance(agent, str) else set(agent)
    rows = [json.loads(path.read_text()) for path in sorted(folder.glob("*__*.json"))]
    rows = [r for r in rows if r.get("variant") == variant and r.get("agent") in names]
    if not rows:
        return "not measured"
    best = max(rows, key=lambda r: (r["ci95"][0], r["margin"]))  # the bound surest to be above 0
    low, high = best["ci95"]
    found = f"{best['margin']:+.3f} [{low:+.3f}, {high:+.3f}], {best.get('method', 'learned')} best response"
    return found if low > 0 else f"none found ({found})"


def shipped_names(variant: str, models: Path = ROOT / "models") -> list[str]:
    """The names the shipped model of ``variant`` plays under: ``model:models/<variant>``, and where it
    ships without test-time search, its network alone's too (the same policy)."""
    names = [f"model:models/{variant}"]
    try:
        searches = json.loads((models / variant / "model.json").read_text()).get("search") is not None
    except (OSError, ValueError):
        searches = True
    return names if searches else [*names, f"model:models/{variant}(search=false)"]


def headline(sections: dict[str, dict[str, Any]]) -> list[str]:
    """The headline table: each variant's best built-in agent, the shipped model's margin over it, and
    how much a best response gains against the shipped model and against ``search`` (lower bounds on
    their exploitability)."""
    lines = ["| variant | best built-in agent | its mean per deal (95% CI) | "
             "shipped model's margin over it (95% CI) | 99% CI | p | games | model beats every built-in "
             "agent at 99% | a best response's gain against the shipped model (95% CI) | against `search` |",
             "|---|---|---:|---:|---|---:|---:|---|---|---|"]
    for variant, section in sections.items():
        table = section["built_in"]
        best = max(table["agents"], key=lambda n: table["agents"][n]["mean"])
        a = table["agents"][best]
        model = section.get("model")
        if model:
            row = model[best]
            cells = [f"{row['difference']:+.3f} [{row['ci95'][0]:+.3f}, {row['ci95'][1]:+.3f}]",
                     f"[{row['ci99'][0]:+.3f}, {row['ci99'][1]:+.3f}]", f"{row['p_value']:.2g}", str(row["games"]),
                     "yes" if beats_every_agent(variant, model) else
                     ("no" if any(r["ci99"][0] <= 0 for r in model.values()) else
                      f"not shown: fewer than {required_games(variant)} games")]
        else:
            cells = ["no shipped model", "", "", "", ""]
        cells += [exploitability(variant, shipped_names(variant)), exploitability(variant, "search")]
        lines.append(f"| {variant} | {best} | {a['mean']:+.3f} [{a['ci95'][0]:+.3f}, {a['ci95'][1]:+.3f}] | "
                     + " | ".join(cells) + " |")
    return lines


def verdict(variant: str, row: dict[str, Any]) -> str:
    """What one model-against-agent row shows at 99%, and what it lacks for the claim."""
    low, high = row["ci99"]
    needed = required_games(variant)
    if high < 0:
        shown = "behind at 99%"
    elif low <= 0:
        shown = "level at 99% (the interval holds 0)"
    else:
        shown = "ahead at 99%"
    if row["games"] < needed:
        shown += f"; {row['games']} of the {needed} games the claim needs"
    return shown


def shortfalls(sections: dict[str, dict[str, Any]]) -> list[str]:
    """Where a shipped model misses the claim: every opponent it does not beat at 99% on the full
    sample, by how much (the margin and its 99% interval), and why (behind, level, or too few games)."""
    lines = ["| variant | opponent | model - opponent per deal | 99% CI | games | what it shows |",
             "|---|---|---:|---|---:|---|"]
    for variant, section in sections.items():
        model = section.get("model")
        if not model:
            lines.append(f"| {variant} | every agent | | | | no shipped model |")
            continue
        for opponent, row in model.items():
            if row["ci99"][0] > 0 and row["games"] >= required_games(variant):
                continue
            lines.append(f"| {variant} | {opponent} | {row['difference']:+.3f} | [{row['ci99'][0]:+.3f}, "
                         f"{row['ci99'][1]:+.3f}] | {row['games']} | {verdict(variant, row)} |")
    if len(lines) == 2:
        return []  # the headline's last column already says so
    return ["## Where the models fall short", "", *lines, "",
            "What was tried for each variant, and what it gave, is in docs/findings.md."]


def markdown(sections: dict[str, dict[str, Any]], out: Path, docs: Path) -> str:
    """docs/benchmark.md: the headline, then one section per variant (paths relative to ``docs``)."""
    def link(*parts: str) -> str:
        return os.path.relpath(out.joinpath(*parts), docs)

    lines = ["# Benchmark: every variant, every built-in agent and the shipped models", "",
             "Rules: docs/rules.md, R12 defaults, 4 players. A *game* is one deal for trade and barter "
             "and the old game, one whole match otherwise; rewards are per deal (counters, or money in "
             "pool commerce). Intervals are bootstrap intervals over duplicate groups (docs/arena.md). "
             "Each variant's section says the command that made it, its seed and the versions; "
             "`python -m benchmarks.suite` makes them all (`--variants` some).", ""]
    lines += ["## Headline", "", *headline(sections), "",
              "The last two columns are lower bounds on exploitability: the largest margin per deal that a best "
              "response (a learned one, or `search` whose rollouts play the agent, the section 'Exploitability: "
              "how much a best response gains' below) took from the agent in its seat, the row whose 95% interval "
              "starts highest. 'None found': no responder's interval lies above 0 (the bound is then 0, which says "
              "nothing of "
              "how exploitable the agent is). Against `search`, and against a model with its test-time search, "
              "the search best response models the agent by a faster policy (`greedy`, the network alone) and "
              "plays against the agent itself."]
    short = shortfalls(sections)
    lines += ["", *short] if short else []
    for variant, section in sections.items():
        table = section["built_in"]
        lines += ["", f"## {variant}", "", f"Made by `{section['command']}` (seed {section['seed']}"
                  f"{'; quick: samples too small to mean anything' if section['quick'] else ''}; "
                  f"{section['seconds']:.0f} s). Versions: " + _versions(section["versions"]) + ".", ""]
        if "built_in_made" in section:
            lines += [kept_part(section["built_in_made"], section["versions"], "The built-in table is the one",
                                "the model", f"--variants {variant} --table-only"), ""]
        if "model_made" in section:
            lines += [kept_part(section["model_made"], section["versions"], "The shipped model's games are the ones",
                                "the built-in table", f"--variants {variant} --model-only"), ""]
        lines += [f"Built-in agents at one table: {table['games']} games in "
                  f"{table['groups']} duplicate groups ({table['deals_played']} deals), "
                  f"[full report]({link(variant, 'built_in', 'report.md')}).", ""]
        lines += [f"**Warning:** {w}.\n" for w in table["warnings"]]
        lines += ["| rank | agent | mean per deal | 95% CI |", "|---:|---|---:|---|"]
        ranked = sorted(table["agents"], key=lambda n: -table["agents"][n]["mean"])
        for rank, name in enumerate(ranked, 1):
            a = table["agents"][name]
            lines.append(f"| {rank} | {name} | {a['mean']:+.3f} | [{a['ci95'][0]:+.3f}, {a['ci95'][1]:+.3f}] |")
        lines += ["", "| A | B | mean(A - B) per deal | 95% CI | p |", "|---|---|---:|---|---:|"]
        for pair in table["pairwise"]:
            lines.append(f"| {pair['a']} | {pair['b']} | {pair['mean_difference']:+.3f} | "
                         f"[{pair['ci95'][0]:+.3f}, {pair['ci95'][1]:+.3f}] | {pair['p_value']:.2g} |")
        lines += ["", f"![{variant}]({link(variant, 'built_in', 'mean_reward.png')})"]
        model = section.get("model")
        if model:
            played = section.get("model_file")
            steps = played and played.get("trained_steps")
            which = (f" (run `{played['run']}`, {f'{steps:,}' if isinstance(steps, int) else 'unknown'} steps, "
                     f"weights sha256 `{str(played['weights_sha256'])[:12]}`)") if played else ""
            search = played and played.get("search")
            if search:  # model.json's test-time search (docs/training.md, "Test-time search")
                from agents.search import SearchAgent

                default_worlds = SearchAgent().worlds
                budget = ""
                if search["worlds"] != default_worlds:  # say plainly when it outspends the baseline
                    budget = (f"; the built-in `search` samples {default_worlds} worlds per decision, so the "
                              f"model's search does {search['worlds'] / default_worlds:g} times its rollouts")
                which += (f", playing with test-time search (`search` with the network as its prior, "
                          f"{search['worlds']} worlds, margin {search['margin']}{budget}),")
            lines += ["", f"Shipped model `models/{variant}`{which} against each built-in agent (model in one seat, "
                      "the opponent in the others, every seating):", "",
                      "| opponent | model - opponent per deal | 95% CI | 99% CI | p | games |",
                      "|---|---:|---|---|---:|---:|"]
            for opponent, row in model.items():
                lines.append(f"| {opponent} | {row['difference']:+.3f} | [{row['ci95'][0]:+.3f}, "
                             f"{row['ci95'][1]:+.3f}] | [{row['ci99'][0]:+.3f}, {row['ci99'][1]:+.3f}] | "
                             f"{row['p_value']:.2g} | {row['games']} |")
            short = [o for o, row in model.items() if row["games"] < required_games(variant)]
            if short:
                lines += ["", f"**Sample:** fewer than {required_games(variant)} games against "
                          f"{', '.join(short)}: too few for the 99%-over-{required_games(variant)} claim."]
        else:
            lines += ["", f"No shipped model in `models/{variant}/` yet."]
        seeds = out / variant / "seeds" / "seeds.md"
        if seeds.is_file():
            text = seeds.read_text().replace("](training.png)", f"]({link(variant, 'seeds', 'training.png')})")
            lines += ["", f"### {variant}: training seeds", "", text.rstrip()]
    small = out / "small_game.md"  # python -m benchmarks.small_game: the small games solved exactly
    if small.is_file():
        lines += ["", small.read_text().replace("](small_game", f"]({link('small_game')}").rstrip()]
    exploit = out / "exploit.md"  # python -m benchmarks.exploit_table: the learned best responses
    if exploit.is_file():
        lines += ["", exploit.read_text().rstrip()]
    algorithms = out / "algorithms.md"  # python -m benchmarks.algorithms --report: standard RL algorithms
    if algorithms.is_file():
        lines += ["", algorithms.read_text().rstrip()]
    lines.append("")
    return "\n".join(lines)


def kept_part(made: dict[str, Any], versions: dict[str, str], what: str, replayed: str, again: str) -> str:
    """The sentence for a part of a section kept from an earlier command: which command made it and, where
    they differ from the section's, with which versions; flagged first when another release of this
    package played it, with the command that plays it again with the installed one."""
    release = made["versions"].get("commerce-rl")
    other = release != versions.get("commerce-rl")
    differ = {k: v for k, v in made["versions"].items()
              if k in versions and k not in UNSHOWN and versions[k] != v and not (other and k == "commerce-rl")}
    same = "; other versions as above" if other else "; the same versions"
    text = (f"{what} made by `{made['command']}` (seed {made['seed']}{'; quick' if made['quick'] else ''}"
            f"{'; versions: ' + _versions(differ) if differ else same}); this command replayed only {replayed}.")
    if other:
        text = (f"**Made with commerce-rl {release}** (CHANGELOG.md says what changed since): {text[0].lower()}"
                f"{text[1:]} `python -m benchmarks.suite {again}` plays them with the installed release.")
    return text


MADE = ("command", "seed", "quick", "versions")  # what says which command made a part of a section


def saved_section(out: Path, variant: str, option: str) -> dict[str, Any]:
    """``variant``'s saved section, for ``option`` (``--model-only``, ``--table-only``) to keep a part of."""
    path = out / variant / "section.json"
    if not path.is_file():
        raise ValueError(f"{option}: no saved section at {path}; run without {option} first")
    return json.loads(path.read_text())


def saved_table(out: Path, variant: str) -> dict[str, Any]:
    """The built-in table of ``variant``'s saved section, with the command and versions that made it
    (``--model-only`` replays only the model)."""
    saved = saved_section(out, variant, "--model-only")
    made = saved.get("built_in_made") or {k: saved[k] for k in MADE}
    return {"built_in": saved["built_in"], "built_in_made": made}


def saved_model(out: Path, variant: str, models: Path) -> dict[str, Any]:
    """The model's games of ``variant``'s saved section, with the command and versions that made them
    (``--table-only`` replays only the built-in table); nothing if that section had no model.  Refused
    when ``models`` now holds other weights than the ones those games played: the page would name a
    model it did not measure."""
    saved = saved_section(out, variant, "--table-only")
    folder = model_folder(variant, models)
    shipped = json.loads((folder / "model.json").read_text()).get("weights_sha256") if folder else None
    played = (saved.get("model_file") or {}).get("weights_sha256") if "model" in saved else None
    if shipped != played:
        raise ValueError(f"--table-only: {variant}'s saved model games played weights {played or 'none'}, "
                         f"but {models / variant} holds {shipped or 'no model'}; run without --table-only")
    if "model" not in saved:
        return {}
    made = saved.get("model_made") or {k: saved[k] for k in MADE}
    return {"model": saved["model"], "model_file": saved.get("model_file"), "model_made": made}


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Play every asked variant; each variant's section is saved as soon as it is done
    (``<out>/<variant>/section.json``), so variants can be run by separate commands."""
    sizes = dict(QUICK if args.quick else FULL)
    if args.table_games is not None:
        sizes["table_games"] = args.table_games
    if args.model_games is not None:
        sizes["model_games"] = sizes["match_games"] = args.model_games
    out = Path(args.out)
    started = time.monotonic()
    command = " ".join(["python -m benchmarks.suite", *args.argv])
    report: dict[str, Any] = {"command": command, "seed": args.seed, "quick": args.quick, "variants": {}}
    kept = {v: saved_model(out, v, Path(args.models)) for v in args.variants} if args.table_only else {}
    for variant in args.variants:
        began = time.monotonic()
        if args.model_only:  # the built-in agents did not change: their saved table, with what made it
            section = saved_table(out, variant)
        else:
            print(f"benchmark: {variant}: built-in agents", file=sys.stderr, flush=True)
            section = {"built_in": table_round_robin(variant, sizes["table_games"], args.seed, args.workers, out),
                       **kept.get(variant, {})}
        folder = None if args.table_only else model_folder(variant, Path(args.models))
        if folder is not None:
            print(f"benchmark: {variant}: the shipped model", file=sys.stderr, flush=True)
            games = sizes["match_games"] if plays_matches(variant) else sizes["model_games"]
            meta = json.loads((folder / "model.json").read_text())
            section["model_file"] = {k: meta.get(k) for k in ("run", "trained_steps", "weights_sha256", "search")}
            section["model"] = model_versus(variant, folder, games, args.seed, args.workers, out)
        section.update(command=command, seed=args.seed, quick=args.quick, versions=versions(),
                       seconds=time.monotonic() - began)
        (out / variant).mkdir(parents=True, exist_ok=True)
        section = portable(section)
        (out / variant / "section.json").write_text(json.dumps(section, indent=2) + "\n")
        report["variants"][variant] = section
    report["versions"] = versions()
    report["seconds"] = time.monotonic() - started
    return report


README_START, README_END = "<!-- benchmark-headline:start -->", "<!-- benchmark-headline:end -->"


def update_readme(path: Path, sections: dict[str, dict[str, Any]]) -> bool:
    """Put the headline between the README's markers (only there); False if it has none."""
    if not path.is_file():
        return False
    text = path.read_text()
    if text.count(README_START) != 1 or text.count(README_END) != 1 or text.index(README_START) > text.index(
            README_END):
        return False
    before, rest = text.split(README_START)
    after = rest.split(README_END)[1]
    path.write_text(before + README_START + "\n" + "\n".join(headline(sections)) + "\n" + README_END + after)
    return True


UNSHOWN = ("commit", "platform")  # kept by older saved sections; the page names neither


def _versions(versions: dict[str, str]) -> str:
    return ", ".join(f"{k}: {v}" for k, v in versions.items() if k not in UNSHOWN)


def saved_sections(out: Path) -> dict[str, dict[str, Any]]:
    """Every variant's last saved section under ``out``, in the order of VARIANTS."""
    sections = {}
    for variant in VARIANTS:
        path = out / variant / "section.json"
        if path.is_file():
            sections[variant] = json.loads(path.read_text())
    return sections


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.suite", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="few games: minutes, not hours (too small to cite)")
    parser.add_argument("--seed", type=int, default=BENCHMARK_SEED)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--table-games", type=int, help=f"games of the built-in table (full: {FULL['table_games']})")
    parser.add_argument("--model-games", type=int, help=f"games of the model against each agent (full: "
                        f"{FULL['model_games']} deals, {FULL['match_games']} matches); fewer is said in the table")
    parser.add_argument("--model-only", action="store_true",
                        help="replay only the shipped model; keep each variant's saved built-in table")
    parser.add_argument("--table-only", action="store_true",
                        help="replay only the built-in table; keep each variant's saved model games")
    parser.add_argument("--models", default=str(ROOT / "models"), help="folder of the shipped models")
    parser.add_argument("--out", help=f"folder for the arena reports (default {PUBLISHED.relative_to(ROOT)}; "
                        f"with --quick {QUICK_OUT})")
    parser.add_argument("--markdown", help="the page to write (default: docs/benchmark.md for the published "
                        "reports, else benchmark.md in --out)")
    parser.add_argument("--readme", help="README whose headline block (between its markers) gets the headline "
                        "(default: README.md for the published reports, else none)")
    parser.add_argument("--write-only", action="store_true",
                        help="play nothing: rewrite the page and the README headline from the saved sections")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    # Only a full run into the published folder rewrites the published page and the README's headline:
    # a quick run or another --out writes its page beside its reports and leaves them alone.
    args.out = args.out or str(QUICK_OUT if args.quick else PUBLISHED)
    published = Path(args.out).resolve() == PUBLISHED.resolve()
    page = ROOT / "docs" / "benchmark.md" if published else Path(args.out) / "benchmark.md"
    args.markdown = args.markdown or str(page)
    if args.readme is None and published:
        args.readme = str(ROOT / "README.md")
    if args.model_only and args.table_only:
        parser.error("--model-only and --table-only: each replays what the other keeps; give one")
    out = Path(args.out)
    if args.write_only:
        if not saved_sections(out):
            print(f"python -m benchmarks.suite: --write-only: no saved sections under {out}", file=sys.stderr)
            return 2
    else:
        try:
            report = run(args)
        except ValueError as error:
            print(f"python -m benchmarks.suite: {error}", file=sys.stderr)
            return 2
        out.mkdir(parents=True, exist_ok=True)
        (out / "suite.json").write_text(json.dumps(portable(report), indent=2) + "\n")
    sections = saved_sections(out)
    Path(args.markdown).parent.mkdir(parents=True, exist_ok=True)
    Path(args.markdown).write_text(markdown(sections, out, Path(args.markdown).parent))
    if args.readme and not update_readme(Path(args.readme), sections):
        print(f"{args.readme}: no headline markers, left as it is", file=sys.stderr)
    print(f"wrote {args.markdown} and {args.out}/" + (f" and {args.readme}'s headline" if args.readme else ""),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
