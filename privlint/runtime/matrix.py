"""`privlint verify --torch A --torch B ...`: run each call as is on every named torch build, each
on its own ranks, and compare the builds with one another and with the layout.

A build is what users run: on 2.4.1 the `hasattr` probe fails by itself and the fallback runs,
with 2.4.1's own signatures (no `backend_override`, no `DTensor` in `torch.distributed.tensor`),
which hiding a member inside one newer torch cannot show. The interpreter's own build runs on its
GPUs when it has them (NCCL); every other build runs on CPU ranks with gloo, the same number of
ranks. Verdicts per call:
- a build that raised, or whose ranks did not finish, FAILs naming the build, the exception and
  the line in the user's code;
- a build whose groups or collective results disagree with its own mesh's layout, or whose group
  names are cross-wired, FAILs naming the build;
- every build that finished is compared with a reference build -- the first one that has every
  private API the target's probes test (it takes the private path), else the first that
  finished -- mesh by mesh: dim names, shape, mesh tensor, this rank's coordinate, and per dim the
  group's ranks, the local rank and each collective's result. A difference FAILs naming the build.
"""

from __future__ import annotations

import json
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from privlint.runtime.compare import FAIL, PASS, CallVerdict, crossed_groups
from privlint.runtime.envs import Build, clean_env, runtime_snapshot

_IDENTITY = ("dim_names", "shape", "mesh", "coordinate")


@dataclass
class BuildRun:
    build: Build
    device: str
    backend: str
    ranks: int
    seconds: float = 0.0
    timed_out: bool = False
    results: list[dict] = field(default_factory=list)
    progress: dict[int, str] = field(default_factory=dict)
    log: str = ""
    present: dict[str, bool] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.build.name


@dataclass
class MatrixRow:
    mesh: str
    dim: str
    check: str
    values: dict[str, Any]
    expected: Any
    verdict: str
    rank: int | None = None


@dataclass
class MatrixVerdict(CallVerdict):
    """A call's verdict across builds: rows hold one value per build, and the builds that differ."""

    rows: list[MatrixRow] = field(default_factory=list)  # type: ignore[assignment]
    reference: str | None = None
    failed_builds: list[str] = field(default_factory=list)

    def fail(self, build: str, message: str) -> None:
        self.failures.append(f"{build}: {message}")
        if build not in self.failed_builds:
            self.failed_builds.append(build)


def run_builds(builds: list[Build], spec_base: dict, nproc: int, own_device: tuple[str, str],
               timeout: float, scratch: Path) -> list[BuildRun]:
    """Launch every build in turn (the machine's cores go to one build's ranks at a time)."""
    from privlint.runtime.launch import launch
    from privlint.runtime.verify import _read_results

    snapshot = None
    runs = []
    for index, build in enumerate(builds):
        device, backend = own_device if build.own else ("cpu", "gloo")
        run_dir = scratch / f"build-{index}"
        run_dir.mkdir()
        spec = {**spec_base, "device": device, "backend": backend, "run_dir": str(run_dir)}
        env = None
        if not build.own:
            if snapshot is None:
                snapshot = str(runtime_snapshot(scratch / "runtime"))
            env = clean_env(snapshot)
        start = time.monotonic()
        outcome = launch(spec, nproc, timeout, python=build.python, env=env)
        results, progress = _read_results(run_dir, nproc)
        run = BuildRun(build, device, backend, nproc, round(time.monotonic() - start, 2),
                       outcome.timed_out, results, progress, outcome.log)
        for result in results:
            run.present.update(result.get("present", {}))
            build.version = result.get("torch") or build.version
        runs.append(run)
    return runs


def _rank_call(run: BuildRun, rank: int, index: int) -> dict | None:
    result = next((r for r in run.results if r.get("rank") == rank), None)
    calls = (result or {}).get("calls", [])
    return calls[index].get("A") if index < len(calls) else None


def _signature(mesh: dict, same_device: bool) -> dict[tuple[str, str], Any]:
    """What must agree across builds for one mesh on one rank, keyed by (dim, check)."""
    values: dict[tuple[str, str], Any] = {("-", name): mesh.get(name) for name in _IDENTITY}
    if same_device:
        values[("-", "device_type")] = mesh.get("device_type")
    for dim in mesh.get("dims", []):
        values[(dim["dim"], "group ranks")] = dim["group_ranks"]
        values[(dim["dim"], "local rank")] = dim["local_rank"]
        for check, got in dim["checks"].items():
            values[(dim["dim"], check)] = got["got"]
    return values


