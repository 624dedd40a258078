"""The user docs: every link resolves, every file they cite exists, and no word of how the project was made.

Checked over the README, every page and artefact under docs/ (Markdown and JSON), the shipped models'
JSON and the configs.  The runnable snippets are tests/project/test_doc_snippets.py's.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
GUARDED = sorted({ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "docs").rglob("*.json"),
                  *(ROOT / "docs").rglob("*.jsonl"), *(ROOT / "models").glob("*/*.json"),
                  *(ROOT / "benchmarks" / "results").glob("*.json"),
                  *(p for p in (ROOT / "configs").rglob("*") if p.is_file())})

# Words of how the project was made (case-insensitive); each names what it catches.
MADE_HOW = {
    "a session": r"(?<![a-z])sessions?(?![a-z])",
    "the lead": r"\bthe lead\b",
    "an issue": r"\bissues?\s*#?\d+|\b(?:the|this|an?) issue\b",
    "done when": r"\bdone when\b",
    "a commit id": r"\bcommits?\b[\"'`:=\s]*[0-9a-f]{7,40}\b"
                   r"|\b(?:at|since|before|after)\s+`?(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,12}\b",
    "a machine path": r"(?<![\w.~/-])/(?:work|root|tmp|home|Users|mnt|var|opt|srv|data|scratch|usr|etc|private)/",
    "this machine": r"\bthis machine\b",
    "a load average": r"\bload[ _]average|\bload (?:about |of )?\d|\bgetloadavg\b",
    # what a page says of the machine it was measured on: its kernel build, how busy it was
    "a platform string": r"\b(?:Linux|Darwin|Windows|macOS)-\d[\w.+-]*|\bwith-glibc",
    "a machine's load": r"\bshared (?:CPU )?cores?\b|\bon a shared core\b|\bother jobs\b|\blow priority\b"
                        r"|\bless busy\b|\bprocesses ready to run\b",
    "when last made": r"\bwhen (?:last|first) (?:made|run|measured)\b|\bat the time of writing\b",
}

MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
# In the pages (not in data files, whose records may carry a date): dates of measurement, and history,
# which belongs in CHANGELOG.md or docs/findings.md (the research record, where these may stay).
PAGE_MADE_HOW = {
    "a date of measurement": rf"\b\d{{1,2}} (?:{MONTHS})\b|\b(?:{MONTHS}),? \d{{4}}\b|\b(?:19|20)\d\d-[01]\d-[0-3]\d\b",
}
HISTORY = {
    "an earlier version": r"\ban? earlier version\b|\bbefore the (?:improvements|changes|rewrite|speed-?ups?)\b"
                          r"|\bas before\b|\bit was [+-]?\d[\d.]* before\b",
}


def made_how_words(text: str, page: bool = True, history: bool = True) -> list[tuple[str, str]]:
    """Every (what, matched text) of :data:`MADE_HOW` in ``text``; for a ``page`` (Markdown) also of
    :data:`PAGE_MADE_HOW`, and with ``history`` of :data:`HISTORY`."""
    patterns = {**MADE_HOW, **(PAGE_MADE_HOW if page else {}), **(HISTORY if history else {})}
    return [(what, m.group(0)) for what, pattern in patterns.items()
            for m in re.finditer(pattern, text, re.IGNORECASE)]


@pytest.mark.parametrize("path", GUARDED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_word_of_how_the_project_was_made(path):
    found = made_how_words(path.read_text(errors="replace"), page=path.suffix == ".md",
                           history=path != ROOT / "docs" / "findings.md")
    assert not found, f"{path.relative_to(ROOT)}: {found[:5]}"


# In code "session" and "issue" are everyday words (a web session, the issue with floats): there
# only their numbered or time-telling forms count.
CODE_MADE_HOW = {
    **{what: MADE_HOW[what] for what in ("the lead", "done when", "a commit id", "this machine", "a load average")},
    "a session": r"\bsessions? \d+|\b(?:this|later|earlier|previous|next) sessions?\b",
    "an issue": r"\bissues? #?\d+|\(issue\b",
    "a machine path": r"(?<![\w.~/-])/(?:work|root|home|Users)/",  # system paths (/usr/bin/...) are fine
}


def tracked_code() -> list[Path]:
    """The repository's code files as git tracks them (what a clone holds), this file aside."""
    import subprocess

    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False).stdout.split()
    keep = (".py", ".js", ".html", ".css", ".toml", ".cfg", "")
    return [ROOT / name for name in listed if Path(name).suffix in keep and not name.startswith("docs/")
            and Path(name).name != "test_docs.py" and (ROOT / name).is_file()]


def test_no_word_of_how_the_project_was_made_in_the_code():
    found = {}
    for path in tracked_code():
        text = path.read_text(errors="replace")
        hits = [(what, m.group(0)) for what, pattern in CODE_MADE_HOW.items()
                for m in re.finditer(pattern, text, re.IGNORECASE)]
        # a file outside the repository (the project's brief): the code cites docs/rules.md and docs/*.md
        hits += [("a file outside", m.group(0)) for m in re.finditer(r"\b(?:DESIGN|RULES|STYLE)\.md\b", text)]
        if hits:
            found[str(path.relative_to(ROOT))] = hits[:3]
    assert found == {}


