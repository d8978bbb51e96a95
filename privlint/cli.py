"""The command line: parse arguments, wire the modules together, choose the exit code.

Exit codes (ruff's): 0 no findings, 1 findings, 2 usage, configuration or rule error.
Heavy imports (libcst) happen inside the commands, so `privlint --version` stays instant.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from privlint import __version__
from privlint.errors import PrivlintError

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _codes(value: str) -> list[str]:
    return [part.strip().upper() for part in value.split(",") if part.strip()]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="privlint", description="Find unguarded uses of private PyTorch APIs.")
    parser.add_argument("--version", action="version", version=f"privlint {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser("check", help="report private torch API uses that lack a guard")
    check.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="files or directories (default: .)")
    check.add_argument("--select", type=_codes, metavar="CODES",
                       help="comma-separated codes or prefixes to enable (replaces the configured set)")
    check.add_argument("--extend-select", type=_codes, default=[], metavar="CODES",
                       help="codes or prefixes to enable on top of the configured set")
    check.add_argument("--ignore", type=_codes, default=[], metavar="CODES",
                       help="codes or prefixes to disable")
    check.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    check.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    check.add_argument("--config", type=Path, metavar="FILE",
                       help="a pyproject.toml or privlint.toml to use instead of discovery")
    check.add_argument("--target-torch", metavar="SPEC",
                       help="the torch releases to support, e.g. '>=2.6' (overrides the config)")
    check.add_argument("--fix", action="store_true", help="apply safe fixes")
    check.add_argument("--unsafe-fixes", action="store_true",
                       help="also apply unsafe fixes (with --fix or --diff); confirm them with verify")
    check.add_argument("--diff", action="store_true",
                       help="print the diff --fix would apply and write nothing")
    check.add_argument("--fix-only", action="store_true",
                       help="apply fixes and do not report what remains")
    check.add_argument("--no-prefilter", action="store_true", help=argparse.SUPPRESS)

    probe = commands.add_parser("probe", help="what this torch build has of the catalog (needs torch)")
    probe.add_argument("--json", action="store_true", help="machine-readable output")
    probe.add_argument("--config", type=Path, metavar="FILE")

    verify = commands.add_parser(
        "verify", help="run calls on real ranks with and without the private APIs (needs torch)")
    verify.add_argument("target", nargs="?", help="a Python file or a dotted module")
    verify.add_argument("--call", action="append", default=[], metavar="EXPR",
                        help="an expression to evaluate in TARGET's namespace, with device_type, "
                             "world_size, rank and local_rank bound (repeatable)")
    verify.add_argument("--nproc", type=int, help="ranks to start (default: GPU count, or 4 on CPU)")
    verify.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    verify.add_argument("--backend", choices=("auto", "gloo", "nccl"), default="auto")
    verify.add_argument("--hide", action="append", default=[], metavar="API",
                        help="a dotted private API to hide in run B (default: catalog members TARGET names)")
    verify.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                        help="wall-clock limit for the whole run (default 60)")
    verify.add_argument("--builtin", action="store_true",
                        help="run the catalog's own recipes: every 2- and 3-D factorisation of the world")
    verify.add_argument("--json", action="store_true")
    verify.add_argument("--config", type=Path, metavar="FILE")

    rules = commands.add_parser("rules", help="list the rule catalog")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.add_argument("--config", type=Path, metavar="FILE")
    return parser


def _display(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _load(args: argparse.Namespace, start: Path):
    from privlint.catalog import load_catalog
    from privlint.config import load_settings

    settings = load_settings(args.config, start)
    catalog = load_catalog(settings.extend_rules)
    return settings, catalog


def run_check(args: argparse.Namespace) -> int:
    from privlint.checker import IO_ERROR, Context, check_path
    from privlint.config import validate_selectors
    from privlint.discover import discover
    from privlint.findings import Finding
    from privlint.report import write_diffs, write_fix_summary, write_json, write_text

    paths = args.paths or [Path(".")]
    settings, catalog = _load(args, paths[0])
    if args.select is not None:
        settings.select = args.select
    settings.extend_select += args.extend_select
    settings.ignore += args.ignore
    if args.target_torch:
        settings.target_torch, settings.target_label = args.target_torch, f"torch{args.target_torch}"
    validate_selectors(settings, set(catalog.by_code), {})
    ctx = Context.build(catalog, settings, use_prefilter=not args.no_prefilter)
    files, missing = discover(paths, settings.project_root, settings.exclude)
    fixing = args.fix or args.fix_only or args.diff
    mode = ("unsafe" if args.unsafe_fixes else "safe") if fixing else None
    findings: list[Finding] = []
    io_rule = ctx.engine[IO_ERROR]
    for item in missing:
        findings.append(Finding(_display(item.path), 1, 1, 1, 1, io_rule.code, "",
                                f"cannot check: {item.reason}", "error", io_rule.code))
    results = []
    for path in files:
        result = check_path(path, _display(path), ctx, mode)
        findings.extend(result.findings)
        if result.fixed is not None:
            results.append((path, _display(path), result))
    findings.sort(key=Finding.sort_key)
    if args.diff:
        write_diffs(results, sys.stdout)
        return EXIT_FINDINGS if results else EXIT_CLEAN
    failures = _write_fixes(results) if fixing else []
    for path, reason in failures:
        findings.append(Finding(path, 1, 1, 1, 1, io_rule.code, "",
                                f"fix not written: {reason}", "error", io_rule.code))
    if not args.fix_only:
        writer = write_json if args.format == "json" else write_text
        writer(findings, len(files), sys.stdout)
    if fixing:
        write_fix_summary(results, failures, findings, sys.stderr if args.format == "json"
                          else sys.stdout)
    if args.fix_only:
        return EXIT_ERROR if failures else EXIT_CLEAN
    if findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _write_fixes(results) -> list[tuple[str, str]]:
    from privlint.writer import ChangedOnDisk, write_atomic

    failures = []
    for path, display, result in results:
        try:
            write_atomic(path, result.original, result.fixed)
        except ChangedOnDisk:
            failures.append((display, "the file changed on disk while privlint was fixing it"))
            result.fixed = None
        except OSError as exc:
            failures.append((display, exc.strerror or str(exc)))
            result.fixed = None
    return failures


def run_rules(args: argparse.Namespace) -> int:
    from privlint.report import write_rules

    _, catalog = _load(args, Path("."))
    write_rules(catalog, args.format, sys.stdout)
    return EXIT_CLEAN


def run_probe(args: argparse.Namespace) -> int:
    from privlint.runtime import require_torch

    require_torch()
    from privlint.runtime.probe import run_probe as probe

    _, catalog = _load(args, Path("."))
    return probe(catalog, args.json, sys.stdout)


def run_verify(args: argparse.Namespace) -> int:
    from privlint.runtime import require_torch

    require_torch()
    from privlint.runtime.verify import run_verify as verify

    if args.nproc is not None and args.nproc < 1:
        raise PrivlintError("--nproc must be at least 1")
    _, catalog = _load(args, Path("."))
    return verify(args, catalog, sys.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    handlers = {"check": run_check, "rules": run_rules, "probe": run_probe, "verify": run_verify}
    if args.command not in handlers:
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    try:
        return handlers[args.command](args)
    except PrivlintError as exc:
        print(f"privlint: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("privlint: interrupted", file=sys.stderr)
        return 130
