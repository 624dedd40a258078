"""The arena's outputs: the Markdown report, the plot, and the files they are written to."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from commerce_env.files import atomic_write

OUTPUT_FILES = ("result.json", "report.md", "mean_reward.png")


def ranking(result: dict) -> list[str]:
    """Agent names by mean reward per deal, best first."""
    return sorted(result["agents"], key=lambda n: -result["agents"][n]["mean"])


def markdown_text(text: str) -> str:
    """``text`` (an agent's error message among it) as Markdown shows it, letter for letter: no HTML,
    link, emphasis or table cell made of it."""
    return re.sub(r"([\\`*_\[\]|~])", r"\\\1", html.escape(text, quote=False))


def report_markdown(result: dict) -> str:
    """The Markdown report: the table of agents, then the pairwise tests."""
    lines = [
        f"# Arena: {result['variant']}, {result['num_players']} players",
        "",
        f"{result['games']} games in {result['groups']} duplicate groups of {result['games_per_group']} "
        f"seatings, {result['deals_played']} deals in all; seed {result['seed']}, "
        f"{'duplicate' if result['duplicate'] else 'plain'} deals; "
        f"{result['deals_per_second']:.1f} deals/s with {result['workers']} worker(s).",
        "",
        *(f"**Warning:** {markdown_text(w)}." for w in result.get("warnings", ())),
        *([""] if result.get("warnings") else []),
        "| rank | agent | mean reward per deal | 95% CI | win rate | deals |",
        "|---:|---|---:|---|---:|---:|",
    ]
    for rank, name in enumerate(ranking(result), 1):
        a = result["agents"][name]
        lines.append(f"| {rank} | {name} | {a['mean']:+.3f} | [{a['ci95'][0]:+.3f}, {a['ci95'][1]:+.3f}] | "
                     f"{a['win_rate']:.3f} | {a['deals']} |")
    if result["pairwise"]:
        lines += ["", "| A | B | mean(A - B) per deal | 95% CI | A beats B (groups) | p-value |",
                  "|---|---|---:|---|---:|---:|"]
        for p in result["pairwise"]:
            lines.append(f"| {p['a']} | {p['b']} | {p['mean_difference']:+.3f} | "
                         f"[{p['ci95'][0]:+.3f}, {p['ci95'][1]:+.3f}] | {p['a_beats_b']:.3f} | "
                         f"{p['p_value']:.2g} |")
    lines += ["", "Rules: " + ", ".join(f"{k}={v}" for k, v in result["rules"].items() if k != "variant"), ""]
    return "\n".join(lines)


def plot(result: dict, path: str | Path) -> None:
    """Mean reward per deal with 95% intervals, one bar per agent, best first."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = ranking(result)
    means = [result["agents"][n]["mean"] for n in names]
    lows = [m - result["agents"][n]["ci95"][0] for n, m in zip(names, means, strict=True)]
    highs = [result["agents"][n]["ci95"][1] - m for n, m in zip(names, means, strict=True)]
    fig, ax = plt.subplots(figsize=(1.6 * len(names) + 2.5, 3.6))
    ax.bar(names, means, yerr=[lows, highs], capsize=6, color="#4C72B0")
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_ylabel("mean reward per deal (95% CI)")
    ax.set_title(f"{result['variant']}, {result['num_players']} players, {result['games']} games")
    fig.tight_layout()
    try:
        atomic_write(path, lambda handle: fig.savefig(handle, format="png", dpi=110))
    finally:
        plt.close(fig)


def write_outputs(result: dict, out_dir: str | Path) -> None:
    """``result.json``, ``report.md`` and ``mean_reward.png`` in ``out_dir`` (each written atomically).

    Callers own ``out_dir`` (a run folder, the docs); :func:`run_arena` checks a user's folder first."""
    from commerce_env.files import writing_to

    out = Path(out_dir)
    with writing_to(out):
        out.mkdir(parents=True, exist_ok=True)
        atomic_write(out / "result.json", json.dumps(result, indent=2) + "\n")
        atomic_write(out / "report.md", report_markdown(result))
        plot(result, out / "mean_reward.png")
