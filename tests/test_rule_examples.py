"""Fixit-style: every rule's own valid and invalid examples, run through the real CLI.

An invalid example marks each line where a finding must start with `# expect: CODE`; the
findings must be exactly those (code and line), so an extra or a missing one fails.
"""

from __future__ import annotations

import pytest

from conftest import check_batch
from privlint.catalog import load_catalog

CATALOG = load_catalog()
INVALID = [(rule.code, i, src) for rule in CATALOG.rules for i, src in enumerate(rule.invalid)]
VALID = [(rule.code, i, src) for rule in CATALOG.rules for i, src in enumerate(rule.valid)]


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, list[dict]]:
    cases = {f"invalid_{code}_{i}": src for code, i, src in INVALID}
    cases.update({f"valid_{code}_{i}": src for code, i, src in VALID})
    # PRV8 turns on the stable-by-convention tier, which is off by default.
    return check_batch(tmp_path_factory.mktemp("examples"), cases, "--extend-select", "PRV8")


def test_every_rule_has_examples():
    for rule in CATALOG.rules:
        if rule.kind != "engine" or rule.name != "io-error":
            assert rule.invalid, f"{rule.code} has no invalid example"
            assert rule.valid, f"{rule.code} has no valid example"


def expected(source: str) -> list[tuple[int, str]]:
    """`# expect: PRV101, PRV102` at the end of a line: the findings that start on that line."""
    marks = []
    for number, line in enumerate(source.lstrip("\n").split("\n"), start=1):
        if "# expect:" in line:
            marks += [(number, code.strip()) for code in line.split("# expect:")[1].split(",")]
    return sorted(marks)


@pytest.mark.parametrize("code,index,source", INVALID, ids=[f"{c}-invalid-{i}" for c, i, _ in INVALID])
def test_invalid_example_gives_exactly_its_expected_findings(results, code, index, source):
    marks = expected(source)
    assert code in {c for _, c in marks} or code == "PRV003", \
        f"{code} invalid example {index} marks no `# expect: {code}` line"
    got = sorted((f["line"], f["code"]) for f in results[f"invalid_{code}_{index}"])
    assert got == marks, f"{code} example {index}: got {got}, expected {marks}\n{source}"


@pytest.mark.parametrize("code,index,source", VALID, ids=[f"{c}-valid-{i}" for c, i, _ in VALID])
def test_valid_example_is_clean(results, code, index, source):
    codes = [f["code"] for f in results[f"valid_{code}_{index}"]]
    assert code not in codes, f"{code} valid example {index} flagged\n{source}"
