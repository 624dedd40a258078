"""One-off research probes behind docs/findings.md: not installed, not part of `make test`.

Run one from the repository's root, e.g. ``python -m research.oracle --help``; their smoke tests are
``python -m pytest -m research research/tests``."""
