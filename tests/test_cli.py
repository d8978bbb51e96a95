"""The command line: exit codes, formats, selection, suppression, walking, no writes."""

from __future__ import annotations

import hashlib
import json

from conftest import run_privlint, write

UNGUARDED = '''
from torch.distributed.device_mesh import init_device_mesh

mesh = init_device_mesh("cuda", (8,))
sub = mesh._unflatten(0, (2, 4), ("rep", "shard"))
'''


def test_exit_codes(project):
    write(project, "clean.py", "import torch\nprint(torch.ones(1))\n")
    assert run_privlint("check", "clean.py", cwd=project).returncode == 0
    write(project, "bad.py", UNGUARDED)
    result = run_privlint("check", "bad.py", cwd=project)
    assert result.returncode == 1
    assert result.stdout.startswith("bad.py:4:7: PRV101 ")
    assert "Found 1 finding" in result.stdout
    assert run_privlint("check", "bad.py", "--exit-zero", cwd=project).returncode == 0
    assert run_privlint("check", "--select", "NOPE1", cwd=project).returncode == 2
    assert run_privlint("check", "--format", "yaml", cwd=project).returncode == 2
    assert run_privlint(cwd=project).returncode == 2  # no command


def test_version_and_rules(project):
    result = run_privlint("--version")
    assert result.returncode == 0 and result.stdout.startswith("privlint ")
    rules = run_privlint("rules", "--format", "json", cwd=project)
    rows = {row["code"]: row for row in json.loads(rules.stdout)}
    assert rows["PRV101"]["api"] == "torch.distributed.device_mesh.DeviceMesh._unflatten"
    assert rows["PRV101"]["versions"] == "torch 2.10+" and rows["PRV101"]["fixable"] is True
    assert rows["PRV105"]["versions"] == "torch 2.1–2.7"
    assert rows["PRV801"]["default"] is False
    text = run_privlint("rules", cwd=project).stdout
    assert "PRV101" in text and "torch.distributed._tensor" in text


def test_json_shape_and_sorting(project):
    write(project, "b.py", UNGUARDED)
    write(project, "a.py", "import torch\nx = torch._C._host_emptyCache()\nimport torch.distributed._tensor\n")
    result = run_privlint("check", "--format", "json", cwd=project)
    assert result.returncode == 1
    data = result.json
    keys = [(f["path"], f["line"], f["column"]) for f in data["findings"]]
    assert keys == sorted(keys)
    assert {"path", "line", "column", "end_line", "end_column", "code", "api", "message",
            "severity", "fix"} <= set(data["findings"][0])
    assert data["summary"]["findings"] == 3
    assert data["summary"]["by_code"] == {"PRV101": 1, "PRV201": 1, "PRV403": 1}


def test_select_ignore_and_stable_tier(project):
    write(project, "m.py", UNGUARDED + "import torch\ntorch._foreach_add_([], 1)\n"
          "from torch.distributed._tensor import DTensor\n")
    codes = lambda *args: sorted(f["code"] for f in run_privlint(  # noqa: E731
        "check", "m.py", "--format", "json", *args, cwd=project).findings)
    assert codes() == ["PRV101", "PRV201"]
    assert codes("--select", "PRV1") == ["PRV101"]
    assert codes("--ignore", "PRV101") == ["PRV201"]
    assert codes("--ignore", "PRV1", "--extend-select", "PRV101") == ["PRV101", "PRV201"]
    assert codes("--extend-select", "PRV8") == ["PRV101", "PRV201", "PRV801"]
    assert codes("--select", "ALL") == ["PRV101", "PRV201"]  # ALL leaves the stable tier off


