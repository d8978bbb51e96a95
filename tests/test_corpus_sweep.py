"""A sweep over real framework files from PyPI: --fix --unsafe-fixes output compiles,
a second --fix changes nothing, and no safe fix is left. Needs PyPI (pip download);
the files most likely to be rewritten (those naming a fixable private API) are swept."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, run_privlint

FIXABLE = re.compile(rb"_unflatten|distributed\._tensor|_composable|_dynamo|_get_default_group|_all_gather_base"
                     rb"|_reduce_scatter_base|_host_emptyCache|_LRScheduler")


@pytest.fixture(scope="module")
def downloaded(tmp_path_factory):
    dest = tmp_path_factory.mktemp("corpus")
    subprocess.run([sys.executable, str(REPO / "bench" / "corpus.py"), "--small", "--dest",
                    str(dest)], check=True, capture_output=True)
    return dest


@pytest.fixture(scope="module")
def corpus(downloaded):
    dest = downloaded
    work = dest / "work"
    for path in (dest / "src").rglob("*.py"):
        if FIXABLE.search(path.read_bytes()):
            target = work / path.relative_to(dest / "src")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    (work / "pyproject.toml").write_text("[tool.privlint]\n")
    return work


@pytest.mark.slow
def test_fix_sweep_on_real_frameworks(corpus):
    files = sorted(corpus.rglob("*.py"))
    assert len(files) > 30
    before = {p: p.read_bytes() for p in files}
    first = run_privlint("check", ".", "--fix", "--unsafe-fixes", cwd=corpus)
    assert first.returncode in (0, 1) and "Traceback" not in first.stderr, first.stderr
    changed = [p for p in files if p.read_bytes() != before[p]]
    assert changed, "expected the sweep to rewrite something"
    for path in changed:
        compile(path.read_bytes(), str(path), "exec")
    after = {p: p.read_bytes() for p in files}
    second = run_privlint("check", ".", "--fix", "--unsafe-fixes", cwd=corpus)
    assert "Fixed 0 findings" in second.stdout
    assert {p: p.read_bytes() for p in files} == after
    report = run_privlint("check", ".", "--format", "json", cwd=corpus)
    assert report.json["summary"]["fixable"] == 0
    assert not [f for f in report.findings if f["code"] == "PRV002"]


@pytest.mark.slow
@pytest.mark.parametrize("package,least_findings", [("accelerate", 10), ("torchtitan", 250)])
def test_prefilter_is_lossless_on_a_real_framework(downloaded, package, least_findings):
    """Both prefilters (the text one and the `ast` gate) and slicing on, then slicing off, then
    all off: the same report, fingerprints included."""
    tree = next((downloaded / "src").glob(f"{package}-*"))
    (tree / "pyproject.toml").write_text("[tool.privlint]\n")
    filtered = run_privlint("check", ".", "--format", "json", "--no-cache", cwd=tree)
    whole = run_privlint("check", ".", "--format", "json", "--no-cache", "--no-slicing", cwd=tree)
    unfiltered = run_privlint("check", ".", "--format", "json", "--no-cache", "--no-prefilter",
                              cwd=tree)
    assert filtered.json == whole.json
    assert filtered.json == unfiltered.json
    assert filtered.json["summary"]["files_checked"] > 80
    assert filtered.json["summary"]["findings"] >= least_findings
