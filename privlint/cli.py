"""The command line: parse arguments, wire the modules together, choose the exit code.

Exit codes (ruff's): 0 no findings, 1 findings, 2 usage, configuration or rule error.
Heavy imports (libcst) happen inside the commands, so `privlint --version` stays instant.
"""

from __future__ import annotations

import argparse
import functools
import os
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
    check.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                       help="files or directories (default: .); `-` reads stdin")
    check.add_argument("--select", type=_codes, metavar="CODES",
                       help="comma-separated codes or prefixes to enable (replaces the configured set)")
    check.add_argument("--extend-select", type=_codes, default=[], metavar="CODES",
                       help="codes or prefixes to enable on top of the configured set")
    check.add_argument("--ignore", type=_codes, default=[], metavar="CODES",
                       help="codes or prefixes to disable")
    check.add_argument("--output-format", "--format", dest="format",
                       choices=("full", "concise", "text", "json", "sarif", "github", "junit"),
                       help="full (code frame and help; the default in a terminal), concise (one "
                            "line per finding; the default otherwise), json, sarif, github, junit")
    check.add_argument("--output-file", "-o", type=Path, metavar="PATH",
                       help="write the report to PATH instead of stdout")
    check.add_argument("--statistics", action="store_true", help="counts by code instead of findings")
    check.add_argument("--write-baseline", type=Path, metavar="FILE",
                       help="record the current findings in FILE (then --baseline FILE)")
    check.add_argument("--baseline", type=Path, metavar="FILE",
                       help="report only findings that are not in FILE")
    check.add_argument("--add-noqa", action="store_true",
                       help="add `# noqa: CODE` to every line with a finding")
    check.add_argument("--force-exclude", action="store_true",
                       help="apply excludes to files named on the command line too (pre-commit)")
    check.add_argument("--stdin-filename", metavar="PATH",
                       help="with the path `-`: read the source from stdin and report it as PATH")
    check.add_argument("--cache-dir", type=Path, metavar="DIR",
                       help="cache directory (default: .privlint_cache at the project root, "
                            "or $PRIVLINT_CACHE_DIR)")
    check.add_argument("-j", "--jobs", type=int, metavar="N",
                       help="worker processes for parsing (default: the number of cores)")
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
    check.add_argument("--no-slicing", action="store_true", help=argparse.SUPPRESS)

    probe = commands.add_parser("probe", help="what this torch build has of the catalog (needs torch)")
    probe.add_argument("--json", action="store_true", help="machine-readable output")
    probe.add_argument("--config", type=Path, metavar="FILE")
    _build_arguments(probe, "builds to probe: one column each (a version such as 2.4.1, or the "
                            "path of an environment); default: this interpreter's")

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
    _build_arguments(verify, "run every call as is on this torch build too, on its own ranks, and "
                             "compare the builds (repeatable: a version such as 2.4.1, or the path "
                             "of an environment; default: [tool.privlint.verify] torch)")
    verify.add_argument("--ab", action="store_true",
                        help="the single-build mode (A against B) even when the config names builds")

    rule = commands.add_parser("rule", help="explain one rule: versions, guards, fix, examples")
    rule.add_argument("code", metavar="CODE")
    rule.add_argument("--config", type=Path, metavar="FILE")

    rules = commands.add_parser("rules", help="list the rule catalog (`privlint rule CODE` for one)")
    rules.add_argument("--format", choices=("text", "json"), default="text")
    rules.add_argument("--config", type=Path, metavar="FILE")
    return parser


def _build_arguments(command: argparse.ArgumentParser, torch_help: str) -> None:
    command.add_argument("--torch", action="append", default=[], metavar="VERSION|PATH",
                         help=torch_help)
    command.add_argument("--env-dir", metavar="DIR",
                         help="where the per-version environments are cached (default: "
                              "$PRIVLINT_TORCH_ENVS, else ~/.cache/privlint/envs)")
    command.add_argument("--install-timeout", type=float, default=1200.0, metavar="SECONDS",
                         help="bound on creating one environment (default 1200)")
    command.add_argument("--torch-index", metavar="URL",
                         help="the package index to install torch builds from (default: "
                              "the installer's own, e.g. PyPI)")