def test_noqa_and_per_file_ignores(project):
    write(project, "sup.py", '''
from torch.distributed.device_mesh import DeviceMesh

def f(mesh: DeviceMesh):
    a = mesh._unflatten(0, (2,), ("a",))  # noqa
    b = mesh._unflatten(0, (2,), ("a",))  # noqa: PRV101
    c = mesh._unflatten(0, (2,), ("a",))  # noqa: PRV102
    d = mesh._unflatten(  # noqa: PRV102, PRV101
        0, (2,), ("a",))
    e = mesh._unflatten(
        0, (2,), ("a",))  # noqa: PRV101
    f = "# noqa"; g = mesh._unflatten(0, (2,), ("a",))
    h = "#"; i = mesh._unflatten(0, (2,), ("a",))  # NOQA: PRV101
    return a, b, c, d, e, f, g, h, i
''')
    lines = [f["line"] for f in run_privlint("check", "sup.py", "--format", "json", cwd=project).findings]
    assert lines == [6, 11]
    # A format spec holding `#` leaves prose.py unsure of what follows: the tokenizer reads it.
    write(project, "spec.py", '''
from torch.distributed.device_mesh import DeviceMesh

def f(mesh: DeviceMesh):
    tag = f"{1:#x}"
    a = mesh._unflatten(0, (2,), ("a",))  # noqa: PRV101
    b = "# noqa"; c = mesh._unflatten(0, (2,), ("a",))
    return tag, a, b, c
''')
    lines = [f["line"] for f in run_privlint("check", "spec.py", "--format", "json", cwd=project).findings]
    assert lines == [6]
    (project / "spec.py").unlink()
    write(project, "upper.py", "from torch.distributed.device_mesh import DeviceMesh\n"
          "def f(mesh: DeviceMesh):\n    return mesh._unflatten(0, (2,), ('a',))  # NOQA\n")
    assert run_privlint("check", "upper.py", cwd=project).returncode == 0
    (project / "upper.py").unlink()
    # Lone carriage returns end lines (prose.py is unsure of such text: the tokenizer reads it).
    (project / "cr.py").write_bytes(b"from torch.distributed.device_mesh import DeviceMesh\r"
                                    b"def f(mesh: DeviceMesh):\r"
                                    b"    return mesh._unflatten(0, (2,), ('a',))  # noqa\r")
    assert run_privlint("check", "cr.py", cwd=project).returncode == 0
    (project / "cr.py").unlink()
    (project / "pyproject.toml").write_text(
        '[tool.privlint]\nper-file-ignores = { "sup.py" = ["PRV1"], "tests/*" = ["PRV2"] }\n')
    write(project, "tests/t.py", "from torch.distributed._tensor import DTensor\n")
    result = run_privlint("check", "--format", "json", cwd=project)
    assert result.returncode == 0, result.stdout


def test_target_torch_from_project_dependencies(project):
    (project / "pyproject.toml").write_text(
        '[project]\nname = "demo"\ndependencies = ["torch>=2.6,<2.12", "numpy"]\n')
    write(project, "bad.py", UNGUARDED)
    finding = run_privlint("check", "--format", "json", cwd=project).findings[0]
    assert "absent before torch 2.10; your project supports torch>=2.6,<2.12" in finding["message"]
    assert finding["severity"] == "error"
    newer = run_privlint("check", "--format", "json", "--target-torch", ">=2.11", cwd=project)
    finding = newer.findings[0]
    assert finding["severity"] == "warning"
    assert "present in every torch your project supports (torch>=2.11)" in finding["message"]


def test_a_path_under_a_module_rule_is_not_said_to_have_the_module_s_window(project):
    # The catalog knows when `torch._inductor` and `torch.distributed._composable.fsdp` exist,
    # not their members: `kernel.flex_attention` is gone from torch 2.13 (a real-code audit).
    write(project, "under.py", "import torch\n"
          "from torch._inductor.kernel.flex_attention import construct_strides\n"
          "torch.distributed._composable.fsdp.fully_shard(model)\n"
          "import torch._inductor\n")
    findings = run_privlint("check", "--format", "json", "under.py", cwd=project).findings
    flex, fsdp, module = sorted(findings, key=lambda finding: finding["line"])
    assert "under `torch._inductor`, torch 2.0+; the catalog does not track `kernel.flex_attention` " \
           "itself): `torch._inductor` is present in every torch release" in flex["message"]
    assert "but what it holds may change or vanish in any release" in flex["message"]
    assert "`torch.distributed._composable.fsdp` is absent before torch 2.3" in fsdp["message"]
    assert fsdp["severity"] == "error" and flex["severity"] == "warning"
    assert "`torch._inductor` is a private torch API (torch 2.0+): present in every torch release" \
        in module["message"]


