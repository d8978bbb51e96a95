"""The torch builds of `verify --torch` / `probe --torch`: find, or create and cache, one Python
environment per torch version, and run privlint's runtime side there.

Where the environments live: `--env-dir DIR`, else `$PRIVLINT_TORCH_ENVS`, else
`$XDG_CACHE_HOME/privlint/envs` (default `~/.cache/privlint/envs`), one folder `torch-X.Y.Z` each.
A folder there that already holds a Python with that torch is used as it is, so CI can point the
cache at an environment it made itself (`torch-2.4.1 -> .venv-old`, a symbolic link), and
`--torch PATH` names an environment (or its python) directly. The version the interpreter running
privlint already has needs no environment: that build runs here, on the GPUs if any.

Creating one: `uv venv` + `uv pip install torch==X.Y.Z` when `uv` is on PATH (or next to this
Python), else `python -m venv` + pip. Into a temporary folder renamed into place only once torch
imports, under a lock (two runs never install the same version at once). The installer is bounded
by `--install-timeout` and has no retries, and its whole process group is killed at the deadline:
a version that cannot be installed (no such release, no wheel for this Python, no network, an
index that does not answer) is an error naming the version, exit 2, never a hang.

How the runtime side reaches those environments: it is **not** installed into them. Each run copies
privlint's runtime package (privlint/__init__.py, errors.py and runtime/, which import nothing but
the standard library and torch; no libcst, no TOML) into its scratch folder and puts that folder
alone on the build's PYTHONPATH. The code every build runs is therefore exactly the code of the
privlint that reports, there is nothing to keep in sync, and an environment holds torch alone.
(Putting the installed privlint's own parent on PYTHONPATH instead would also put that
site-packages -- and its torch -- in front of the build's own.)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from privlint.errors import PrivlintError

_VERSION = re.compile(r"^\d+\.\d+(\.\d+)?([a-z]+\d*)?(\.post\d+|\.dev\d+)?$")
READY = ".privlint-torch"


@dataclass
class Build:
    label: str                      # as asked: "2.4.1", or a path
    python: str                     # the interpreter that runs this build's ranks
    own: bool = False               # the interpreter running privlint (GPUs allowed)
    env_dir: str | None = None
    version: str | None = None      # torch.__version__ there, once known
    installed: bool = False         # created by this run
    install_seconds: float | None = None

    @property
    def name(self) -> str:
        return f"torch {self.version or self.label}"


def env_root(flag: str | None = None) -> Path:
    if flag:
        return Path(flag).expanduser()
    if os.environ.get("PRIVLINT_TORCH_ENVS"):
        return Path(os.environ["PRIVLINT_TORCH_ENVS"]).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "privlint" / "envs"


def _python_in(path: Path) -> Path | None:
    if path.is_file() and os.access(path, os.X_OK):
        return path
    for candidate in (path / "bin" / "python", path / "Scripts" / "python.exe"):
        if candidate.is_file():
            return candidate
    return None


def _looks_like_path(spec: str) -> bool:
    return os.sep in spec or spec.startswith((".", "~")) or Path(spec).exists()


def _own_version() -> str | None:
    """This interpreter's torch, read from its metadata (importing torch takes seconds)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("torch")
    except PackageNotFoundError:
        return None


def same_release(asked: str, version: str | None) -> bool:
    """'2.4.1' matches '2.4.1' and '2.4.1+cpu'; '2.4.1+cu121' matches only itself."""
    if version is None:
        return False
    return version == asked or ("+" not in asked and version.split("+")[0] == asked)


def _uv() -> str | None:
    """uv if it is there (PATH, or next to this Python), unless PRIVLINT_INSTALLER=pip."""
    choice = os.environ.get("PRIVLINT_INSTALLER", "").lower()
    if choice == "pip":
        return None
    found = shutil.which("uv")
    if found:
        return found
    beside = Path(sys.executable).parent / "uv"
    found = str(beside) if beside.is_file() else None
    if found is None and choice == "uv":
        raise PrivlintError("PRIVLINT_INSTALLER=uv, but uv is not on PATH (pip install uv)")
    return found


