"""Speed and memory of commerce-rl, measured side by side with peers.

Run ``python -m benchmarks`` (or ``commerce bench``); see :mod:`benchmarks.__main__`.
Every figure is the median of repeated runs, and every ratio compares runs
made in the same process, interleaved, because the machines are shared.
"""
