"""The GitHub Action (action.yml): its steps' own commands, run here as a runner would."""

from __future__ import annotations

import json
import os
import subprocess
import venv
from pathlib import Path

import pytest

from conftest import REPO, write

yaml = pytest.importorskip("yaml")  # PyYAML comes with pre-commit, a test dependency
ACTION = yaml.safe_load((REPO / "action.yml").read_text())


def _step(name: str) -> dict:
    return next(step for step in ACTION["runs"]["steps"] if step["name"] == name)


def _env(step: dict, inputs: dict[str, str], base: dict[str, str]) -> dict[str, str]:
    """The step's `env:` with `${{ inputs.x }}` filled in, as the runner does."""
    env = dict(base)
    for key, value in step.get("env", {}).items():
        for name, given in inputs.items():
            value = value.replace("${{ inputs.%s }}" % name, given)
        env[key] = value
    return env


@pytest.fixture(scope="module")
def runner_python(tmp_path_factory) -> Path:
    """A fresh environment standing in for the runner's Python: the action installs into it."""
    home = tmp_path_factory.mktemp("runner")
    venv.EnvBuilder(with_pip=True).create(home / "env")
    # privlint's dependencies (and hatchling to build it) come from the test environment, so
    # the run needs no network: pip installs privlint itself, as the action's step says.
    base = dict(os.environ, GITHUB_ACTION_PATH=str(REPO), PYTHONPATH=_site_packages(),
                PATH=f"{home / 'env' / 'bin'}{os.pathsep}{os.environ['PATH']}",
                PIP_NO_DEPS="1", PIP_NO_BUILD_ISOLATION="0", PIP_NO_INDEX="1")
    install = _step("Install privlint")
    result = subprocess.run(["bash", "-c", install["run"]], env=_env(install, {"version": ""}, base),
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert (home / "env" / "bin" / "privlint").exists()
    return home / "env" / "bin"


def _site_packages() -> str:
    import sysconfig

    return sysconfig.get_paths()["purelib"]


def _run_check(bin_dir: Path, cwd: Path, inputs: dict[str, str]):
    step = _step("Run privlint")
    base = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
                PYTHONPATH=_site_packages())
    return subprocess.run(["bash", "-c", step["run"]], cwd=cwd, env=_env(step, inputs, base),
                          capture_output=True, text=True, timeout=300)


def test_github_annotations_fail_the_job_on_findings(runner_python, project):
    write(project, "src/train.py", "import torch\nx = torch._C._host_emptyCache()\n")
    result = _run_check(runner_python, project, {"args": "src --target-torch '>=2.0'",
                                                 "output-format": "github"})
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("::error file=src/train.py,line=2,")


def test_sarif_is_written_for_upload(runner_python, project):
    write(project, "src/train.py", "import torch\nx = torch._C._host_emptyCache()\n")
    result = _run_check(runner_python, project, {"args": ".", "output-format": "sarif"})
    assert result.returncode == 0, result.stderr  # code scanning gates, not the step
    sarif = json.loads((project / "privlint.sarif").read_text())
    assert sarif["runs"][0]["results"][0]["ruleId"] == "PRV403"
    upload = _step("Upload SARIF")
    assert upload["uses"].startswith("github/codeql-action/upload-sarif")
    assert upload["with"]["sarif_file"] == "privlint.sarif"
