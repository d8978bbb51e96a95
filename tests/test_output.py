"""What a user reads: ruff's `full` and `concise` shapes, `privlint rule`, pipes, counts."""

from __future__ import annotations

import subprocess
import sys

from conftest import run_privlint, run_with_terminal_stderr, write

SOURCE = '''
from torch.distributed.device_mesh import init_device_mesh

def build(device_type, ws):
    mesh = init_device_mesh(device_type, (ws,), mesh_dim_names=("dp",))
    return mesh._unflatten(0, (2, ws // 2), ("rep", "shard"))
'''


def test_full_format_has_a_code_frame_and_help_lines(project):
    write(project, "a.py", SOURCE)
    out = run_privlint("check", "--output-format", "full", cwd=project, env={"NO_COLOR": "1"}).stdout
    lines = out.splitlines()
    assert lines[0] == ("a.py:5:12: PRV101 [*] `DeviceMesh._unflatten` is a private torch API "
                        "(torch 2.10+)")
    assert lines[2] == '5 |     return mesh._unflatten(0, (2, ws // 2), ("rep", "shard"))'
    assert lines[3] == "  |            ^^^^^^^^^^^^^^^ PRV101"  # under the span, its width
    assert "  = help: absent before torch 2.10" in out
    assert "  = see: privlint rule PRV101" in out
    assert "\x1b[" not in out  # NO_COLOR
    coloured = run_privlint("check", "--output-format", "full", cwd=project,
                            env={"FORCE_COLOR": "1"}).stdout
    assert "\x1b[1;31mPRV101\x1b[0m" in coloured


def test_concise_is_the_default_when_piped_and_format_is_an_alias(project):
    write(project, "a.py", SOURCE)
    piped = run_privlint("check", cwd=project).stdout
    assert piped.splitlines()[0].startswith("a.py:5:12: PRV101 [*] `DeviceMesh._unflatten` is a "
                                            "private torch API (torch 2.10+): absent before")
    assert run_privlint("check", "--format", "concise", cwd=project).stdout == piped
    assert run_privlint("check", "--output-format", "text", cwd=project).stdout == piped


def test_counts_and_missing_paths(project):
    write(project, "clean.py", "import torch\n")
    assert "All checks passed! (1 file checked)" in run_privlint("check", cwd=project).stdout
    missing = run_privlint("check", "nope.py", "clean.py", cwd=project)
    assert "Found 1 finding in 1 of 2 files checked." in missing.stdout
    ignored = run_privlint("check", "nope.py", "--ignore", "PRV003", cwd=project)
    assert ignored.returncode == 0 and "PRV003" not in ignored.stdout


def test_rule_explains_one_rule(project):
    result = run_privlint("rule", "prv102", cwd=project)
    assert result.returncode == 0
    assert "Torch versions that have it: torch 2.5+" in result.stdout
    assert "`backend_override=` works from torch 2.9" in result.stdout
    assert "Guards that count:" in result.stdout and "Flagged:" in result.stdout
    unknown = run_privlint("rule", "PRV999", cwd=project)
    assert unknown.returncode == 2 and "no rule 'PRV999'" in unknown.stderr
    assert "privlint rule CODE" in run_privlint("rules", cwd=project).stdout


def test_a_reader_that_goes_away_is_no_traceback(project):
    # `privlint rules | head -0`: the reader is gone before privlint writes its first line.
    proc = subprocess.Popen([sys.executable, "-m", "privlint", "rules"], cwd=project,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
    proc.stdout.close()
    _, err = proc.communicate(timeout=60)
    assert b"Traceback" not in err and b"BrokenPipe" not in err


def test_progress_on_a_terminal_only(project):
    for i in range(3):
        write(project, f"m{i}.py", "import torch\nx = torch._C._foo()\n")
    proc, shown = run_with_terminal_stderr("check", "--no-cache", cwd=project)
    assert proc.returncode == 1
    assert b"3/3 files checked" in shown
    assert b"files checked (" not in proc.stdout  # the report itself is untouched
    piped = run_privlint("check", "--no-cache", cwd=project, env={"CI": ""})
    assert "files checked (" not in piped.stderr  # a pipe gets no progress


def test_a_migration_lists_changed_files_and_groups_verify_commands_by_file(project):
    unsafe = '''
from torch.distributed.device_mesh import DeviceMesh

def build(mesh: DeviceMesh):
    return mesh._unflatten(0, (2, 2), ("rep", "shard"))
'''
    write(project, "a.py", unsafe)
    write(project, "b.py", unsafe.replace("build", "make"))
    out = run_privlint("check", "--fix", "--unsafe-fixes", cwd=project).stdout
    assert "Changed:\n  a.py: 1 fix (1 unsafe)\n  b.py: 1 fix (1 unsafe)\n" in out, out
    assert ("file by file:\n  a.py:\n    privlint verify a.py --call 'build(mesh)'" in out), out
    assert "  b.py:\n    privlint verify b.py --call 'make(mesh)'" in out


def test_a_rewritten_call_keeps_the_original_line_breaks(project):
    write(project, "a.py", '''
from torch.distributed.device_mesh import init_device_mesh


def build(device_type, world_size, replicate_degree_for_hybrid_sharding):
    mesh = init_device_mesh(device_type, (world_size,), mesh_dim_names=("dp",))
    hybrid = mesh._unflatten(
        0,
        (replicate_degree_for_hybrid_sharding, world_size // replicate_degree_for_hybrid_sharding),
        ("dp_replicate", "dp_shard"),
    )
    return hybrid
''')
    run_privlint("check", "--fix", "--unsafe-fixes", cwd=project)
    fixed = (project / "a.py").read_text()
    assert '''    else:
        hybrid = init_device_mesh(
            device_type,
            mesh_shape=(replicate_degree_for_hybrid_sharding, world_size // replicate_degree_for_hybrid_sharding),
            mesh_dim_names=("dp_replicate", "dp_shard"),
        )
''' in fixed, fixed
    assert "hybrid = init_device_mesh(device_type, mesh_shape" not in fixed  # not one long line