def _display(path: Path, cwd: str | None = None) -> str:
    """The path as users see it: relative to the working directory (`cwd`, asked when not
    given), links not followed. Plain text operations: it is asked once per file checked."""
    directory, name = os.path.split(os.fspath(path))
    prefix = _display_directory(directory or ".", cwd or os.getcwd())
    return prefix + name if prefix is not None else path.as_posix()


@functools.lru_cache(maxsize=4096)
def _display_directory(directory: str, cwd: str) -> str | None:
    """A directory as users see it, with a trailing `/` ("" for the working directory); None
    when it is not under the working directory. Worked out once per directory: a corpus has
    thousands of files in a few hundred directories, and the run waits on this part."""
    from privlint.discover import real_directory

    real, base = real_directory(directory).as_posix(), real_directory(cwd).as_posix().rstrip("/") + "/"
    if real + "/" == base:
        return ""
    return real[len(base):] + "/" if real.startswith(base) else None


def _load(args: argparse.Namespace, start: Path):
    from privlint.catalog import load_catalog
    from privlint.config import load_settings

    settings = load_settings(args.config, start, torch_range=args.command == "check")
    catalog = load_catalog(settings.extend_rules)
    if args.command != "check":  # check says them with the torch range (_warn)
        for warning in settings.warnings:
            print(f"privlint: warning: {warning}", file=sys.stderr)
    return settings, catalog


