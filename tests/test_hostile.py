"""Hostile inputs and faults: one clear line per bad file, every other file still checked,
nothing half-written, no traceback. Real files on disk, the real CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import run_privlint, write

FINDING = b"import torch\nx = torch._C._host_emptyCache()\n"
FIXABLE = (b"from torch.distributed.device_mesh import init_device_mesh\n"
           b"mesh = init_device_mesh('cuda', (8,), mesh_dim_names=('w',))\n"
           b"sub = mesh._unflatten(0, (2, 4), ('a', 'b'))\n")

HOSTILE = {
    "syntax_error.py": b"import torch\ndef f(:\n    torch._C._x()\n",
    "python2.py": b"import torch\nprint 'hello', torch._C\n",
    "nul_bytes.py": b"import torch\x00\nx = torch._C._x\n",
    # Each mentions a private torch use: only files that could hold a finding are privlint's
    # business (README, "Unparsable files"), and these must not be waved through.
    "binary.py": bytes(range(256)) * 8 + b"\nimport torch\ntorch._C._x",
    "invalid_utf8.py": b"import torch\nx = '\xff\xfe\xfa'\ny = torch._C._x\n",
    "unknown_cookie.py": b"# -*- coding: klingon -*-\nimport torch\ny = torch._C._x\n",
    "deep_brackets.py": b"import torch\nx = " + b"(" * 5000 + b"torch._C._x" + b")" * 5000 + b"\n",
    "deep_unary.py": b"import torch\nx = " + b"not " * 20000 + b"torch._C._x\n",
}
PARSEABLE = {
    "latin1_cookie.py": "# -*- coding: latin-1 -*-\n# café\n".encode("latin-1") + FINDING,
    "bom.py": b"\xef\xbb\xbf" + FINDING,
    "crlf.py": FINDING.replace(b"\n", b"\r\n"),
    "mixed_endings.py": b"import torch\r\nx = 1\ny = torch._C._host_emptyCache()\r\n",
    "tabs_formfeed.py": b"import torch\n\x0c\ndef f():\n\tif True:\n\t\treturn torch._C._host_emptyCache()\n",
    "empty.py": b"",
    "newest_syntax.py": (b"import torch\ntype Alias = list[int]\n"
                         b"def f[T](x: T) -> T:\n    match x:\n        case [a, *_]:\n"
                         b"            return torch._C._host_emptyCache()\n    return f'{x!r:>{10}}'\n"),
    "deep_but_fine.py": b"import torch\nx = " + b"(" * 250 + b"torch._C._host_emptyCache()" + b")" * 250 + b"\n",
}
EXPECTED_FINDING_LINES = {"latin1_cookie.py": 4, "bom.py": 2, "crlf.py": 2, "mixed_endings.py": 3,
                          "tabs_formfeed.py": 5, "newest_syntax.py": 6, "deep_but_fine.py": 2}


def test_hostile_files_are_findings_and_the_rest_is_checked(project):
    for name, data in {**HOSTILE, **PARSEABLE}.items():
        (project / name).write_bytes(data)
    # Several MB: long docstrings keep libcst's parse (about 40 KB/s on dense code) short.
    doc = b'    """' + b"Lorem ipsum dolor sit amet. " * 110 + b'"""\n'
    (project / "large.py").write_bytes(FINDING + b"".join(b"def f%d():\n" % i + doc + b"    return %d\n" % i
                                                         for i in range(1000)))
    os.symlink("missing_target.py", project / "dangling.py")
    (project / "loop").mkdir()
    os.symlink("..", project / "loop" / "up")  # a directory link: never followed, so no loop
    os.symlink("/proc/self/mem", project / "unreadable.py")  # exists, but reading fails
    before = {p: p.read_bytes() for p in project.iterdir() if p.is_file() and not p.is_symlink()}
    for flags in ([], ["--fix", "--unsafe-fixes"]):
        result = run_privlint("check", "--format", "json", "--no-cache", *flags, cwd=project,
                              timeout=600)
        assert result.returncode == 1, result.stderr
        assert "Traceback" not in result.stderr
        by_path: dict[str, list[dict]] = {}
        for finding in result.findings:
            by_path.setdefault(finding["path"], []).append(finding)
        for name in HOSTILE:
            assert [f["code"] for f in by_path[name]] == ["PRV002"], (name, by_path.get(name))
            assert "\n" not in by_path[name][0]["message"]
        for name, line in EXPECTED_FINDING_LINES.items():
            if not flags:
                assert [(f["code"], f["line"]) for f in by_path[name]] == [("PRV403", line)], name
        if not flags:
            assert [f["code"] for f in by_path["large.py"]] == ["PRV403"]
        assert by_path["unreadable.py"][0]["code"] == "PRV003"
        assert by_path["dangling.py"][0]["code"] == "PRV003"
        assert "empty.py" not in by_path
    for path, data in before.items():
        if path.name in HOSTILE:
            assert path.read_bytes() == data, f"{path.name} changed"


def test_fix_keeps_encodings_of_hostile_but_valid_files(project):
    files = {"latin1.py": "# -*- coding: latin-1 -*-\n# café\n".encode("latin-1") + FIXABLE,
             "bom.py": b"\xef\xbb\xbf" + FIXABLE,
             "mixed.py": FIXABLE.replace(b"\n", b"\r\n", 1),
             "tabs.py": FIXABLE.replace(b"sub = ", b"if True:\n\tsub = ")}
    for name, data in files.items():
        (project / name).write_bytes(data)
    result = run_privlint("check", "--fix", cwd=project)
    assert "Fixed 4 findings" in result.stdout, result.stdout + result.stderr
    assert (project / "latin1.py").read_bytes().startswith(b"# -*- coding: latin-1 -*-\n# caf\xe9\n")
    assert (project / "bom.py").read_bytes().startswith(b"\xef\xbb\xbf")
    assert (project / "mixed.py").read_bytes().startswith(b"from torch.distributed.device_mesh "
                                                          b"import init_device_mesh\r\n")
    tabs = (project / "tabs.py").read_bytes()
    assert b'\tif hasattr(mesh, "_unflatten"):\n\t\tsub = ' in tabs
    for path in project.glob("*.py"):
        compile(path.read_bytes(), str(path), "exec")


def test_missing_path_on_the_command_line(project):
    write(project, "ok.py", "import torch\nx = torch._C._host_emptyCache()\n")
    result = run_privlint("check", "ok.py", "nope/", cwd=project)
    assert result.returncode == 1
    assert "nope:1:1: PRV003 cannot check: no such file or directory" in result.stdout
    assert "ok.py:2:5: PRV403" in result.stdout


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every directory")
def test_unreadable_directory(project):
    locked = project / "locked"
    locked.mkdir()
    write(project, "locked/a.py", "import torch\n")
    os.chmod(locked, 0)
    try:
        result = run_privlint("check", cwd=project)
        assert "locked:1:1: PRV003" in result.stdout
    finally:
        os.chmod(locked, 0o755)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_fix_leaves_every_file_old_or_new(tmp_path, sig):
    (tmp_path / "pyproject.toml").write_text("[tool.privlint]\n")
    body = FIXABLE + b"# padding\n" * 500
    for index in range(80):
        (tmp_path / f"m{index:03}.py").write_bytes(body)
    reference = tmp_path / "ref"
    reference.mkdir()
    (reference / "pyproject.toml").write_text("[tool.privlint]\n")
    (reference / "m.py").write_bytes(body)
    subprocess.run([sys.executable, "-m", "privlint", "check", "--fix", "m.py"], cwd=reference,
                   capture_output=True)
    fixed = (reference / "m.py").read_bytes()
    assert fixed != body
    process = subprocess.Popen([sys.executable, "-m", "privlint", "check", "--fix", "-j", "1",
                                "--no-cache", "."], cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until some files are written, then interrupt
        if any((tmp_path / f"m{i:03}.py").read_bytes() == fixed for i in range(80)):
            break
        time.sleep(0.05)
    process.send_signal(sig)
    _, stderr = process.communicate(timeout=60)
    assert b"Traceback" not in stderr
    states = [(tmp_path / f"m{i:03}.py").read_bytes() for i in range(80)]
    assert all(state in (body, fixed) for state in states)
    assert not list(tmp_path.glob(".*privlint-tmp"))


def test_config_errors_never_traceback(project):
    (project / "pyproject.toml").write_text("[tool.privlint]\nextend-rules = ['a.toml', 'b.toml']\n")
    rule = ('[[rule]]\ncode = "PRV950"\nkind = "attribute"\napi = "torch._x"\nmessage = "m"\n'
            'invalid = ["import torch\\ntorch._x\\n"]\n')
    (project / "a.toml").write_text(rule)
    (project / "b.toml").write_text(rule)
    result = run_privlint("check", cwd=project)
    assert result.returncode == 2 and "b.toml" in result.stderr and "duplicate rule code PRV950" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_the_checking_thread_leaves_interrupts_to_the_main_thread():
    # The main thread holds SIGINT/SIGTERM back while it replaces a file; a thread that could
    # take them instead would let an interrupt land between a temporary file and its rename.
    from privlint.safety import with_big_stack

    blocked = with_big_stack(signal.pthread_sigmask, signal.SIG_BLOCK, [])
    assert {signal.SIGINT, signal.SIGTERM} <= set(blocked)
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
