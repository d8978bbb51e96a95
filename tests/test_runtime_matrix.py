"""privlint verify/probe across torch builds (issue 13), and the single-build mode's two fixes.

Real ranks, real process groups (gloo), real torch 2.4.1 and 2.13.0: the second build is the
environment .ci/run makes for the fix oracle (`.venv-old`, torch 2.4.1), reached the way a user's
CI would reach a prepared environment -- through the env cache (`torch-2.4.1` -> .venv-old).
Locally, PRIVLINT_TEST_TORCH_OLD=/path/to/env points at another copy; without one the tests that
need it skip, except under CI=true, where a missing environment is a failure.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import REPO, run_privlint

torch = pytest.importorskip("torch")
VERIFY = Path(__file__).parent / "fixtures" / "verify"
CASES = VERIFY / "matrix_cases.py"
OWN = torch.__version__.split("+")[0]


def _old_env() -> Path | None:
    for candidate in (os.environ.get("PRIVLINT_TEST_TORCH_OLD"), str(REPO / ".venv-old")):
        if candidate and (Path(candidate) / "bin" / "python").exists():
            return Path(candidate)
    return None


@pytest.fixture(scope="module")
def env_cache(tmp_path_factory) -> Path:
    """An env cache whose torch-2.4.1 is the prepared environment (a link, no second install)."""
    old = _old_env()
    if old is None:
        message = ("no torch 2.4.1 environment: .ci/run makes .venv-old; locally set "
                   "PRIVLINT_TEST_TORCH_OLD=/path/to/env")
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    cache = tmp_path_factory.mktemp("envs")
    (cache / "torch-2.4.1").symlink_to(old.resolve())
    return cache


@pytest.fixture(scope="module")
def matrix(env_cache, tmp_path_factory) -> dict:
    """One run of the three fallbacks on both builds (4 CPU ranks each)."""
    cwd = tmp_path_factory.mktemp("matrix")
    start = time.monotonic()
    result = run_privlint(
        "verify", str(CASES), "--call", "seed(device_type, world_size)",
        "--call", "with_backend_override(device_type, world_size)",
        "--call", "transposed(device_type, world_size)",
        "--torch", "2.4.1", "--torch", OWN, "--nproc", "4", "--timeout", "150", "--json",
        cwd=cwd, env={"PRIVLINT_TORCH_ENVS": str(env_cache)}, timeout=400)
    assert result.returncode == 1, result.stdout[-2000:] + result.stderr[-3000:]
    data = json.loads(result.stdout)
    data["wall"] = time.monotonic() - start
    return data


def _line_of(path: Path, needle: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def test_both_builds_ran_each_on_its_own_ranks(matrix):
    builds = matrix["run"]["builds"]
    assert [b["torch"].split("+")[0] for b in builds] == ["2.4.1", OWN]
    assert [b["own"] for b in builds] == [False, True]
    assert all(b["ranks"] == 4 and b["backend"] == "gloo" for b in builds)
    assert builds[0]["present"]["torch.distributed.device_mesh.DeviceMesh._unflatten"] is False
    assert builds[1]["present"]["torch.distributed.device_mesh.DeviceMesh._unflatten"] is True


def test_seed_fallback_passes_on_both_builds(matrix):
    seed = matrix["calls"][0]
    assert seed["passed"], seed["failures"]
    assert seed["reference"].startswith(f"torch {OWN}")  # the build that takes the private path
    rows = {(r["dim"], r["check"]): r for r in seed["rows"]}
    values = rows[("rep", "all_to_all")]["values"]
    assert len(values) == 2 and None not in values.values()  # both builds ran the collective
    assert rows[("-", "mesh")]["expected"] == [[0, 1], [2, 3]]
    assert any("2.4.1" in n and "take the fallback" in n for n in seed["notes"])


def test_backend_override_fallback_fails_naming_241(matrix):
    call = matrix["calls"][1]
    assert not call["passed"]
    assert [name.split("+")[0] for name in call["failed_builds"]] == ["torch 2.4.1"]
    line = _line_of(CASES, "backend_override={})")  # the call spans two lines
    at = [f"matrix_cases.py:{n} in with_backend_override" for n in (line - 1, line)]
    assert any("raised on ranks 0, 1, 2, 3: TypeError" in f and "backend_override" in f
               and any(a in f for a in at) for f in call["failures"]), call["failures"]


def test_transposed_fallback_fails(matrix):
    call = matrix["calls"][2]
    assert not call["passed"]
    assert [name.split("+")[0] for name in call["failed_builds"]] == ["torch 2.4.1"]
    assert any("mesh: [[0, 2], [1, 3]]" in f and "gives [[0, 1], [2, 3]]" in f
               for f in call["failures"]), call["failures"]
    assert any("all_reduce" in f for f in call["failures"])


def test_matrix_within_budget(matrix):
    assert matrix["wall"] < 150, matrix["wall"]


def test_probe_matrix_rows_are_apis_columns_are_builds(env_cache, tmp_path):
    env = {"PRIVLINT_TORCH_ENVS": str(env_cache)}
    result = run_privlint("probe", "--torch", "2.4.1", "--torch", OWN, "--json", cwd=tmp_path,
                          env=env)
    assert result.returncode == 0, result.stderr[-2000:]
    data = json.loads(result.stdout)
    versions = [b["torch"] for b in data["builds"]]
    assert [v.split("+")[0] for v in versions] == ["2.4.1", OWN]
    rows = {row["code"]: row for row in data["catalog"]}
    old, new = versions
    assert rows["PRV101"]["present"] == {old: False, new: True}          # _unflatten: 2.10+
    assert rows["PRV105"]["present"] == {old: True, new: False}          # _dim_group_infos: <2.8
    assert rows["PRV101"]["replacement_present"] == {old: True, new: True}
    assert rows["PRV101"]["agrees_with_catalog"] == {old: True, new: True}
    import io

    from privlint.runtime.probe import write_matrix

    text = io.StringIO()  # the text table, from the same data
    write_matrix(data["builds"], data["catalog"], text)
    lines = text.getvalue().splitlines()
    assert lines[0].split() == versions
    assert next(l for l in lines if l.startswith("PRV101")).split()[-2:] == [".", "+"]
    assert next(l for l in lines if l.startswith("PRV105")).split()[-2:] == ["+", "."]


# -- environments: made, cached, and never a hang ------------------------------------------

@pytest.fixture
def silent_index():
    """An index that accepts connections and never answers (a network that hangs)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/simple"
    stop.set()
    thread.join()
    for connection in held:
        connection.close()
    server.close()