def run_check(args: argparse.Namespace) -> int:
    from privlint.checker import IO_ERROR, Context
    from privlint.config import drop_unknown_selectors, validate_flag_selectors
    from privlint.discover import discover
    from privlint.findings import Finding

    stdin_mode = args.paths == [Path("-")]
    if stdin_mode and not args.stdin_filename:
        raise PrivlintError("reading from stdin (`-`) needs --stdin-filename PATH")
    paths = [Path(args.stdin_filename)] if stdin_mode else (args.paths or [Path(".")])
    if args.format is None:
        args.format = "full" if not args.output_file and sys.stdout.isatty() else "concise"
    elif args.format == "text":
        args.format = "concise"
    settings, catalog = _load(args, paths[0])
    codes = set(catalog.by_code)
    drop_unknown_selectors(settings, codes)
    validate_flag_selectors({"--select": args.select or [], "--extend-select": args.extend_select,
                             "--ignore": args.ignore}, codes)
    if args.select is not None:
        settings.select = args.select
    settings.extend_select += args.extend_select
    settings.ignore += args.ignore
    if args.target_torch:
        settings.target_torch, settings.target_label = args.target_torch, f"torch{args.target_torch}"
        settings.target_source = "--target-torch"
    ctx = Context.build(catalog, settings, use_prefilter=not args.no_prefilter,
                        use_slicing=not args.no_slicing)
    _warn(settings, ctx)
    args.project_root = settings.project_root
    fixing = args.fix or args.fix_only or args.diff
    mode = ("unsafe" if args.unsafe_fixes else "safe") if fixing else None
    if stdin_mode:
        return _check_stdin(args, ctx, mode)
    files, missing = discover(paths, settings.project_root, settings.exclude, args.force_exclude)
    io_rule = ctx.engine[IO_ERROR]
    reported = ctx.selection.enabled(io_rule.code, io_rule.default)  # `--ignore PRV003` too
    findings: list[Finding] = [
        Finding(_display(item.path), 1, 1, 1, 1, io_rule.code, "", f"cannot check: {item.reason}",
                "error", io_rule.code) for item in missing if reported]
    results = []
    for job, result in _run(args, ctx, files, mode, settings):
        findings.extend(result.findings)
        if result.fixed is not None:
            results.append((job.path, job.display, result))
    findings.sort(key=Finding.sort_key)
    if args.diff:
        from privlint.report import write_diffs

        write_diffs(results, sys.stdout)
        return EXIT_FINDINGS if results else EXIT_CLEAN
    if fixing:
        from privlint.writer import write_fixes

        failures = write_fixes(results, settings.project_root)
    else:
        failures = []
    for display, reason in failures:
        findings.append(Finding(display, 1, 1, 1, 1, io_rule.code, "",
                                f"fix not written: {reason}", "error", io_rule.code))
    if args.add_noqa:
        from privlint.noqa import add_noqa

        added, failed = add_noqa(findings, Path.cwd())
        print(f"Added {added} noqa directive{'s' if added != 1 else ''}."
              + (f" Could not write: {', '.join(failed)}" if failed else ""))
        return EXIT_ERROR if failed else EXIT_CLEAN
    if args.write_baseline:
        from privlint.baseline import write_baseline

        write_baseline(args.write_baseline, findings)
        print(f"Wrote {len(findings)} finding{'s' if len(findings) != 1 else ''} to {args.write_baseline}.")
        return EXIT_CLEAN
    if args.baseline:
        from privlint.baseline import new_findings, read_baseline

        findings = new_findings(findings, read_baseline(args.baseline))
    if not args.fix_only:
        _report(args, findings, len(files) + len(missing), catalog, ctx.target)
    if fixing:
        from privlint.report import write_fix_summary

        write_fix_summary(results, failures, findings,
                          sys.stdout if args.format in ("full", "concise") and not args.output_file else sys.stderr)
    if args.fix_only:
        return EXIT_ERROR if failures else EXIT_CLEAN
    if findings and not args.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _warn(settings, ctx) -> None:
    """Say once, on stderr, what was read but not understood, and where the torch range is from."""
    for warning in settings.warnings:
        print(f"privlint: warning: {warning}", file=sys.stderr)
    known = ctx.catalog.known_releases
    if not ctx.target.spec and settings.target_label:
        print(f"privlint: warning: {settings.target_label} (from {settings.target_source}) holds no "
              f"release the catalog knows ({known[0][0]}.{known[0][1]}–{known[-1][0]}.{known[-1][1]}); "
              f"judging against every release it knows.", file=sys.stderr)
    elif not ctx.target.spec:
        print(f"privlint: warning: no torch requirement found (pyproject.toml, requirements*.txt, "
              f"setup.cfg, setup.py); judging against every release the catalog knows "
              f"({known[0][0]}.{known[0][1]}–{known[-1][0]}.{known[-1][1]}). Set "
              f"`target-torch` in [tool.privlint] to say which torch you support.", file=sys.stderr)


def _run(args, ctx, files, mode, settings):

    from privlint.cache import Cache
    from privlint.runner import Job, default_jobs, run_files

    cache = None
    if not args.no_cache:
        directory = args.cache_dir or (Path(os.environ["PRIVLINT_CACHE_DIR"])
                                       if os.environ.get("PRIVLINT_CACHE_DIR")
                                       else settings.project_root / ".privlint_cache")
        state = repr((settings.select, sorted(settings.ignore), sorted(settings.extend_select),
                      sorted(settings.per_file_ignores.items()), settings.target_torch,
                      ctx.use_prefilter, ctx.use_slicing))
        cache = Cache(directory, Cache.salt_for(ctx.catalog.files, state))
    jobs = args.jobs if args.jobs else default_jobs()
    from privlint.progress import Progress

    progress = Progress(len(files))
    try:
        cwd = os.getcwd()
        return run_files([Job(p, _display(p, cwd)) for p in files], ctx, mode, cache, jobs, progress)
    finally:
        progress.close()


def _report(args, findings, files_checked: int, catalog, target=None) -> None:
    from privlint import formats, report

    out = open(args.output_file, "w", encoding="utf-8") if args.output_file else sys.stdout
    try:
        if args.statistics:
            formats.write_statistics(findings, catalog, out)
        elif args.format == "json":
            report.write_json(findings, files_checked, out, target)
        elif args.format == "sarif":
            formats.write_sarif(findings, catalog, out, args.project_root)
        elif args.format == "github":
            formats.write_github(findings, out)
        elif args.format == "junit":
            formats.write_junit(findings, files_checked, out)
        elif args.format == "full":
            from privlint.frames import write_full

            write_full(findings, files_checked, out, target)
        else:
            report.write_text(findings, files_checked, out, target)
    finally:
        if out is not sys.stdout:
            out.close()