def test_other_torch_named_dependencies_do_not_stop_the_run(project):
    # torchtitan lists `torch_checkpointing`; its run once exited 2 reading it as torch.
    (project / "pyproject.toml").write_text(
        '[project]\nname = "demo"\ndependencies = ["torch_checkpointing>=0.1.0", "torchvision>=0.15",'
        ' "torch>=2.6"]\n')
    write(project, "bad.py", UNGUARDED)
    result = run_privlint("check", cwd=project)
    assert result.returncode == 1, result.stderr
    assert "Judged against torch>=2.6 (from pyproject.toml [project.dependencies])" in result.stdout
    assert "warning" not in result.stderr


def test_no_torch_range_is_said_once(project):
    write(project, "bad.py", UNGUARDED)
    write(project, "bad2.py", UNGUARDED)
    result = run_privlint("check", cwd=project)
    assert result.returncode == 1
    assert result.stderr.count("no torch requirement found") == 1


def test_a_range_below_the_catalog_is_judged_from_its_oldest_release(project):
    write(project, "bad.py", UNGUARDED + "import torch\ntorch._C._x()\n")
    (project / "requirements.txt").write_text("torch>=1.13\n")
    text = run_privlint("check", "--format", "concise", cwd=project)
    assert "Judged against torch>=1.13 (from requirements.txt), from torch 2.0 on: the catalog " \
           "knows no older release." in text.stdout
    assert "present in every torch your project supports from 2.0 on (torch>=1.13; the catalog " \
           "knows no older release)" in text.stdout
    summary = run_privlint("check", "--format", "json", cwd=project).json["summary"]["torch_range"]
    assert summary == {"specifier": "torch>=1.13", "source": "requirements.txt", "judged_from": "2.0"}
    # Only older releases: a warning, and every release the catalog knows.
    (project / "requirements.txt").write_text("torch==1.13.1\n")
    older = run_privlint("check", "--format", "concise", cwd=project)
    assert older.returncode == 1 and older.stderr.count("holds no release the catalog knows") == 1
    assert "your project supports" not in older.stdout and "Judged against" not in older.stdout


def test_walk_respects_gitignore_excludes_and_defaults(project):
    for rel in ("src/a.py", "src/generated/b.py", ".venv/lib/c.py", "build/d.py", "vendored/e.py",
                "src/keep.py"):
        write(project, rel, "from torch.distributed._tensor import DTensor\n")
    (project / ".gitignore").write_text("generated/\n*.py\n!src/a.py\n!keep.py\n")
    (project / "pyproject.toml").write_text('[tool.privlint]\nexclude = ["vendored"]\n')
    paths = sorted(f["path"] for f in run_privlint("check", "--format", "json", cwd=project).findings)
    assert paths == ["src/a.py", "src/keep.py"]
    # A file named on the command line is checked even where a walk would skip it.
    named = run_privlint("check", "build/d.py", "--format", "json", cwd=project)
    assert [f["path"] for f in named.findings] == ["build/d.py"]


def test_check_never_writes(project):
    paths = [write(project, "bad.py", UNGUARDED), write(project, "broken.py", "import torch\ndef (:\n")]
    before = {p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in paths}
    listing = sorted(p.name for p in project.rglob("*"))
    run_privlint("check", "--no-cache", cwd=project)
    assert sorted(p.name for p in project.rglob("*")) == listing  # not even a cache
    run_privlint("check", cwd=project)
    run_privlint("check", "--format", "json", cwd=project)
    after = {p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in paths}
    assert before == after
    sources = sorted(p.name for p in project.rglob("*") if ".privlint_cache" not in p.parts)
    assert sources == listing


def test_unparsable_file_is_a_finding_and_others_still_checked(project):
    write(project, "a_broken.py", "import torch\n\ndef f(:\n    torch._C._x()\n")
    write(project, "b_bad.py", UNGUARDED)
    write(project, "c_unrelated_broken.py", "def f(:\n")
    result = run_privlint("check", "--format", "json", cwd=project)
    assert result.returncode == 1
    found = [(f["path"], f["code"], f["line"]) for f in result.findings]
    assert found == [("a_broken.py", "PRV002", 3), ("b_bad.py", "PRV101", 4)]
    missing = run_privlint("check", "nope.py", cwd=project)
    assert missing.returncode == 1 and "nope.py:1:1: PRV003 cannot check: no such file" in missing.stdout