def _closed_port_index() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/simple"  # nothing listens there: connection refused


def _installers() -> list[str]:
    from shutil import which

    found = ["pip"]
    if which("uv") or (Path(sys.executable).parent / "uv").is_file():
        found.append("uv")
    return found


@pytest.mark.parametrize("installer", _installers())
def test_version_that_cannot_be_installed_exits_2_in_seconds(tmp_path, installer):
    start = time.monotonic()
    result = run_privlint("verify", str(CASES), "--call", "seed(device_type, world_size)",
                          "--torch", "0.0.1", "--torch-index", _closed_port_index(),
                          "--install-timeout", "120", cwd=tmp_path, timeout=150,
                          env={"PRIVLINT_TORCH_ENVS": str(tmp_path / "envs"),
                               "PRIVLINT_INSTALLER": installer})
    elapsed = time.monotonic() - start
    assert result.returncode == 2, result.stdout[-1000:] + result.stderr[-2000:]
    assert "torch 0.0.1 could not be installed" in result.stderr
    assert f"{installer} exited with" in result.stderr
    assert elapsed < 60, elapsed
    assert not (tmp_path / "envs" / "torch-0.0.1").exists()
    assert not list((tmp_path / "envs").glob(".torch-0.0.1.partial-*"))


def test_an_installer_that_hangs_is_killed_at_the_timeout(tmp_path, silent_index):
    start = time.monotonic()
    result = run_privlint("probe", "--torch", "2.4.1", "--torch-index", silent_index,
                          "--install-timeout", "15", cwd=tmp_path, timeout=120,
                          env={"PRIVLINT_TORCH_ENVS": str(tmp_path / "envs"),
                               "PRIVLINT_INSTALLER": "pip"})
    elapsed = time.monotonic() - start
    assert result.returncode == 2, result.stdout[-1000:] + result.stderr[-2000:]
    assert "torch 2.4.1 could not be installed (timed out after 15 s" in result.stderr
    assert elapsed < 15 + 30, elapsed
    assert not list((tmp_path / "envs").glob(".torch-2.4.1.partial-*"))


