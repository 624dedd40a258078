"""Every rule option is declared once, in commerce_env.options.OPTION_TABLE (R12): the rules, the
batched engine's row, OpenSpiel's parameters, the web's form, the command line's help and
docs/rules.md's table all read it, and no installed module writes an option's choices again."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from commerce_env.options import OPTION_TABLE, Rules
from commerce_env.rules import OPTIONS, VARIANTS, make_rules, variant_info

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("commerce_env", "agents", "training", "commerce_web")
OWNER = "commerce_env/options.py"


def _r12_rows() -> list[list[str]]:
    text = (ROOT / "docs" / "rules.md").read_text()
    table = text[text.index("## R12."):].split("\n\n")[1]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in table.splitlines()[2:]]


def test_the_rules_md_table_lists_each_option_with_the_values_its_record_takes():
    # R12: the table's rows are the records, in order, each with the values its check takes
    rows = _r12_rows()
    assert [row[0] for row in rows] == [option.name for option in OPTION_TABLE]
    for row, option in zip(rows, OPTION_TABLE, strict=True):
        assert row[1] == option.values, option.name


def test_the_rules_md_table_marks_an_option_a_variant_does_not_take_and_gives_its_default():
    # R12: '-' (or the rule that says why, "(R7.4)") where the variant does not take the option; else
    # its default as make_rules fills it
    header = "| option | values | " + " | ".join(VARIANTS) + " |"
    assert header in (ROOT / "docs" / "rules.md").read_text()
    for row in _r12_rows():
        name = row[0]
        for variant, cell in zip(VARIANTS, row[2:], strict=True):
            assert (cell == "-" or cell.startswith("(R")) == (name not in OPTIONS[variant]), (name, variant)
            value = make_rules(variant).options().get(name)
            if isinstance(value, bool):
                assert cell == ("on" if value else "off"), (name, variant)
            elif isinstance(value, (int, str)) and name != "horse_price":
                assert cell.split(" (")[0] == str(value), (name, variant)


def test_the_rules_record_holds_exactly_the_options_of_the_table():
    fields = set(Rules.__dataclass_fields__) - {"variant"}
    assert fields == {option.name for option in OPTION_TABLE}
    for variant in VARIANTS:  # each option a variant takes has its default there, or the table's
        info = variant_info(variant)
        for option in OPTION_TABLE:
            if option.name in info.all_options:
                assert option.name in info.defaults or option.default is not None, (variant, option.name)


@pytest.mark.parametrize("option", OPTION_TABLE, ids=lambda o: o.name)
def test_each_record_refuses_a_value_outside_it_naming_the_option(option):
    variant = next(v for v in VARIANTS if option.name in OPTIONS[v])
    bad = {"one_of": "nonesuch", "flag": 2, "whole": -1, "deals": 0, "combinations": ["nonesuch"]}[option.kind]
    with pytest.raises(ValueError, match="nonesuch|option") as error:
        make_rules(variant, **{option.name: bad})
    assert option.name in str(error.value) or "nonesuch" in str(error.value)


def test_the_row_openspiel_web_and_command_line_read_the_table():
    from agents.cli import option_help
    from commerce_env.openspiel.params import parameter_specification
    from commerce_env.vector import row
    from commerce_web.session import variants_info

    assert row.RULE_PARAMS[:-1] == tuple(o.name for o in OPTION_TABLE if o.kind != "combinations")
    for name, choices in row.CHOICES.items():
        assert [row.choice(name, c) for c in choices] == list(range(len(choices)))
    info = variants_info()["variants"]
    for variant in VARIANTS:
        assert set(OPTIONS[variant]) <= set(parameter_specification(variant))
        assert set(info[variant]["option_values"]) == set(info[variant]["options"])
    assert all(f"{o.name}: {o.values}" in option_help() for o in OPTION_TABLE)


def choices_written_again(source: str, path: str) -> list[str]:
    """Where ``source`` writes the whole tuple of an option's named choices itself."""
    if path == OWNER:
        return []
    wanted = {tuple(o.choices): o.name for o in OPTION_TABLE if o.kind == "one_of" and isinstance(o.choices[0], str)}
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and all(isinstance(e, ast.Constant) for e in node.elts):
            written = tuple(e.value for e in node.elts)
            if written in wanted:
                found.append(f"{path}:{node.lineno}: {wanted[written]}'s choices")
    return found


def test_no_installed_module_writes_an_options_choices_again():
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            found += choices_written_again(path.read_text(), str(path.relative_to(ROOT)))
    assert found == []


def test_the_guard_sees_an_options_choices_written_again():
    # the self-test: a module that lists the tie-breaks itself is caught, and the table's own module is not
    source = 'BREAKS = ("dealer", "eldest", "split")\nchoose(["counters", "outcome"])\n'
    assert len(choices_written_again(source, "agents/x.py")) == 2
    assert choices_written_again(source, OWNER) == []
