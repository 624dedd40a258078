"""Memory of one env and import time, each measured in a fresh interpreter.

A subprocess per measurement keeps the figures free of whatever the
benchmark process has already imported or allocated.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import textwrap

HEAVY_MODULES = ("torch", "stable_baselines3", "sb3_contrib")

_RSS = """
import os, resource, sys
def rss_kb(field):
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak
"""

_MEMORY = _RSS + """
import json, random, time, tracemalloc
start_rss = rss_kb("VmRSS")
{imports}
imported_rss = rss_kb("VmRSS")
if {trace}:  # tracemalloc's own bookkeeping takes memory: the RSS figures come from a run without it
    tracemalloc.start()
env = {make_env}
rng = random.Random(0)
for episode in range({episodes}):
    env.reset(seed=episode)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            legal = [i for i, ok in enumerate(observation["action_mask"]) if ok]
            action = rng.choice(legal)
        env.step(action)
current, peak = tracemalloc.get_traced_memory()
print(json.dumps({{"start_kb": start_rss, "imported_kb": imported_rss, "peak_kb": rss_kb("VmHWM"),
                  "end_kb": rss_kb("VmRSS"), "traced_peak_bytes": peak}}))
"""

_IMPORT = """
import json, sys, time
start = time.perf_counter()
{imports}
elapsed = time.perf_counter() - start
print(json.dumps({{"seconds": elapsed, "heavy": [m for m in {heavy!r} if m in sys.modules]}}))
"""

OURS_IMPORT = "import commerce_env"
OURS_ENV_IMPORT = "import commerce_env, commerce_env.aec_env"
LEDUC_IMPORT = "from pettingzoo.classic import leduc_holdem_v4"


def _run(script: str, timeout: float = 300) -> dict:
    completed = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True,
                               text=True, timeout=timeout, check=False)
    if completed.returncode != 0:
        raise RuntimeError(f"benchmark subprocess failed: {completed.stderr.strip()[-500:]}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def env_memory(imports: str, make_env: str, episodes: int) -> dict:
    """RSS (KiB) of a fresh interpreter before and after the imports and at its peak
    while playing ``episodes`` random episodes; and, from a second interpreter
    running the same with tracemalloc on, tracemalloc's peak for the env alone."""
    plain = _run(_MEMORY.format(imports=imports, make_env=make_env, episodes=episodes, trace=False))
    traced = _run(_MEMORY.format(imports=imports, make_env=make_env, episodes=episodes, trace=True))
    plain["traced_peak_bytes"] = traced["traced_peak_bytes"]
    return plain


def commerce_memory(variant: str = "trade_barter", num_players: int = 4, episodes: int = 200) -> dict:
    return env_memory("import commerce_env, commerce_env.aec_env",
                      f"commerce_env.env(variant={variant!r}, num_players={num_players})", episodes)


def leduc_memory(episodes: int = 200) -> dict:
    return env_memory(LEDUC_IMPORT, "leduc_holdem_v4.env()", episodes)


def import_times(imports: dict[str, str], repeats: int) -> dict[str, dict]:
    """For each named import statement: the median seconds it takes in a fresh
    interpreter (runs interleaved), and any heavy modules (torch, SB3) it pulled in."""
    runs: dict[str, list[dict]] = {name: [] for name in imports}
    for _ in range(repeats):
        for name, statement in imports.items():
            runs[name].append(_run(_IMPORT.format(imports=statement, heavy=HEAVY_MODULES)))
    return {name: {"seconds": statistics.median(r["seconds"] for r in found),
                   "samples": [r["seconds"] for r in found],
                   "heavy": sorted({m for r in found for m in r["heavy"]})}
            for name, found in runs.items()}
