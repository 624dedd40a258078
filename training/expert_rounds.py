"""The record of expert iteration's rounds (``rounds.jsonl``) and how a round is measured and judged.

Each round's network plays alone (no test-time search) in one seat against three of
``measure_opponent`` (``search``) and against three of the network it started from, on the
same duplicate deals every round (``measure_seed``), so the rounds' margins compare.  A round
improves when its margin over the network it started from is above 0 (``improve_by: mean``)
or its 95% interval is (``interval``), or (``improve_against: opponent``) when its margin against
``measure_opponent`` is above that network's own, or both; one that does not is set aside, and after
``patience`` of them in a row the run stops.  The record is also the run's state: ``--resume`` reads it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RECORD = "rounds.jsonl"
ROUNDS = "rounds"


def round_folder(index: int) -> str:
    """A round's folder in the run folder (round 0: the network before the first round)."""
    return f"{ROUNDS}/round_{index:03d}"


def read_record(out: Path) -> list[dict[str, Any]]:
    """The rounds recorded so far, in order."""
    path = out / RECORD
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def alone(folder: str | Path) -> dict[str, Any]:
    """The spec of a round's network playing alone."""
    return {"agent": f"model:{folder}", "search": False}


def _row(result: dict[str, Any], opponent: str) -> dict[str, Any]:
    versus = result["vs"][opponent]
    return {"margin": versus["difference"], "ci95": list(versus["ci95"]), "ci99": list(versus["ci99"]),
            "p_value": versus["p_value"], "mean": result["mean"], "deals_per_second": result["deals_per_second"]}


def measure(folder: Path, previous: Path | None, config: Any) -> dict[str, Any]:
    """The network of ``folder`` alone against ``measure_opponent`` and, given ``previous``, against
    that network alone: one seat against three, duplicate deals of ``measure_seed``."""
    from agents.evaluate import evaluate_agent
    from agents.specs import spec_name

    section, env = config.expert_iteration, config.env
    settings = dict(variant=env.variant, num_players=env.num_players, options=dict(env.rules),
                    deals=section.measure_deals, seed=section.measure_seed, workers=section.measure_workers)
    out: dict[str, Any] = {"deals": section.measure_deals, "seed": section.measure_seed,
                           "opponent": spec_name(section.measure_opponent)}
    if section.measure_deals == 0:
        return out
    result = evaluate_agent(alone(folder), [section.measure_opponent], **settings)
    out["vs_opponent"] = _row(result, spec_name(section.measure_opponent))
    if previous is not None:
        result = evaluate_agent(alone(folder), [alone(previous)], **settings)
        out["vs_previous"] = _row(result, spec_name(alone(previous)))
    return out


def improves(measured: dict[str, Any], start: dict[str, Any], improve_by: str, improve_against: str) -> bool:
    """Whether a round improves on the network it started from (``start``: that round's measure).
    ``improve_against``: head to head with it (``start``), by a larger margin than its own against
    ``measure_opponent`` on the same deals (``opponent``), or both.  Always, where nothing was measured."""
    checks = []
    if improve_against in ("start", "both") and "vs_previous" in measured:
        versus = measured["vs_previous"]
        checks.append(versus["margin"] > 0 if improve_by == "mean" else versus["ci95"][0] > 0)
    if improve_against in ("opponent", "both") and "vs_opponent" in measured and "vs_opponent" in start:
        versus, before = measured["vs_opponent"], start["vs_opponent"]["margin"]
        checks.append(versus["margin"] > before if improve_by == "mean" else versus["ci95"][0] > before)
    return all(checks)


def accepted_round(record: list[dict[str, Any]]) -> int:
    """The last round that improved (0: none yet), which the next round starts from."""
    kept = [entry["round"] for entry in record if entry.get("accepted")]
    return kept[-1] if kept else 0


def stalled(record: list[dict[str, Any]], patience: int) -> bool:
    """Whether the last ``patience`` rounds all failed to improve (the stop rule)."""
    tail = [entry for entry in record if entry["round"] > 0][-patience:]
    return len(tail) == patience and not any(entry.get("accepted") for entry in tail)


def line(entry: dict[str, Any]) -> str:
    """One round in a line: its network alone against the opponent and the previous network."""
    measured = entry.get("measure", {})
    parts = [f"round {entry['round']}"]
    for key, name in (("vs_opponent", measured.get("opponent", "opponent")), ("vs_previous", "its start")):
        row = measured.get(key)
        if row is not None:
            low, high = row["ci95"]
            parts.append(f"vs {name} {row['margin']:+.3f} [{low:+.3f}, {high:+.3f}]")
    if entry["round"] > 0:
        parts.append("kept" if entry.get("accepted") else "set aside")
    if "seconds" in entry:
        parts.append(f"{entry['seconds'] / 60:.1f} min")
    return ", ".join(parts)
