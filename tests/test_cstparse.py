"""privlint's parse (libcst's, minus the node checks while the parser runs) gives libcst's tree,
and leaves the checks on for every node built afterwards."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from privlint.cstparse import parse_module

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*ROOT.joinpath("privlint").rglob("*.py"), *ROOT.joinpath("tests").rglob("*.py")])


def test_the_tree_is_libcst_s_own_on_real_files():
    assert len(SOURCES) > 80
    for path in SOURCES:
        data = path.read_bytes()
        ours, theirs = parse_module(data), cst.parse_module(data)
        assert ours.deep_equals(theirs), path
        assert ours.bytes == data, path


def test_node_checks_are_back_after_a_parse_and_after_a_failed_one():
    parse_module(b"x = (1)\n")
    with pytest.raises(cst.ParserSyntaxError):
        parse_module(b"def broken(:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("x", lpar=[cst.LeftParen()])  # a parenthesis that is never closed
