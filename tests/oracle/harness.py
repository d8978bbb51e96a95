"""The execution oracle: fix small programs through the real CLI, run original and fixed on
several torch builds, and judge each fix by what the programs did.

Programs live in tests/fixtures/oracle/*.py. A first line `# oracle: ...` says how to run one:
`world=N` (0: no process group; 1: a 1-rank gloo group; N: N gloo ranks), `fresh` (a new
interpreter: for programs whose meaning depends on when torch is first imported), `crlf` / `tabs`
(the program is rewritten so before fixing), `hide=a.b,c.d` (also hidden on every build: to stand
in for a build without some module).

Builds: `new` (this interpreter's torch as installed), `hidden` (the same torch with every private
API that has a fix hidden from the program's own code, so each probe takes its other branch), and
`old` (an old torch in a second environment; see `old_python`).

Verdicts, per program and build B, where orig(B) is what the unfixed program did on B:
- safe fix: on `hidden`, fixed == orig(new), the program's reference behaviour (the fix must work
  without the private API); elsewhere fixed(B) == orig(B), or orig(B) ended in
  ImportError/AttributeError (the private API is absent there) and fixed(B) == orig(new).
- unsafe fix: it imports and runs, i.e. it does not end in an exception that says the rewrite
  itself is broken (ImportError, NameError, TypeError, AttributeError, SyntaxError, a timeout)
  unless the original ended the same way on that build.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
PROGRAMS = REPO / "tests" / "fixtures" / "oracle"
DRIVER = HERE / "driver.py"
BUILDS = ("new", "hidden", "old")
VARIANTS = ("orig", "safe", "unsafe")
ABSENT = {"ImportError", "ModuleNotFoundError", "AttributeError"}
BROKEN = {"ImportError", "ModuleNotFoundError", "NameError", "TypeError", "AttributeError",
          "SyntaxError", "UnboundLocalError", "Timeout", "OracleError"}
OLD_ENV_VAR = "PRIVLINT_OLD_TORCH_PYTHON"


def old_python() -> Path | None:
    """The old torch's interpreter: $PRIVLINT_OLD_TORCH_PYTHON, else .venv-old/ (made by .ci/run)."""
    given = os.environ.get(OLD_ENV_VAR)
    candidate = Path(given) if given else REPO / ".venv-old" / "bin" / "python"
    return candidate if candidate.exists() else None


@dataclass
class Program:
    name: str
    source: bytes
    world: int = 0
    fresh: bool = False
    hide: tuple[str, ...] = ()

    @classmethod
    def load(cls, path: Path) -> "Program":
        text = path.read_text(encoding="utf-8")
        header = text.splitlines()[0]
        assert header.startswith("# oracle:"), f"{path.name}: no `# oracle:` header"
        options = header.split(":", 1)[1].split()
        program = cls(path.stem, b"")
        for option in options:
            key, _, value = option.partition("=")
            if key == "world":
                program.world = int(value)
            elif key == "fresh":
                program.fresh = True
            elif key == "hide":
                program.hide = tuple(value.split(","))
            elif key == "tabs":
                text = _tabs(text)
            elif key != "crlf":
                raise ValueError(f"{path.name}: unknown oracle option {option!r}")
        if "crlf" in options:
            text = text.replace("\n", "\r\n")
        program.source = text.encode("utf-8")
        return program


def _tabs(text: str) -> str:
    lines = []
    for line in text.split("\n"):
        stripped = line.lstrip(" ")
        lines.append("\t" * ((len(line) - len(stripped)) // 4) + stripped)
    return "\n".join(lines)


def load_programs(names: list[str] | None = None) -> list[Program]:
    paths = sorted(PROGRAMS.glob("*.py"))
    return [Program.load(p) for p in paths if names is None or p.stem in names]


@dataclass
class Fixed:
    """The three texts of every program, in a work directory."""

    root: Path
    texts: dict[str, dict[str, bytes]] = field(default_factory=dict)  # variant -> name -> bytes
    cli_output: dict[str, str] = field(default_factory=dict)

    def path(self, variant: str, name: str) -> Path:
        return self.root / variant / f"{name}.py"


def fix_all(programs: list[Program], root: Path, python: str = sys.executable,
            env: dict[str, str] | None = None) -> Fixed:
    """Write each program three times; `--fix` one copy, `--fix --unsafe-fixes` another (real CLI)."""
    fixed = Fixed(root)
    for variant in VARIANTS:
        directory = root / variant
        directory.mkdir(parents=True, exist_ok=True)
        (directory / "pyproject.toml").write_text("[tool.privlint]\n", encoding="utf-8")
        for program in programs:
            (directory / f"{program.name}.py").write_bytes(program.source)
    full_env = {**os.environ, **(env or {})}
    full_env.pop("PRIVLINT_CACHE_DIR", None)
    for variant, flags in (("safe", ["--fix"]), ("unsafe", ["--fix", "--unsafe-fixes"])):
        result = subprocess.run([python, "-m", "privlint", "check", ".", "--no-cache", *flags],
                                cwd=root / variant, capture_output=True, text=True, env=full_env,
                                timeout=600)
        assert result.returncode in (0, 1) and "Traceback" not in result.stderr, result.stderr
        fixed.cli_output[variant] = result.stdout + result.stderr
    for variant in VARIANTS:
        fixed.texts[variant] = {p.name: fixed.path(variant, p.name).read_bytes() for p in programs}
    return fixed


def fixable_apis(python: str = sys.executable, env: dict[str, str] | None = None) -> list[str]:
    """Every private API (and alias) that has a fix, from the catalog (`privlint rules`)."""
    code = ("from privlint.catalog import load_catalog\n"
            "import json\n"
            "c = load_catalog()\n"
            "print(json.dumps(sorted({a for r in c.rules if r.fix for a in (r.api, *r.aliases)})))")
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, **(env or {})})
    return json.loads(out.stdout)