def test_a_cached_env_with_another_torch_is_an_error(tmp_path):
    """A cache entry that holds the wrong torch is named, never silently used."""
    cache = tmp_path / "envs"
    cache.mkdir()
    (cache / "torch-2.4.1").symlink_to(Path(sys.prefix).resolve())  # holds torch 2.13
    result = run_privlint("probe", "--torch", "2.4.1", cwd=tmp_path,
                          env={"PRIVLINT_TORCH_ENVS": str(cache)})
    assert result.returncode == 2
    assert f"holds torch {torch.__version__}" in result.stderr


def test_usage_errors_exit_2_before_any_install(tmp_path):
    env = {"PRIVLINT_TORCH_ENVS": str(tmp_path / "envs")}
    bad = run_privlint("verify", str(CASES), "--call", "seed(", "--torch", "0.0.1", cwd=tmp_path,
                       env=env)
    assert bad.returncode == 2 and "is not a Python expression" in bad.stderr
    odd = run_privlint("probe", "--torch", "banana", cwd=tmp_path, env=env)
    assert odd.returncode == 2 and "not a torch version" in odd.stderr
    assert not (tmp_path / "envs").exists()


def test_config_table_names_the_builds(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.privlint.verify]\ntorch = ["0.0.1"]\n')
    result = run_privlint("verify", str(CASES), "--call", "seed(device_type, world_size)",
                          "--torch-index", _closed_port_index(), cwd=tmp_path,
                          env={"PRIVLINT_TORCH_ENVS": str(tmp_path / "envs"),
                               "PRIVLINT_INSTALLER": "pip"})
    assert result.returncode == 2 and "torch 0.0.1 could not be installed" in result.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.privlint.verify]\ntorch = "2.4.1"\n')
    wrong = run_privlint("verify", str(CASES), "--call", "seed(device_type, world_size)",
                         cwd=tmp_path)
    # A setting privlint cannot use is a warning naming the key; the run goes on (A/B).
    assert "tool.privlint.verify.torch" in wrong.stderr and "warning" in wrong.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.privlint.verify]\nbuilds = ["2.4.1"]\n')
    unknown = run_privlint("verify", str(CASES), "--call", "seed(device_type, world_size)",
                           cwd=tmp_path)
    assert "tool.privlint.verify.builds" in unknown.stderr and "unknown key" in unknown.stderr


# -- the single-build mode (A against B), fixed ------------------------------------------

def test_probe_of_a_member_torch_itself_calls_passes_from_the_package_root(tmp_path):
    """Run B hides `_get_root_mesh` from the target, not from torch (which slices meshes through
    it), hides nothing the probes do not test, and imports the target from its package root
    (relative and absolute sibling imports) with no PYTHONPATH set."""
    env = {"PYTHONPATH": ""} if not os.environ.get("PYTHONPATH") else {}
    result = run_privlint("verify", str(VERIFY / "pkgroot" / "mypkg" / "meshes.py"),
                          "--call", "build(device_type, world_size)", "--nproc", "2",
                          "--timeout", "150", "--json", cwd=tmp_path, env=env, timeout=240)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    data = json.loads(result.stdout)
    call = data["calls"][0]
    assert call["notes"] == ["hidden in B: DeviceMesh._get_root_mesh"], call["notes"]
    assert data["run"]["hidden"] == ["torch.distributed.device_mesh.DeviceMesh._get_root_mesh"]
    assert data["run"]["imported"].startswith(
        f"mypkg.meshes, with {VERIFY / 'pkgroot'} on sys.path")