def judge_matrix_call(index: int, expr: str, runs: list[BuildRun], probed: list[str]) -> MatrixVerdict:
    verdict = MatrixVerdict(expr)
    healthy: list[BuildRun] = []
    for run in runs:
        ok = True
        if run.timed_out:
            verdict.fail(run.name, f"timed out after {run.seconds:g} s; its ranks were killed")
            ok = False
        per_rank_meshes: dict[int, dict] = {}
        raised: dict[str, list[int]] = {}
        for rank in range(run.ranks):
            result = next((r for r in run.results if r.get("rank") == rank), {})
            if result.get("import_error"):
                failed = result["import_error"]
                where = f" at {failed['where']}" if failed.get("where") else ""
                raised.setdefault(f"{failed['error']}{where} (importing the target)", []).append(rank)
                ok = False
                continue
            outcome = _rank_call(run, rank, index)
            if outcome is None or not outcome.get("finished"):
                if not run.timed_out or rank == 0:
                    where = run.progress.get(rank, "not started")
                    verdict.fail(run.name, f"rank {rank} did not finish (last step: {where})")
                ok = False
                continue
            per_rank_meshes[rank] = outcome.get("meshes", {})
            if outcome.get("error"):
                where = f" at {outcome['where']}" if outcome.get("where") else ""
                raised.setdefault(f"{outcome['error']}{where}", []).append(rank)
                ok = False
                continue
            for path, mesh in outcome.get("meshes", {}).items():
                for dim in mesh.get("dims", []):
                    if dim["group_ranks"] != dim["layout_ranks"]:
                        verdict.fail(run.name, f"rank {rank}: {path} dim {dim['dim']}: group ranks "
                                               f"{dim['group_ranks']}, the layout says "
                                               f"{dim['layout_ranks']}")
                        ok = False
                    for check, values in dim["checks"].items():
                        if values["got"] != values["expected"]:
                            verdict.fail(run.name, f"rank {rank}: {path} dim {dim['dim']}: {check}: "
                                                   f"got {values['got']}, the layout implies "
                                                   f"{values['expected']}")
                            ok = False
        for message, ranks in raised.items():
            which = f"rank{'s' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))}"
            verdict.fail(run.name, f"raised on {which}: {message}")
        for problem in crossed_groups(run.name, per_rank_meshes):
            verdict.fail(run.name, problem.split(": ", 1)[1])
            ok = False
        lacking = [api for api in probed if run.present.get(api) is False]
        if lacking:
            verdict.notes.append(f"{run.name} lacks {', '.join(lacking)}: its probes take the "
                                 f"fallback")
        if ok:
            healthy.append(run)
    if not healthy:
        return verdict
    takes_private = [r for r in healthy if probed and all(r.present.get(a) for a in probed)]
    reference = (takes_private or healthy)[0]
    verdict.reference = reference.name
    same_device = len({r.device for r in runs}) == 1
    rows: dict[tuple, MatrixRow] = {}
    differences: dict[tuple, list[tuple[int, Any, Any]]] = {}
    for rank in range(reference.ranks):
        ref_meshes = (_rank_call(reference, rank, index) or {}).get("meshes", {})
        for run in runs:
            outcome = _rank_call(run, rank, index) or {}
            if run is not reference and run in healthy:
                meshes = outcome.get("meshes", {})
                if set(meshes) != set(ref_meshes):
                    verdict.fail(run.name, f"rank {rank}: returned meshes {sorted(meshes)}, "
                                           f"{reference.name} returned {sorted(ref_meshes)}")
        for path in ref_meshes:
            ref_values = _signature(ref_meshes[path], same_device)
            expected = _expected(ref_meshes[path])
            per_build = {}
            for run in runs:
                mesh = ((_rank_call(run, rank, index) or {}).get("meshes", {})).get(path)
                per_build[run.name] = _signature(mesh, same_device) if mesh else {}
            for key, ref_value in ref_values.items():
                values = {name: sig.get(key) for name, sig in per_build.items()}
                differ = [run for run in runs if run is not reference
                          and per_build[run.name].get(key) is not None
                          and per_build[run.name].get(key) != ref_value]
                bad = [run for run in differ if run in healthy]
                row_key = (path, *key)
                if row_key not in rows or (differ and rows[row_key].verdict == PASS):
                    rows[row_key] = MatrixRow(path, key[0], key[1], values,
                                              expected.get(key, ref_value),
                                              FAIL if differ else PASS, rank)
                for run in bad:
                    differences.setdefault((run.name, path, key), []).append(
                        (rank, per_build[run.name].get(key), ref_value))
    for (name, path, key), seen in differences.items():
        rank, value, ref_value = seen[0]
        more = f" (and on {len(seen) - 1} more rank{'s' if len(seen) > 2 else ''})" \
            if len(seen) > 1 else ""
        verdict.fail(name, f"rank {rank}: {path} dim {key[0]}: {key[1]}: {value}, "
                           f"{reference.name} gives {ref_value}{more}")
    verdict.rows = list(rows.values())
    for run in healthy:
        if run.device != reference.device:
            verdict.notes.append(f"device_type not compared: {run.name} ran on {run.device}, "
                                 f"{reference.name} on {reference.device}")
            break
    return verdict