@pytest.mark.parametrize("text, what", [
    ("seeds 1 and 2 were trained in Session 40", "a session"),
    ("as a later session showed", "a session"),
    ('"wall_seconds_this_session": 12.5', "a session"),
    ("## For the Lead", "the lead"),
    ("(Issue 6)", "an issue"),
    ("The issue asks for the best seed", "an issue"),
    ("So the 'done when' holds", "done when"),
    ("versions: numpy 2.4, commit: 85fede508c", "a commit id"),
    ('"commit": "31cfdc865ab51896738e773fb2c0c71d47e3c04d"', "a commit id"),
    ("took 35.1 s at f2a9064, before the lookup", "a commit id"),
    ("--runs /work/runs45/tb_s0 /work/runs45/tb_s1", "a machine path"),
    ('"model": "/root/runs/foster/model"', "a machine path"),
    ("--json /tmp/bench.json", "a machine path"),
    ("On This Machine, idle", "this machine"),
    ("(load 4-6)", "a load average"),
    ("load average at the end 5.9", "a load average"),
    ('"load_average": [5.88, 5.35, 4.90]', "a load average"),
    ("Versions: python: 3.11.7, platform: Linux-6.18.44-fc-v1272-x86_64-with-glibc2.36", "a platform string"),
    ('"platform": "Darwin-23.1.0-arm64-arm-64bit"', "a platform string"),
    ("Both runs on 2 CPU cores shared with about six other jobs", "a machine's load"),
    ("6.0 deals/s with 1 worker at low priority", "a machine's load"),
    ("5 runs, 7 to 10 processes ready to run on 2 cores", "a machine's load"),
    ("one run on less busy cores", "a machine's load"),
    ("one run of two rounds of 1.5 s on a shared core", "a machine's load"),
    ("took 186 s for My Ship Sails when last made", "when last made"),
    ("on 2 cores, 2026-12-01", "a date of measurement"),
    ("on two shared cores, 30 November and 1 December 2026", "a date of measurement"),
    ("Measured in November and December 2026", "a date of measurement"),
    ("An earlier version of the arena played only the rotations", "an earlier version"),
    ("These figures were made before the improvements of docs/agents.md", "an earlier version"),
    ("# per env: 2,048 steps per rollout, as before", "an earlier version"),
    ("`expected_value` at +0.292 (it was +0.182 before them)", "an earlier version"),
])
def test_the_guard_catches_each_kind_of_word(text, what):
    assert what in {w for w, _ in made_how_words(text)}


@pytest.mark.parametrize("text", [
    "the model's margin over `search`", "weights sha256 `287fa1484c41`", "`POST /api/matches`",
    "https://github.com/Farama-Foundation/PettingZoo", "runs/foster_trade_barter/model", "after 2,048 steps",
    "known masking problems (ray #44452 and #44780)", "Versions: python: 3.11.7, commerce-rl: 0.2.0",
    "rates per CPU-second (per core)", "Imitation before PPO", "before the first deal", "12 decks, 52 cards",
    "the last made move", "an option given with another value", "a seed of 2026",
])
def test_the_guard_lets_plain_words_through(text):
    assert made_how_words(text) == []


def slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*$", text, re.M)}


def links(text: str) -> list[str]:
    """The targets of the Markdown links and images of ``text``, outside code blocks."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", text)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_every_link_resolves(path):
    for target in links(path.read_text()):
        if re.match(r"[a-z]+:", target):  # http(s), mailto: not checked offline
            continue
        file, _, anchor = target.partition("#")
        resolved = (path.parent / file).resolve() if file else path
        assert resolved.exists(), f"{path.name}: link to {target!r}, which is not in the repository"
        if anchor and resolved.suffix == ".md":
            assert anchor in anchors(resolved), f"{path.name}: link to {target!r}: no such heading"


# Repository paths a page may name in prose or code (not links); placeholders (<variant>, *) are skipped.
CITED_PATH = re.compile(r"(?<![\w/.-])((?:docs|configs|models|benchmarks|tests|training|agents|commerce_env|"
                        r"commerce_web)/[\w./-]*[\w/])")


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_every_file_a_page_cites_exists(path):
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)  # commands may name the files they write
    for cited in set(re.findall(r"\b([A-Z]+\.md)\b", text)) - {"README.md"}:
        assert (ROOT / cited).exists(), f"{path.name} cites {cited}, which is not in the repository"
    for m in CITED_PATH.finditer(text):
        if text[m.end():m.end() + 1] in "<*{":
            continue
        cited = m.group(1).rstrip(".")
        assert (ROOT / cited).exists() or (ROOT / cited.replace(".", "/")).exists(), \
            f"{path.name} cites {cited}, which is not in the repository"


def test_the_writers_of_the_docs_artefacts_name_no_machine_path(tmp_path):
    from benchmarks import seeds, suite

    inside = suite.ROOT / "models" / "widow"
    result = {"agents": {f"model:{inside}": {"mean": 0.1}}, "versions": {"numpy": "2", "commit": "85fede508c"}}
    assert suite.portable(result) == {"agents": {"model:models/widow": {"mean": 0.1}}, "versions": {"numpy": "2"}}
    assert seeds.shown_path(inside) == "models/widow"
    assert seeds.shown_path(tmp_path / "runs" / "seed_0") == "seed_0"  # outside the repository: its name
    assert seeds.shown_path("runs/seed_0") == "runs/seed_0"
    report = {"seeds": [{"run": str(tmp_path / "s0"), "model": str(tmp_path / "s0" / "model")}],
              "command": f"python -m benchmarks.seeds --runs {tmp_path / 's0'} --ship models/widow"}
    assert made_how_words(str(seeds.portable(report))) == []


def test_gitignore_keeps_virtualenvs_and_runs_out():
    lines = (ROOT / ".gitignore").read_text().split()
    assert ".venv/" in lines and "runs/" in lines
