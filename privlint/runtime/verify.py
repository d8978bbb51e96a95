"""`privlint verify`: run each call on real ranks with the private path and with it hidden."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any, TextIO

from privlint.catalog import Catalog
from privlint.errors import PrivlintError
from privlint.runtime import require_torch
from privlint.runtime.compare import FAIL, CallVerdict, judge_call

EXIT_PASS, EXIT_FAIL = 0, 1


def _target_source(target: str) -> str:
    path = Path(target)
    if path.suffix == ".py" or os.sep in target:
        if not path.is_file():
            raise PrivlintError("target file not found", path=target)
        return path.read_text(encoding="utf-8", errors="replace")
    try:
        spec = importlib.util.find_spec(target)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.origin or not Path(spec.origin).is_file():
        raise PrivlintError(f"no file or importable module named {target!r}")
    return Path(spec.origin).read_text(encoding="utf-8", errors="replace")


_GUARD_ERRORS = {"AttributeError", "ImportError", "ModuleNotFoundError", "Exception",
                 "BaseException"}


def probed_names(source: str) -> set[str]:
    """The names the target's capability probes test: the string in `hasattr(x, "name")` and
    `getattr(x, "name", default)`, and the private names used or imported inside a `try` whose
    handler catches AttributeError or ImportError (or everything)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("hasattr", "getattr") and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            if node.func.id == "hasattr" or len(node.args) >= 3 or node.keywords:
                names.add(node.args[1].value)
        elif isinstance(node, ast.Try) and any(_catches_absence(h) for h in node.handlers):
            for statement in node.body:
                for inner in ast.walk(statement):
                    if isinstance(inner, ast.Attribute):
                        names.add(inner.attr)
                    elif isinstance(inner, ast.ImportFrom):
                        names.update(alias.name for alias in inner.names)
                        names.update((inner.module or "").split("."))
                    elif isinstance(inner, ast.Import):
                        for alias in inner.names:
                            names.update(alias.name.split("."))
    return {name for name in names if name.startswith("_") and not name.startswith("__")}


def _catches_absence(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(k, ast.Name) and k.id in _GUARD_ERRORS
               or isinstance(k, ast.Attribute) and k.attr in _GUARD_ERRORS for k in kinds)


def default_hide(catalog: Catalog, source: str) -> list[str]:
    """The catalog members and attributes the target's probes guard (never everything the text
    names: hiding an unguarded private name only breaks code that has no fallback for it)."""
    probed = probed_names(source)
    hide = []
    for rule in catalog.rules:
        if rule.kind in ("member", "attribute") and "*" not in rule.api and rule.member in probed:
            hide.append(rule.api)
    return hide


def _check_expressions(calls: list[str]) -> None:
    for expr in calls:
        try:
            ast.parse(expr, mode="eval")
        except SyntaxError as exc:
            raise PrivlintError(f"--call {expr!r} is not a Python expression: {exc.msg}") from None


def _choose(torch, device: str, backend: str, nproc: int | None) -> tuple[str, str, int, str]:
    has_gpu = torch.cuda.is_available()
    if device == "auto":
        device = "cuda" if has_gpu else "cpu"
    if device == "cuda" and not has_gpu:
        raise PrivlintError("--device cuda: this machine has no GPU visible to torch")
    if backend == "auto":
        backend = "nccl" if device == "cuda" else "gloo"
    if nproc is None:
        nproc = torch.cuda.device_count() if device == "cuda" else 4
    library = backend
    if backend == "nccl":
        library = "rccl (ROCm)" if getattr(torch.version, "hip", None) else "nccl"
    return device, backend, nproc, library


def _read_results(run_dir: Path, world_size: int) -> tuple[list[dict], dict[int, str]]:
    results, progress = [], {}
    for rank in range(world_size):
        result_path = run_dir / f"result.{rank}.json"
        if result_path.exists():
            try:
                results.append(json.loads(result_path.read_text()))
            except json.JSONDecodeError:
                pass
        progress_path = run_dir / f"progress.{rank}"
        if progress_path.exists():
            progress[rank] = progress_path.read_text()
    return results, progress


