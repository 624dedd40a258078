"""The benchmark JSON as a Markdown table: ``python -m benchmarks.report [latest.json]``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .__main__ import RESULTS, _number


def markdown(report: dict) -> str:
    """A Markdown table of a report written by ``python -m benchmarks``."""
    lines = ["| section | measure | ours | unit | peer | peer value | ratio | ours per CPU-s | target | met |",
             "|---|---|---:|---|---|---:|---:|---:|---|---|"]
    for row in report["rows"]:
        ours = _number(row["value"], row["unit"]) if row["value"] is not None else f"n/a ({row['note']})"
        peer_value = _number(row["peer_value"], row["unit"]) if row["peer"] else ""
        ratio = "" if row["ratio"] is None else f"{row['ratio']:.2f}x"
        cpu = "" if row.get("per_cpu_second") is None else _number(row["per_cpu_second"])
        met = "" if row["met"] is None else ("yes" if row["met"] else "**no**")
        lines.append(f"| {row['section']} | {row['name']} | {ours} | {row['unit']} | {row['peer']} | {peer_value} "
                     f"| {ratio} | {cpu} | {row['target']} | {met} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.report", description=__doc__)
    parser.add_argument("json", nargs="?", type=Path, default=RESULTS, help=f"a benchmark JSON (default {RESULTS})")
    path = parser.parse_args(sys.argv[1:] if argv is None else argv).json
    try:
        report = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        parser.error(f"cannot read {path}: {error}")
    machine = report["machine"]
    print(f"{report['date']}, `{report['command']}`, Python {machine['python']}, {machine['cpus']} CPUs; "
          f"medians of {report['settings']['repeats']} runs of {report['settings']['seconds']:g} s.\n")
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
