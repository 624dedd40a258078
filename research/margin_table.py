"""One agent's margin over another from an arena result, and the Markdown table of such rows
(the probes ``research.decision_swap`` and ``research.oracle`` print them)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def margin_row(result: dict[str, Any], name: str) -> dict[str, Any]:
    """``name`` minus the other agent of a two-agent arena ``result``, per deal: the margin, its
    95% and 99% intervals, the p-value, the games and groups, the arena's sample warnings."""
    pair = result["pairwise"][0]
    if name not in (pair["a"], pair["b"]):
        raise ValueError(f"agent {name!r} is not in this result (it has {pair['a']!r} and {pair['b']!r})")
    sign = 1.0 if pair["a"] == name else -1.0
    return {"margin": sign * pair["mean_difference"], "ci95": sorted(sign * x for x in pair["ci95"]),
            "ci99": sorted(sign * x for x in pair["ci99"]), "p_value": pair["p_value"],
            "games": result["games"], "groups": result["groups"], "warnings": result["warnings"]}


def print_rows(heading: str, rows: Iterable[tuple[str, dict[str, Any]]]) -> None:
    """A Markdown table, one ``(label, margin_row)`` a line as it comes, then the sample warnings."""
    print(f"| {heading} | margin | 95% CI | 99% CI | p | games |")
    print("|---|---:|---|---|---:|---:|")
    warnings: set[str] = set()
    for label, row in rows:
        (l95, h95), (l99, h99) = row["ci95"], row["ci99"]
        print(f"| {label} | {row['margin']:+.3f} | [{l95:+.3f}, {h95:+.3f}] | [{l99:+.3f}, {h99:+.3f}] "
              f"| {row['p_value']:.2g} | {row['games']} |", flush=True)
        warnings.update(row["warnings"])
    for warning in sorted(warnings):
        print(warning)
