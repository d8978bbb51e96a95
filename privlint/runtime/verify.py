"""`privlint verify`: run each call on real ranks with the private path and with it hidden."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
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


def default_hide(catalog: Catalog, source: str) -> list[str]:
    """Every catalog member or attribute the target's text names."""
    hide = []
    for rule in catalog.rules:
        if rule.kind in ("member", "attribute") and "*" not in rule.api:
            if re.search(rf"\b{re.escape(rule.member)}\b", source):
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


def run_verify(args, catalog: Catalog, out: TextIO) -> int:
    torch = require_torch()
    device, backend, nproc, library = _choose(torch, args.device, args.backend, args.nproc)
    direct = all(k in os.environ for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR"))
    with tempfile.TemporaryDirectory(prefix="privlint-verify-") as scratch:
        run_dir = Path(scratch)
        if args.builtin:
            from privlint.runtime.builtin import recipe_module

            world = int(os.environ["WORLD_SIZE"]) if direct else nproc
            source, calls, hide = recipe_module(catalog, world)
            target = run_dir / "builtin_recipes.py"
            target.write_text(source)
            target_name = str(target)
        else:
            if not args.target or not args.call:
                raise PrivlintError("give a TARGET and at least one --call (or --builtin)")
            source = _target_source(args.target)
            _check_expressions(args.call)
            calls, target_name = list(args.call), str(Path(args.target).resolve()) \
                if Path(args.target).suffix == ".py" else args.target
            hide = list(args.hide) if args.hide else default_hide(catalog, source)
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
                  "builtin": bool(args.builtin)}
        return report(verdicts, header, args.json, out)


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
    for index, verdict in enumerate(verdicts, 1):
        out.write(f"\ncall {index}: {verdict.expr}\n")
        for note in verdict.notes:
            out.write(f"  note: {note}\n")
        columns = ("mesh", "dim", "check", "A", "B", "expected", "verdict")
        out.write("  " + "  ".join(f"{c:22}" if i < 6 else c for i, c in enumerate(columns)) + "\n")
        for row in verdict.rows:
            values = (row.mesh, row.dim, row.check, row.a, row.b, row.expected)
            shown = "  ".join(f"{_short(v):22}" for v in values)
            suffix = f" (rank {row.rank})" if row.verdict == FAIL else ""
            out.write(f"  {shown}  {row.verdict}{suffix}\n")
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
