"""Golden fix tests: tests/fixtures/fix/X.in.py --fix--> X.out.py, through the real CLI.

A first line `# privlint-test: FLAGS` adds flags (e.g. --unsafe-fixes, --target-torch >=2.9).
For every fixture the rewritten file must match, compile, re-check with no safe fix left,
and a second --fix must change nothing. PRIVLINT_UPDATE_GOLDEN=1 rewrites the .out.py files.
"""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import pytest

from conftest import run_privlint

FIXTURES = Path(__file__).parent / "fixtures" / "fix"
CASES = sorted(p.name[: -len(".in.py")] for p in FIXTURES.glob("*.in.py"))


def _flags(source: str) -> list[str]:
    first = source.splitlines()[0] if source else ""
    return shlex.split(first.split(":", 1)[1]) if first.startswith("# privlint-test:") else []


@pytest.mark.parametrize("name", CASES)
def test_fix_golden(project, name):
    source = (FIXTURES / f"{name}.in.py").read_text(encoding="utf-8")
    flags = _flags(source)
    target = project / f"{name}.py"
    shutil.copyfile(FIXTURES / f"{name}.in.py", target)
    fixed = run_privlint("check", target.name, "--fix", *flags, cwd=project)
    assert fixed.returncode in (0, 1), fixed.stderr
    assert "Traceback" not in fixed.stderr
    result = target.read_text(encoding="utf-8")
    expected_path = FIXTURES / f"{name}.out.py"
    if os.environ.get("PRIVLINT_UPDATE_GOLDEN"):
        expected_path.write_text(result, encoding="utf-8")
    assert result == expected_path.read_text(encoding="utf-8")
    compile(result, str(target), "exec")
    again = run_privlint("check", target.name, "--fix", *flags, cwd=project)
    assert target.read_text(encoding="utf-8") == result, "second --fix changed the file"
    recheck = run_privlint("check", target.name, "--format", "json", *flags, cwd=project)
    leftover = [f for f in recheck.findings if f["fix"] and f["fix"]["applicability"] == "safe"]
    assert not leftover, leftover
    assert again.returncode in (0, 1)


def test_every_template_is_one_registered_module_with_golden_cases():
    """Adding a template is adding privlint/fix/templates/<id>.py: it registers its planner,
    carries its TEMPLATE text, and names its golden cases in its docstring."""
    import importlib

    from privlint.catalog import load_catalog
    from privlint.fix import template_ids
    from privlint.fix.model import load_planners

    ids = template_ids()
    assert set(load_planners()) == set(ids)
    assert {r.fix for r in load_catalog().rules if r.fix} <= set(ids)
    for template_id in ids:
        module = importlib.import_module(f"privlint.fix.templates.{template_id.replace('-', '_')}")
        assert isinstance(module.TEMPLATE, dict) and module.TEMPLATE
        prefixes = [word.split("tests/fixtures/fix/")[1].split("*")[0]
                    for word in module.__doc__.split() if "tests/fixtures/fix/" in word]
        assert prefixes and any(case.startswith(tuple(prefixes)) for case in CASES), template_id