def test_pp2_reshape_fallback_fails_on_a_crossed_group_name(tmp_path):
    """DeviceMesh(dev, flat.mesh.reshape(...)) on the dp slice of a (pp=2, dp=2) world: one group
    name covers ranks [0, 1] on some ranks and [2, 3] on others.

    Both sides meet in gloo's rendezvous under that one name, so which ranks get through is a
    race, and most runs hang until the timeout. The name is seen with both member lists, or one
    side hung inside the call while the other returned, or (not seen yet) every rank hung in it:
    each FAILs the fallback, and none is blamed on the private path (A)."""
    result = run_privlint("verify", str(VERIFY / "pp_reshape_fallback.py"),
                          "--call", "build(device_type, world_size)", "--nproc", "4",
                          "--timeout", "45", "--json", cwd=tmp_path, timeout=200)
    assert result.returncode == 1, result.stdout[-3000:] + result.stderr[-2000:]
    failures = json.loads(result.stdout)["calls"][0]["failures"]
    crossed = [f for f in failures if "has different members on different ranks" in f]
    split = [f for f in failures if f.startswith("B: ") and "hung inside the call" in f]
    all_hung = all(f"rank {rank} did not finish (last step: call 1 B: evaluating)" in failures
                   for rank in range(4))
    assert (crossed and "[0, 1] on rank" in crossed[0] and "[2, 3] on rank" in crossed[0]) \
        or split or all_hung, failures
    assert not any(f.startswith("A") or "call 1 A" in f for f in failures), failures


def test_target_is_imported_from_its_package_root(tmp_path, monkeypatch):
    """The worker's loader, in this process: a module inside a package is imported by its dotted
    name from the first directory above it without __init__.py (relative and absolute sibling
    imports work); a file name that is no identifier still loads inside its package."""
    from privlint.runtime.worker import _load_target, package_root

    package = tmp_path / "repo" / "top" / "sub"
    package.mkdir(parents=True)
    for folder in (package.parent, package):
        (folder / "__init__.py").write_text("")
    (package / "sibling.py").write_text("VALUE = 7\n")
    (package / "mod.py").write_text("from .sibling import VALUE\nfrom top.sub import sibling\n"
                                    "BOTH = (VALUE, sibling.VALUE)\n")
    (package / "mod.out.py").write_text("from .sibling import VALUE\n")
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(sys, "modules", dict(sys.modules))
    assert package_root(package / "mod.py") == (tmp_path / "repo", "top.sub.mod")
    module = _load_target(str(package / "mod.py"))
    assert module.__name__ == "top.sub.mod" and module.BOTH == (7, 7)
    assert sys.path[0] == str(tmp_path / "repo")
    odd = _load_target(str(package / "mod.out.py"))
    assert odd.VALUE == 7 and odd.__name__ == "top.sub.privlint_verify_target"


def test_probes_name_what_run_b_hides():
    from privlint.runtime.verify import probed_names

    source = '''
import torch
def f(mesh):
    # _flatten_mapping is only named here
    if hasattr(mesh, "_unflatten"):
        return mesh._unflatten(0, (2, 2), ("a", "b"))
    root = getattr(mesh, "_get_root_mesh", None)
    plain = getattr(mesh, "_layout")  # no default: no probe
    try:
        from torch.distributed.device_mesh import _mesh_resources
    except ImportError:
        _mesh_resources = None
    try:
        mesh._concatenate([mesh])
    except ValueError:
        pass
    return mesh._get_mesh_dim_by_name("a")
'''
    assert probed_names(source) == {"_unflatten", "_get_root_mesh", "_mesh_resources"}