def _expected(mesh: dict) -> dict[tuple[str, str], Any]:
    expected: dict[tuple[str, str], Any] = {}
    for dim in mesh.get("dims", []):
        expected[(dim["dim"], "group ranks")] = dim["layout_ranks"]
        for check, values in dim["checks"].items():
            expected[(dim["dim"], check)] = values["expected"]
    return expected


def run_matrix(builds: list[Build], spec_base: dict, calls: list[str], nproc: int,
               own_device: tuple[str, str, str], timeout: float, probed: list[str],
               header: dict, as_json: bool, out: TextIO) -> int:
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="privlint-matrix-") as scratch:
        runs = run_builds(builds, spec_base, nproc, own_device[:2], timeout, Path(scratch))
    verdicts = [judge_matrix_call(i, expr, runs, probed) for i, expr in enumerate(calls)]
    for run in runs:
        if not run.results and not run.progress and not run.timed_out:
            for verdict in verdicts:
                verdict.fail(run.name, "its ranks did not start: " + _last_error(run.log))
    header = {**header, "seconds": round(time.monotonic() - start, 2), "builds": [{
        "torch": run.build.version or run.build.label, "asked": run.build.label,
        "python": run.build.python, "env": run.build.env_dir, "own": run.build.own,
        "installed_now": run.build.installed, "install_seconds": run.build.install_seconds,
        "device": run.device, "backend": run.backend,
        "library": own_device[2] if run.build.own else "gloo", "ranks": run.ranks,
        "seconds": run.seconds, "timed_out": run.timed_out,
        "present": run.present} for run in runs]}
    return report_matrix(verdicts, runs, header, as_json, out)


def _last_error(log: str) -> str:
    lines = [line for line in log.strip().splitlines() if line.strip()]
    errors = [line for line in lines if "Error" in line or "error" in line]
    return ((errors or lines or ["no output"])[-1])[:300]


def _short(value: Any, width: int = 20) -> str:
    text = json.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= width else text[: width - 1] + "…"


def report_matrix(verdicts: list[MatrixVerdict], runs: list[BuildRun], header: dict,
                  as_json: bool, out: TextIO) -> int:
    passed = all(v.passed for v in verdicts)
    code = 0 if passed else 1
    if as_json:
        json.dump({"run": header, "passed": passed, "calls": [{
            "expr": v.expr, "passed": v.passed, "reference": v.reference,
            "failed_builds": v.failed_builds, "failures": v.failures, "warnings": v.warnings,
            "notes": v.notes, "rows": [row.__dict__ for row in v.rows]} for v in verdicts]},
            out, indent=2, default=str)
        out.write("\n")
        return code
    out.write(f"privlint verify across {len(runs)} torch build{'s' if len(runs) != 1 else ''}, "
              f"{header['ranks']} ranks each\n")
    if header.get("imported"):
        out.write(f"target: {header['imported']}\n")
    for build in header["builds"]:
        where = "this interpreter" if build["own"] else (build["env"] or build["python"])
        made = f", installed now in {build['install_seconds']} s" if build["installed_now"] else ""
        out.write(f"  torch {build['torch']:<14} {build['device']} ({build['library']})  "
                  f"{build['seconds']} s  [{where}{made}]\n")
    names = [run.name for run in runs]
    for number, verdict in enumerate(verdicts, 1):
        out.write(f"\ncall {number}: {verdict.expr}\n")
        if verdict.reference:
            out.write(f"  reference: {verdict.reference}\n")
        for note in verdict.notes:
            out.write(f"  note: {note}\n")
        columns = ["mesh", "dim", "check", *names, "expected"]
        out.write("  " + "  ".join(f"{c:20}" for c in columns) + "  verdict\n")
        for row in verdict.rows:
            cells = [row.mesh, row.dim, row.check, *(row.values.get(n) for n in names), row.expected]
            suffix = f" (rank {row.rank})" if row.verdict == FAIL else ""
            out.write("  " + "  ".join(f"{_short(c):20}" for c in cells) + f"  {row.verdict}{suffix}\n")
        for warning in verdict.warnings:
            out.write(f"  warning: {warning}\n")
        for failure in verdict.failures[:12]:
            out.write(f"  FAIL: {failure}\n")
        if len(verdict.failures) > 12:
            out.write(f"  … and {len(verdict.failures) - 12} more (--json lists them all)\n")
        shown = "PASS" if verdict.passed else "FAIL on " + ", ".join(verdict.failed_builds)
        out.write(f"  => {shown}\n")
    count = len(verdicts)
    out.write(f"\nVerdict: {'PASS' if passed else 'FAIL'}: {sum(v.passed for v in verdicts)} of "
              f"{count} call{'s' if count != 1 else ''} equivalent on every build "
              f"in {header['seconds']} s.\n")
    return code
