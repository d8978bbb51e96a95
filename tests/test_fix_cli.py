"""--fix, --diff, --fix-only and --unsafe-fixes through the CLI; what is kept when writing."""

from __future__ import annotations

import os
from pathlib import Path
import stat

import pytest

from conftest import run_privlint, write
from privlint.writer import ChangedOnDisk, write_atomic

SAFE = '''\
from torch.distributed.device_mesh import init_device_mesh


def build(device_type, world_size):
    mesh = init_device_mesh(device_type, (world_size,), mesh_dim_names=("dp",))
    return mesh._unflatten(0, (2, world_size // 2), ("rep", "shard"))
'''
UNSAFE = '''\
def build(mesh):
    return mesh._unflatten(0, (2, 2), ("rep", "shard"))
'''


def test_text_marks_and_json_fix_field(project):
    write(project, "safe.py", SAFE)
    write(project, "unsafe.py", UNSAFE)
    text = run_privlint("check", cwd=project).stdout
    assert "safe.py:6:12: PRV101 [*] " in text and "unsafe.py:2:12: PRV101 [-] " in text
    assert "[*] 1 fixable with `--fix`." in text
    assert "[-] 1 more fixable with `--fix --unsafe-fixes`" in text
    data = run_privlint("check", "--format", "json", cwd=project).json
    fixes = {f["path"]: f["fix"] for f in data["findings"]}
    assert fixes["safe.py"]["applicability"] == "safe"
    assert fixes["unsafe.py"]["applicability"] == "unsafe"
    assert "not proven to be a 1-D mesh" in fixes["unsafe.py"]["description"]
    assert data["summary"]["fixable"] == 1 and data["summary"]["fixable_unsafe"] == 1


def test_diff_writes_nothing_and_sets_exit_code(project):
    path = write(project, "safe.py", SAFE)
    diff = run_privlint("check", "--diff", cwd=project)
    assert diff.returncode == 1
    assert '+    if hasattr(mesh, "_unflatten"):' in diff.stdout and "--- a/safe.py" in diff.stdout
    assert path.read_text() == SAFE
    clean = write(project, "safe.py", "import torch\n")
    assert run_privlint("check", "--diff", cwd=project).returncode == 0
    assert clean.read_text() == "import torch\n"


def test_fix_applies_safe_only_unless_asked(project):
    safe, unsafe = write(project, "safe.py", SAFE), write(project, "unsafe.py", UNSAFE)
    result = run_privlint("check", "--fix", cwd=project)
    assert result.returncode == 1  # the unsafe finding remains
    assert "Fixed 1 finding (0 unsafe) in 1 file; 1 finding left." in result.stdout
    assert "hasattr(mesh" in safe.read_text() and unsafe.read_text() == UNSAFE
    result = run_privlint("check", "--fix", "--unsafe-fixes", cwd=project)
    assert result.returncode == 0
    assert "privlint verify unsafe.py --call 'build(mesh)' --nproc 4  # give mesh a value" in result.stdout
    assert "mesh.device_type" in unsafe.read_text()


def test_fix_only_reports_nothing(project):
    write(project, "safe.py", SAFE)
    result = run_privlint("check", "--fix-only", cwd=project)
    assert result.returncode == 0
    assert "PRV101" not in result.stdout and "Fixed 1 finding" in result.stdout


@pytest.mark.parametrize("prefix,newline,encoding", [
    (b"", b"\r\n", "utf-8"),
    (b"\xef\xbb\xbf", b"\n", "utf-8"),
    (b"# -*- coding: latin-1 -*-\n", b"\n", "latin-1"),
])
def test_fix_keeps_encoding_bom_line_endings_and_mode(project, prefix, newline, encoding):
    body = ("# café\n" + SAFE).replace("\n", newline.decode()).encode(encoding)
    path = project / "enc.py"
    path.write_bytes(prefix + body)
    os.chmod(path, 0o751)
    result = run_privlint("check", "--fix", "enc.py", cwd=project)
    assert "Fixed 1 finding" in result.stdout, result.stdout + result.stderr
    data = path.read_bytes()
    assert data.startswith(prefix)
    assert "café".encode(encoding) in data
    text = data[len(prefix):].decode(encoding)
    assert 'if hasattr(mesh, "_unflatten"):' in text
    if newline == b"\r\n":
        assert text.count("\r\n") == text.count("\n")
    else:
        assert "\r" not in text
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o751
    leftovers = [p.name for p in project.iterdir() if "privlint-tmp" in p.name]
    assert leftovers == []


def test_unparsable_file_is_left_byte_identical(project):
    broken = b"import torch\nmesh._unflatten(0, (2,), ('a',)\n\x00"
    path = project / "broken.py"
    path.write_bytes(broken)
    result = run_privlint("check", "--fix", "--unsafe-fixes", cwd=project)
    assert result.returncode == 1 and "PRV002" in result.stdout
    assert path.read_bytes() == broken


def test_read_only_file_is_reported_not_written(project):
    path = write(project, "ro.py", SAFE)
    os.chmod(path, 0o444)  # refused even when running as root: the mode says "do not change"
    result = run_privlint("check", "--fix", cwd=project)
    assert result.returncode == 1
    assert "ro.py:1:1: PRV003 fix not written: file is read-only" in result.stdout
    assert path.read_text() == SAFE


def test_writer_refuses_a_file_changed_since_read(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes(b"old\n")
    with pytest.raises(ChangedOnDisk):
        write_atomic(path, b"what privlint read\n", b"new\n")
    assert path.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.py"]
    write_atomic(path, b"old\n", b"new\n")
    assert path.read_bytes() == b"new\n"


def test_fix_writes_through_a_link_inside_the_project(project):
    real = write(project, "pkg/real.py", SAFE)
    link = project / "link.py"
    link.symlink_to(Path("pkg") / "real.py")
    result = run_privlint("check", "--fix", "link.py", cwd=project)
    assert "Fixed 1 finding" in result.stdout, result.stdout + result.stderr
    assert link.is_symlink() and os.readlink(link) == str(Path("pkg") / "real.py")
    assert 'if hasattr(mesh, "_unflatten"):' in real.read_text()


def test_fix_leaves_a_link_to_outside_the_project(project, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "shared.py"
    outside.write_text(SAFE)
    link = project / "link.py"
    link.symlink_to(outside)
    result = run_privlint("check", "--fix", "link.py", cwd=project)
    assert result.returncode == 1
    assert "link.py:1:1: PRV003 fix not written: a symbolic link to" in result.stdout, result.stdout
    assert "outside the project" in result.stdout
    assert link.is_symlink() and outside.read_text() == SAFE