def jobs_for(programs: list[Program], fixed: Fixed, builds: tuple[str, ...],
             hidden_apis: list[str]) -> list[dict]:
    jobs = []
    for program in programs:
        for variant in VARIANTS:
            if variant != "orig" and fixed.texts[variant][program.name] == fixed.texts["orig"][program.name]:
                continue  # unchanged: it does what the original does
            for build in builds:
                hide = list(program.hide) + (hidden_apis if build == "hidden" else [])
                jobs.append({"id": f"{build}/{variant}/{program.name}", "build": build,
                             "path": str(fixed.path(variant, program.name)), "world": program.world,
                             "fresh": program.fresh, "hide": hide, "warm": hidden_apis})
    return jobs


def execute(jobs: list[dict], interpreters: dict[str, str], work: Path) -> dict[str, list]:
    """Run the jobs, one driver interpreter per torch installation, all of them at once."""
    by_python: dict[str, list[dict]] = {}
    for job in jobs:
        by_python.setdefault(interpreters[job["build"]], []).append(job)
    running = []
    for index, (python, batch) in enumerate(by_python.items()):
        jobs_path, results_path = work / f"jobs{index}.json", work / f"results{index}.json"
        jobs_path.write_text(json.dumps(batch), encoding="utf-8")
        log = open(work / f"driver{index}.log", "wb")
        running.append((subprocess.Popen([python, str(DRIVER), str(jobs_path), str(results_path)],
                                         stdout=log, stderr=subprocess.STDOUT), results_path, log))
    records: dict[str, list] = {}
    for process, results_path, log in running:
        process.wait(timeout=1200)
        log.close()
        assert results_path.exists(), (work / "driver0.log").read_text(errors="replace")[-3000:]
        records.update(json.loads(results_path.read_text(encoding="utf-8"))["jobs"])
    return records


def _outcome(record: list) -> list:
    """What is compared: per rank, the result and the exception type (not messages or paths)."""
    return [[rank[0], rank[1]] for rank in record]


def _ended_absent(record: list) -> bool:
    return any(rank[1] in ABSENT for rank in record)


def verdicts(programs: list[Program], fixed: Fixed, records: dict[str, list],
             builds: tuple[str, ...]) -> list[str]:
    """Every failure, as a line naming program, variant, build and what differed."""
    failures = []
    for program in programs:
        reference = records[f"new/orig/{program.name}"]
        for variant in ("safe", "unsafe"):
            if fixed.texts[variant][program.name] == fixed.texts["orig"][program.name]:
                continue
            for build in builds:
                original = records[f"{build}/orig/{program.name}"]
                result = records[f"{build}/{variant}/{program.name}"]
                if variant == "safe":
                    same = _outcome(result) == _outcome(original) and build != "hidden"
                    repaired = (_ended_absent(original) or build == "hidden") \
                        and _outcome(result) == _outcome(reference)
                    if not (same or repaired):
                        failures.append(f"{program.name}: safe fix differs on {build}: "
                                        f"original {original}, fixed {result}")
                else:
                    allowed = {r[1] for r in original} | (
                        {r[1] for r in reference} if _ended_absent(original) else set())
                    broken = [r for r in result if r[1] in BROKEN and r[1] not in allowed]
                    if broken:
                        failures.append(f"{program.name}: unsafe fix broken on {build}: {broken}")
    return failures


def run_oracle(programs: list[Program], work: Path, old: Path | None,
               python: str = sys.executable, env: dict[str, str] | None = None
               ) -> tuple[list[str], Fixed, dict[str, list]]:
    builds = ("new", "hidden") + (("old",) if old is not None else ())
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    fixed = fix_all(programs, work / "files", python, env)
    jobs = jobs_for(programs, fixed, builds, fixable_apis(python, env))
    interpreters = {"new": sys.executable, "hidden": sys.executable}
    if old is not None:
        interpreters["old"] = str(old)
    records = execute(jobs, interpreters, work)
    return verdicts(programs, fixed, records, builds), fixed, records