def query_version(python: str, timeout: float = 120, load: bool = False) -> str | None:
    """The torch installed for that interpreter (its metadata, fast), or None when there is none;
    with `load`, torch.__version__ after importing it (None when it does not import)."""
    code = ("import torch; print(torch.__version__)" if load else
            "from importlib.metadata import version; print(version('torch'))")
    try:
        done = subprocess.run([python, "-c", code],
                              capture_output=True, text=True, timeout=timeout,
                              env=clean_env(None))
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = done.stdout.strip().splitlines()
    return lines[-1].strip() if done.returncode == 0 and lines else None


def clean_env(pythonpath: str | None) -> dict[str, str]:
    """The environment a build runs in: ours, without anything that would put another torch on
    its path; `pythonpath` alone on PYTHONPATH."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "__PYVENV_LAUNCHER__")}
    env["PYTHONNOUSERSITE"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return env


def resolve_builds(specs: list[str], root: Path, install_timeout: float, index: str | None,
                   log=None) -> list[Build]:
    """One Build per spec, in order, duplicates dropped; environments made as needed."""
    builds: list[Build] = []
    own = _own_version()
    for spec in specs:
        spec = spec.strip()
        if not spec:
            continue
        if _looks_like_path(spec):
            python = _python_in(Path(spec).expanduser())
            if python is None:
                raise PrivlintError(f"--torch {spec}: no Python environment there")
            version = query_version(str(python))
            if version is None:
                raise PrivlintError(f"--torch {spec}: no torch installed for {python}")
            build = Build(spec, str(python), env_dir=spec, version=version)
        elif not _VERSION.match(spec.split("+")[0]):
            raise PrivlintError(f"--torch {spec!r}: not a torch version (e.g. 2.4.1) or a path")
        elif same_release(spec, own):
            build = Build(spec, sys.executable, own=True, version=own)
        else:
            build = _cached_or_installed(spec, root, install_timeout, index, log)
        if any(b.python == build.python or (b.version and b.version == build.version)
               for b in builds):
            continue
        builds.append(build)
    if not builds:
        raise PrivlintError("--torch: no build named")
    return builds


def _cached_or_installed(spec: str, root: Path, timeout: float, index: str | None,
                         log) -> Build:
    env_dir = root / f"torch-{spec}"
    python = _python_in(env_dir)
    if python is not None:
        marker = env_dir / READY
        if marker.is_file() and marker.read_text().strip() == spec:
            return Build(spec, str(python), env_dir=str(env_dir), version=spec)
        version = query_version(str(python))  # prepared by someone else (CI, a link)
        if same_release(spec, version):
            return Build(spec, str(python), env_dir=str(env_dir), version=version)
        raise PrivlintError(f"torch {spec}: {env_dir} holds "
                            f"{'torch ' + version if version else 'no importable torch'}; "
                            f"remove it or point --env-dir elsewhere")
    start = time.monotonic()
    python = install(spec, env_dir, timeout, index, log)
    build = Build(spec, str(python), env_dir=str(env_dir), version=spec, installed=True,
                  install_seconds=round(time.monotonic() - start, 1))
    return build


def _run_bounded(command: list[str], deadline: float, env: dict[str, str], log) -> tuple[int, str]:
    """Run an installer step in its own process group; kill the group at the deadline."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return -1, "no time left"
    if log is not None:
        log.write("$ " + " ".join(command) + "\n")
        log.flush()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, env=env, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=remaining)
    except subprocess.TimeoutExpired:
        from privlint.runtime.launch import kill_session

        kill_session(process)
        try:
            output, _ = process.communicate(timeout=5)
        except (subprocess.TimeoutExpired, ValueError):
            output = b""
        return -1, (output or b"").decode(errors="replace")
    return process.returncode, output.decode(errors="replace")


def _lock(root: Path, spec: str, deadline: float):
    import fcntl

    root.mkdir(parents=True, exist_ok=True)
    handle = open(root / f".torch-{spec}.lock", "w")
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return handle
        except BlockingIOError:
            if time.monotonic() > deadline:
                handle.close()
                raise PrivlintError(f"torch {spec}: another privlint has been installing it "
                                    f"into {root} for too long") from None
            time.sleep(0.5)