def _prepare(args, catalog: Catalog, run_dir: Path, world: int) -> tuple[str, list[str], list[str], str | None]:
    """(target to load, calls, private APIs the probes guard, how the target is imported)."""
    if args.builtin:
        from privlint.runtime.builtin import recipe_module

        source, calls, hide = recipe_module(catalog, world)
        target = run_dir / "builtin_recipes.py"
        target.write_text(source)
        return str(target), calls, hide, None
    if not args.target or not args.call:
        raise PrivlintError("give a TARGET and at least one --call (or --builtin)")
    source = _target_source(args.target)
    _check_expressions(args.call)
    imported = None
    if Path(args.target).suffix == ".py":
        from privlint.runtime.worker import package_root

        target_name = str(Path(args.target).resolve())
        root, dotted = package_root(Path(target_name))
        stem = Path(target_name).stem
        shown = dotted if dotted != stem and stem.isidentifier() else Path(target_name).name
        imported = (f"{shown}, with {root} on "
                    f"sys.path (the first directory above it without __init__.py, as pytest "
                    f"finds a test file's basedir)")
    else:
        target_name = args.target
    hide = list(args.hide) if args.hide else default_hide(catalog, source)
    return target_name, list(args.call), hide, imported


def run_verify(args, catalog: Catalog, out: TextIO) -> int:
    builds = getattr(args, "torch_builds", None)
    if builds:
        return _run_builds(args, catalog, builds, out)
    torch = require_torch()
    device, backend, nproc, library = _choose(torch, args.device, args.backend, args.nproc)
    direct = all(k in os.environ for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR"))
    with tempfile.TemporaryDirectory(prefix="privlint-verify-") as scratch:
        run_dir = Path(scratch)
        world = int(os.environ["WORLD_SIZE"]) if direct else nproc
        target_name, calls, hide, imported = _prepare(args, catalog, run_dir, world)
        spec = {"target": target_name, "calls": calls, "hide": hide, "device": device,
                "backend": backend, "timeout": args.timeout, "run_dir": str(run_dir)}
        start = time.monotonic()
        if direct:
            return _run_direct(spec, args, out, library)
        from privlint.runtime.launch import launch

        outcome = launch(spec, nproc, args.timeout)
        results, progress = _read_results(run_dir, nproc)
        if not results and not progress and not outcome.timed_out:
            raise PrivlintError("the ranks did not start:\n" + outcome.log[-3000:])
        verdicts = [judge_call(i, expr, results, progress, nproc) for i, expr in enumerate(calls)]
        if outcome.timed_out:
            for verdict in verdicts:
                verdict.failures.insert(0, f"timed out after {args.timeout:g} s; ranks were killed")
        elapsed = time.monotonic() - start
        header = {"ranks": nproc, "device": device, "backend": backend, "library": library,
                  "torch": torch.__version__, "hip": getattr(torch.version, "hip", None),
                  "cuda": torch.version.cuda, "hidden": hide, "seconds": round(elapsed, 2),
                  "builtin": bool(args.builtin), "imported": imported}
        return report(verdicts, header, args.json, out)


def _run_builds(args, catalog: Catalog, specs: list[str], out: TextIO) -> int:
    """verify --torch ...: every build runs the calls as is, on its own ranks."""
    from privlint.runtime.envs import env_root, resolve_builds
    from privlint.runtime.matrix import run_matrix

    if any(k in os.environ for k in ("RANK", "WORLD_SIZE")) and "MASTER_ADDR" in os.environ:
        raise PrivlintError("--torch starts its own ranks per build; run it outside torchrun/srun")
    if args.hide:
        raise PrivlintError("--hide belongs to the single-build mode (A against B); with --torch "
                            "every build runs the call as is")
    if not args.builtin:  # usage errors before any environment is made
        if not args.target or not args.call:
            raise PrivlintError("give a TARGET and at least one --call (or --builtin)")
        _target_source(args.target)
        _check_expressions(args.call)
    builds = resolve_builds(specs, env_root(args.env_dir), args.install_timeout, args.torch_index)
    own = next((b for b in builds if b.own), None)
    device, backend, library, nproc = "cpu", "gloo", "gloo", args.nproc
    if own is not None:
        torch = require_torch()
        device, backend, own_nproc, library = _choose(torch, args.device, args.backend, args.nproc)
        nproc = args.nproc or own_nproc
    elif args.device == "cuda":
        raise PrivlintError("--device cuda: only the interpreter's own build runs on GPUs; "
                            "name it among the --torch builds")
    nproc = nproc or 4
    with tempfile.TemporaryDirectory(prefix="privlint-verify-") as scratch:
        target_name, calls, probed, imported = _prepare(args, catalog, Path(scratch), nproc)
        spec = {"target": target_name, "calls": calls, "hide": None, "probed": probed,
                "timeout": args.timeout}
        header = {"ranks": nproc, "imported": imported, "probed": probed,
                  "builtin": bool(args.builtin)}
        return run_matrix(builds, spec, calls, nproc, (device, backend, library), args.timeout,
                          probed, header, args.json, out)


def _run_direct(spec: dict, args, out: TextIO, library: str) -> int:
    """Under torchrun/srun: this process is one rank; rank 0 gathers and reports."""
    from privlint.runtime.worker import run

    gathered = run(spec, gather=True)
    if gathered is None:
        return EXIT_PASS  # not rank 0: rank 0 reports for everyone
    import torch

    world = len(gathered)
    verdicts = [judge_call(i, expr, gathered, {}, world) for i, expr in enumerate(spec["calls"])]
    header = {"ranks": world, "device": spec["device"], "backend": spec["backend"],
              "library": library, "torch": torch.__version__, "hidden": spec["hide"],
              "launched_by": "torchrun/srun (multi-node)", "builtin": bool(args.builtin)}
    return report(verdicts, header, args.json, out)


def _short(value: Any, width: int = 22) -> str:
    text = json.dumps(value) if not isinstance(value, str) else value
    return text if len(text) <= width else text[: width - 1] + "…"


def report(verdicts: list[CallVerdict], header: dict, as_json: bool, out: TextIO) -> int:
    passed = all(v.passed for v in verdicts)
    if as_json:
        json.dump({"run": header, "passed": passed, "calls": [{
            "expr": v.expr, "passed": v.passed, "failures": v.failures, "warnings": v.warnings,
            "notes": v.notes, "rows": [row.__dict__ for row in v.rows]} for v in verdicts]},
            out, indent=2, default=str)
        out.write("\n")
        return EXIT_PASS if passed else EXIT_FAIL
    out.write(f"privlint verify: {header['ranks']} ranks on {header['device']} "
              f"({header['library']}), torch {header['torch']}\n")
    if header.get("imported"):
        out.write(f"target: {header['imported']}\n")
    for index, verdict in enumerate(verdicts, 1):
        out.write(f"\ncall {index}: {verdict.expr}\n")
        for note in verdict.notes:
            out.write(f"  note: {note}\n")
        out.write("  each row: one check of one mesh dim; A = run with the private API, B = run "
                  "with it hidden (the fallback), expected = what the mesh's own layout implies\n")
        columns = ("mesh", "dim", "check", "A", "B", "expected", "verdict")
        out.write("  " + "  ".join(f"{c:22}" if i < 6 else c for i, c in enumerate(columns)) + "\n")
        for row in verdict.rows:
            values = (row.mesh, row.dim, row.check, row.a, row.b, row.expected)
            shown = "  ".join(f"{_short(v):22}" for v in values)
            suffix = f" (rank {row.rank})" if row.verdict == FAIL else ""
            mark = row.verdict
            if row.b is not None and row.a != row.b:
                # Each run matched its own layout, but the two runs differ: say so on the row.
                mark = f"A≠B ({row.verdict})" if row.verdict != FAIL else f"{FAIL}, A≠B"
            out.write(f"  {shown}  {mark}{suffix}\n")
        for warning in verdict.warnings:
            out.write(f"  warning: {warning}\n")
        for failure in verdict.failures[:12]:
            out.write(f"  FAIL: {failure}\n")
        out.write(f"  => {'PASS' if verdict.passed else 'FAIL'}\n")
    count = len(verdicts)
    seconds = f" in {header['seconds']} s" if "seconds" in header else ""
    out.write(f"\nVerdict: {'PASS' if passed else 'FAIL'}: "
              f"{sum(v.passed for v in verdicts)} of {count} call{'s' if count != 1 else ''} "
              f"equivalent{seconds}.\n")
    return EXIT_PASS if passed else EXIT_FAIL