def _check_stdin(args, ctx, mode) -> int:
    """Editors' and formatters' habit: source on stdin; with --fix, the fixed source on stdout."""
    from privlint.checker import check_source

    data = sys.stdin.buffer.read()
    display = _display(Path(args.stdin_filename))
    from privlint.safety import with_big_stack

    result = with_big_stack(check_source, data, display, ctx, mode)
    if mode is not None:
        sys.stdout.buffer.write(result.fixed if result.fixed is not None else data)
        sys.stdout.flush()
        from privlint.report import write_text

        if result.findings and not args.fix_only:
            write_text(result.findings, 1, sys.stderr)
    else:
        _report(args, result.findings, 1, ctx.catalog, ctx.target)
    return EXIT_FINDINGS if result.findings and not args.exit_zero and not args.fix_only else EXIT_CLEAN


def run_rule(args: argparse.Namespace) -> int:
    from privlint.report import write_rule

    _, catalog = _load(args, Path("."))
    if not write_rule(catalog, args.code, sys.stdout):
        raise PrivlintError(f"no rule {args.code!r} (see `privlint rules`)")
    return EXIT_CLEAN


def run_rules(args: argparse.Namespace) -> int:
    from privlint.report import write_rules

    _, catalog = _load(args, Path("."))
    write_rules(catalog, args.format, sys.stdout)
    return EXIT_CLEAN


def run_probe(args: argparse.Namespace) -> int:
    from privlint.runtime import require_torch

    _, catalog = _load(args, Path("."))
    specs = args.torch or []
    if specs:
        from privlint.runtime.probe import run_probe_matrix

        return run_probe_matrix(catalog, specs, args, sys.stdout)
    require_torch()
    from privlint.runtime.probe import run_probe as probe

    return probe(catalog, args.json, sys.stdout)


def run_verify(args: argparse.Namespace) -> int:
    from privlint.runtime import require_torch

    from privlint.runtime.verify import run_verify as verify

    if args.nproc is not None and args.nproc < 1:
        raise PrivlintError("--nproc must be at least 1")
    settings, catalog = _load(args, Path("."))
    args.torch_builds = [] if args.ab else (args.torch or settings.verify_torch)
    if not args.torch_builds:
        require_torch()
    return verify(args, catalog, sys.stdout)


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    handlers = {"check": run_check, "rule": run_rule, "rules": run_rules, "probe": run_probe,
                "verify": run_verify}
    if args.command not in handlers:
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    import signal

    def _terminate(signum, frame):  # SIGTERM unwinds like Ctrl-C: temporary files are removed
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _terminate)
    try:
        return handlers[args.command](args)
    except PrivlintError as exc:
        print(f"privlint: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("privlint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`privlint rules | head`): stop quietly, as `cat` would. Python
        # would complain again when it flushes stdout at exit, so point stdout at nothing first.

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141


def entry() -> None:
    """The `privlint` command (and `python -m privlint`). A `check` ends without tearing the
    interpreter down: freeing every object of the run (libcst's trees, the catalog, the
    modules) takes about a tenth of a pre-commit-sized run, and by the time `main` returns
    its output files are closed, its worker pool joined and its cache saved. Only stdout and
    stderr are left to flush. Other commands start torch and its launcher, whose clean-up at
    exit is theirs: they exit as usual."""
    code = main()
    if sys.argv[1:2] != ["check"]:
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        code = 141  # the reader went away before the last of the output, as `main` answers it
    except OSError as exc:  # a full disk under `> report.txt`: said, as an error, not a traceback
        try:
            os.write(2, f"privlint: error: cannot write the output: {exc}\n".encode())
        except OSError:
            pass
        code = EXIT_ERROR
    os._exit(code)