def install(spec: str, env_dir: Path, timeout: float, index: str | None, log=None) -> Path:
    """Create env_dir with torch==spec in it, or raise PrivlintError naming the version."""
    deadline = time.monotonic() + timeout
    root = env_dir.parent
    handle = _lock(root, spec, deadline)
    try:
        python = _python_in(env_dir)
        if python is not None:  # another run made it while we waited
            return python
        partial = root / f".torch-{spec}.partial-{os.getpid()}"
        shutil.rmtree(partial, ignore_errors=True)
        env = clean_env(None)
        env.update(UV_HTTP_TIMEOUT="30", UV_HTTP_RETRIES="0", PIP_DEFAULT_TIMEOUT="30",
                   PIP_RETRIES="0", PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
        uv = _uv()
        requirement = f"torch=={spec}"
        index_args = ["--index-url", index] if index else []
        if uv:
            tool = "uv"
            steps = [[uv, "venv", "--quiet", "--python", sys.executable, str(partial)],
                     [uv, "pip", "install", "--python", str(partial / "bin" / "python"),
                      *index_args, requirement]]
        else:
            tool = "pip"
            pip_args = ["install", "--retries", "0", "--timeout", "30", "--no-input", *index_args,
                        requirement]
            if _pip_can_target():  # this pip installs into the new env: no ensurepip (slow)
                steps = [[sys.executable, "-m", "venv", "--without-pip", str(partial)],
                         [sys.executable, "-m", "pip", "--python", str(partial / "bin" / "python"),
                          *pip_args]]
            else:
                steps = [[sys.executable, "-m", "venv", str(partial)],
                         [str(partial / "bin" / "python"), "-m", "pip", *pip_args]]
        try:
            for step in steps:
                code, output = _run_bounded(step, deadline, env, log)
                if code != 0:
                    why = (f"timed out after {timeout:g} s" if code == -1
                           else f"{tool} exited with {code}")
                    raise PrivlintError(
                        f"torch {spec} could not be installed ({why}; {tool} said: "
                        f"{_gist(output)}). Check the version and that this Python "
                        f"({sys.version_info.major}.{sys.version_info.minor}) has a wheel for it; "
                        f"environments live in {root}")
            version = query_version(str(partial / "bin" / "python"),
                                    timeout=max(5.0, deadline - time.monotonic()), load=True)
            if not same_release(spec, version):
                raise PrivlintError(f"torch {spec} was installed into {partial} but "
                                    f"{'reports ' + version if version else 'does not import'}")
            (partial / READY).write_text(spec + "\n")
            os.replace(partial, env_dir)
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)
            raise
        found = _python_in(env_dir)
        assert found is not None
        return found
    finally:
        handle.close()


def _pip_can_target() -> bool:
    """pip 22.3+ installs into another interpreter's environment (`pip --python`)."""
    try:
        from importlib.metadata import version

        major, minor = (int(part) for part in version("pip").split(".")[:2])
    except Exception:  # noqa: BLE001 - no pip here, or an odd version string
        return False
    return (major, minor) >= (22, 3)


def _gist(output: str) -> str:
    lines = [line.strip() for line in output.strip().splitlines() if line.strip()]
    useful = [line for line in lines if re.search(r"error|no matching|not find|unsatisf|"
                                                  r"failed|timed? ?out|connect", line, re.I)]
    shown = (useful or lines)[-3:]
    text = " / ".join(shown) if shown else "nothing"
    return text[:600]


def runtime_snapshot(directory: Path) -> Path:
    """Copy privlint's runtime side (no libcst, no TOML) into directory/privlint; return
    directory, the one entry a build's PYTHONPATH gets."""
    source = Path(__file__).resolve().parent.parent  # the privlint package
    target = directory / "privlint"
    (target / "runtime").mkdir(parents=True, exist_ok=True)
    for name in ("__init__.py", "errors.py"):
        shutil.copyfile(source / name, target / name)
    for path in (source / "runtime").glob("*.py"):
        shutil.copyfile(path, target / "runtime" / path.name)
    return directory