def test_version_does_not_import_libcst():
    import subprocess
    import sys

    code = ("import sys, privlint.cli as cli\ntry:\n    cli.main(['--version'])\n"
            "except SystemExit:\n    pass\nprint('libcst' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip().endswith("False"), result.stdout


def _buffered(*args: str, cwd) -> "subprocess.CompletedProcess[str]":
    """`python -m privlint` with stdout a pipe and Python's own buffering (no PYTHONUNBUFFERED):
    what is still in a buffer at the end must be flushed by privlint itself."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONUNBUFFERED", "PRIVLINT_CACHE_DIR")}
    return subprocess.run([sys.executable, "-m", "privlint", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_a_check_ends_with_all_its_output(project):
    # `privlint check` ends without tearing the interpreter down (cli.entry): what it wrote
    # to a pipe, to a file and to stderr must all be there, and the exit code kept.
    uses = "".join(f"sub{i} = mesh._unflatten(0, (2, 4), ('rep', 'shard'))\n" for i in range(1000))
    write(project, "many.py", UNGUARDED + uses)
    result = _buffered("check", "many.py", "--format", "concise", cwd=project)
    assert result.returncode == 1
    assert len(result.stdout) > 200_000  # more than a pipe holds: written as it was read
    assert result.stdout.count(" PRV101 ") == 1001 and "Found 1001 findings" in result.stdout
    to_file = _buffered("check", "many.py", "--format", "json", "-o", "out.json", cwd=project)
    assert to_file.returncode == 1 and to_file.stdout == ""
    assert len(json.loads((project / "out.json").read_text())["findings"]) == 1001
    assert "--select" in _buffered("check", "--select", "NOPE1", cwd=project).stderr


def test_a_check_whose_reader_goes_away_stops_quietly(project):
    import os
    import subprocess
    import sys

    write(project, "many.py", UNGUARDED + "x = mesh._unflatten(0, (2, 4), ('a', 'b'))\n" * 1000)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = subprocess.Popen([sys.executable, "-m", "privlint", "check", "many.py", "--format",
                             "concise"], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)
    proc.stdout.readline()
    proc.stdout.close()  # `privlint check | head -1`
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 141 and b"Traceback" not in stderr


def test_a_check_whose_reader_is_gone_before_the_output_is_flushed(project):
    import os
    import subprocess
    import sys

    write(project, "bad.py", UNGUARDED)  # one finding: it sits in stdout's buffer until the end
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = subprocess.Popen([sys.executable, "-m", "privlint", "check", "bad.py"], cwd=project,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdout.close()  # gone long before privlint has started
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 141 and b"Traceback" not in stderr


def test_a_check_whose_output_cannot_be_written_says_so(project):
    import os
    import subprocess
    import sys

    write(project, "bad.py", UNGUARDED)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with open("/dev/full", "w") as full:  # every write fails: no space left on the device
        proc = subprocess.run([sys.executable, "-m", "privlint", "check", "bad.py"], cwd=project,
                              stdout=full, stderr=subprocess.PIPE, env=env, timeout=120)
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr
    assert b"privlint: error: cannot write the output" in proc.stderr


def test_folders_resolve_as_realpath_does_through_links(tmp_path):
    # Folders are resolved through their parents' answers (one link check each): the answers
    # must be os.path.realpath's, through links at any depth, chains of links and `..`.
    import os

    from privlint.discover import real_directory

    (tmp_path / "a" / "b" / "c").mkdir(parents=True)
    (tmp_path / "L").symlink_to(tmp_path / "a" / "b", target_is_directory=True)
    (tmp_path / "M").symlink_to("L", target_is_directory=True)  # relative, to a link
    (tmp_path / "a" / "up").symlink_to("..", target_is_directory=True)
    folders = ["a/b/c", "L/c", "M/c", "M", "a/up/a/b", "M/../a", "L/c/..", "a/up/M/c"]
    for folder in folders:
        text = str(tmp_path / folder)
        assert str(real_directory(text)) == os.path.realpath(text), folder

