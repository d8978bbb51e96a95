"""The execution oracle: every fixable rule, in every form, fixed through the real CLI and run,
original and fixed, on torch as installed, on the same torch with the private APIs hidden from the
program, and on an old torch (2.4.1) in a second environment. See tests/oracle/harness.py for the
verdicts: a safe fix behaves identically on every build; an unsafe one at least imports and runs.

The old torch is found through $PRIVLINT_OLD_TORCH_PYTHON or .venv-old/ (which .ci/run creates).
Locally, without it, the old-build runs are skipped (with a reason); in CI (CI=true) its absence is
a failure.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "oracle"))

import harness  # noqa: E402

pytest.importorskip("torch")

PROGRAMS = harness.load_programs()
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    old = harness.old_python()
    failures, fixed, records = harness.run_oracle(PROGRAMS, tmp_path_factory.mktemp("oracle"), old)
    return {"failures": failures, "fixed": fixed, "records": records, "old": old}


def test_old_torch_environment_is_there():
    old = harness.old_python()
    if old is None:
        message = (f"no old torch: set ${harness.OLD_ENV_VAR} or create .venv-old "
                   "(python3 -m venv .venv-old && .venv-old/bin/pip install torch==2.4.1)")
        if IN_CI:
            pytest.fail(message + " -- CI must run the oracle on the old build")
        pytest.skip(message + "; the oracle ran on the installed torch only")
    import subprocess

    version = subprocess.run([str(old), "-c", "import torch; print(torch.__version__)"],
                             capture_output=True, text=True, timeout=300)
    assert version.stdout.startswith("2.4."), version.stdout + version.stderr[-2000:]


@pytest.mark.parametrize("name", [p.name for p in PROGRAMS])
def test_fix_behaves_as_labelled(oracle, name):
    mine = [f for f in oracle["failures"] if f.startswith(f"{name}:")]
    assert not mine, "\n".join(mine)
    if oracle["old"] is not None:
        assert f"old/orig/{name}" in oracle["records"]


def test_oracle_exercises_every_fixable_rule(oracle):
    """Each rule with a fix has a program whose fix was applied (safe or unsafe) and run."""
    import json
    import subprocess

    codes = json.loads(subprocess.run(
        [sys.executable, "-c", "import json; from privlint.catalog import load_catalog; "
         "print(json.dumps(sorted(r.code for r in load_catalog().rules if r.fix)))"],
        capture_output=True, text=True, check=True).stdout)
    fixed = oracle["fixed"]
    covered = set()
    report = subprocess.run(
        [sys.executable, "-m", "privlint", "check", ".", "--format", "json", "--no-cache"],
        cwd=fixed.root / "orig", capture_output=True, text=True)
    for finding in json.loads(report.stdout)["findings"]:
        name = Path(finding["path"]).stem
        if finding["fix"] and fixed.texts["unsafe"][name] != fixed.texts["orig"][name]:
            covered.add(finding["code"])
    assert set(codes) <= covered, f"no program exercises the fix of {sorted(set(codes) - covered)}"


def _mutant_package(root: Path) -> Path:
    """A copy of privlint whose public-twin template runs the private branch first: wrong."""
    shutil.copytree(harness.REPO / "privlint", root / "privlint",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(harness.REPO / "rules", root / "privlint" / "rules")
    template = root / "privlint" / "fix" / "templates" / "public_twin_probe.py"
    text = template.read_text(encoding="utf-8")
    assert "    {public}\nelse:\n    {private}" in text
    text = text.replace("    {public}\nelse:\n    {private}", "    {private}\nelse:\n    {public}")
    template.write_text(text, encoding="utf-8")
    return root


def test_oracle_goes_red_on_a_wrong_template(tmp_path):
    mutant = _mutant_package(tmp_path / "mutant")
    programs = harness.load_programs(["d232_decorator", "d233_reset_module"])
    env = {"PYTHONPATH": str(mutant)}
    failures, fixed, _ = harness.run_oracle(programs, tmp_path / "work", None, env=env)
    assert b"else torch.compiler" in fixed.texts["safe"]["d232_decorator"] or \
        b"torch.compiler.reset" in fixed.texts["safe"]["d233_reset_module"]
    assert any("safe fix differs on hidden" in f for f in failures), failures
