"""Check one file: read, prefilter (text, then ast), parse, detect, place, suppress, and fix.

Data in, data out: bytes and settings in; findings, and the fixed bytes if any, out.
Bad input never raises: it becomes a finding (PRV002 unparsable, PRV003 unreadable).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from privlint import astgate, noqa, prefilter, slicing
from privlint.catalog import Catalog, Rule
from privlint.config import Selection, Settings, per_file_ignores
from privlint.errors import ConfigError
from privlint.findings import Finding, explain
from privlint.safety import looks_dangerous
from privlint.versions import TargetRange, older_than, parse_specifier

if TYPE_CHECKING:
    from privlint.project import ProjectIndex

VERSION_GATED, SYNTAX_ERROR, IO_ERROR = "version-gated", "syntax-error", "io-error"
RUNTIME_NAMES = ("device_type", "world_size", "rank", "local_rank")


@dataclass
class Context:
    """Everything a file check needs that does not change from file to file."""

    catalog: Catalog
    settings: Settings
    selection: Selection
    target: TargetRange
    relevant: prefilter.TextFilter
    gate: astgate.GateWords
    use_prefilter: bool = True
    use_slicing: bool = True            # hand libcst only the statements around candidates
    engine: dict[str, Rule] = field(default_factory=dict)
    project: "ProjectIndex | None" = None  # the project's own modules, read on demand
    # The words a line needs to hold a finding whose fix is planned on the whole file
    # (`_dynamo` and `disable`): a file with such a line is analysed whole at once. None until
    # first asked (see whole_file_fix_words): working it out imports libcst.
    fixable: tuple[frozenset[bytes], ...] | None = None

    @classmethod
    def build(cls, catalog: Catalog, settings: Settings, use_prefilter: bool = True,
              use_slicing: bool = True) -> "Context":
        known = catalog.known_releases
        if settings.target_torch is not None:
            try:
                minors = parse_specifier(settings.target_torch, known)
            except ValueError as exc:
                if settings.target_source == "--target-torch":
                    raise ConfigError(f"--target-torch: {exc}") from None
                # A file's range packaging reads but cannot compare (a number too long): said, not fatal.
                settings.warnings.append(f"{settings.target_source}: {exc}; judging against every "
                                         f"release the catalog knows")
                settings.target_torch, settings.target_label = None, ""
                return cls.build(catalog, settings, use_prefilter, use_slicing)
            reaches_below = bool(parse_specifier(settings.target_torch, older_than(known[0])))
            if minors:
                target = TargetRange(minors, settings.target_label or f"torch{settings.target_torch}",
                                     settings.target_source, known[0] if reaches_below else None)
            else:  # only releases older than the catalog's (cli._warn says so): judged on all it knows
                target = TargetRange(frozenset(known), "")
        else:
            target = TargetRange(frozenset(known), "")
        engine = {name: catalog.engine_rule(name) for name in (VERSION_GATED, SYNTAX_ERROR, IO_ERROR)}
        from privlint.project import ProjectIndex

        selection = Selection.from_settings(settings)
        return cls(catalog, settings, selection, target,
                   prefilter.build(catalog), astgate.gate_words(catalog, selection), use_prefilter,
                   use_slicing, engine, ProjectIndex(settings.project_root, catalog))


def whole_file_fix_words(ctx: Context) -> tuple[frozenset[bytes], ...]:
    """Context.fixable, worked out once: the words of each rule with a fix, but those whose
    template says what its plans read (fix/model.py's READS_BEYOND): they are planned on a
    slice where it holds what they read."""
    if ctx.fixable is None:
        from privlint.fix.model import READS_BEYOND, load_planners

        load_planners()
        ctx.fixable = tuple({frozenset(word.encode() for word in _fixable_words(rule.api))
                             for rule in ctx.catalog.rules
                             if rule.fix and rule.fix not in READS_BEYOND})
    return ctx.fixable


def _fixable_words(api: str) -> list[str]:
    """`torch._dynamo.disable` -> `_dynamo`, `disable`: its first private part and its last."""
    parts = api.rstrip(".*").split(".")
    private = [part for part in parts if part.startswith("_")]
    return [private[0], parts[-1]] if private else [parts[-1]]


@dataclass
class FileResult:
    findings: list[Finding]
    original: bytes = b""
    fixed: bytes | None = None          # the rewritten file, when fixes changed it
    applied: list[str] = field(default_factory=list)  # applicability of each applied fix
    verify_commands: list[str] = field(default_factory=list)


def _file_error(ctx: Context, display: str, kind: str, text: str, line: int = 1,
                column: int = 1) -> list[Finding]:
    rule = ctx.engine[kind]
    if not ctx.selection.enabled(rule.code, rule.default, per_file_ignores(ctx.settings, display)):
        return []
    return [Finding(display, line, column, line, column, rule.code, "", f"{text}. {rule.message}",
                    "error", rule.code)]


def _syntax_error_location(data: bytes, exc) -> tuple[int, int, str]:
    """Where the syntax error is: CPython's compiler points closer to the cause than libcst."""
    import ast

    try:
        compile(data, "<file>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except SyntaxError as syntax:
        return syntax.lineno or 1, syntax.offset or 1, syntax.msg
    except (ValueError, RecursionError, MemoryError) as other:
        return 1, 1, str(other)
    message = exc.message.split(": ", 1)[-1] if ": " in exc.message else exc.message
    return exc.raw_line, exc.raw_column + 1, f"{message} (libcst's parser)"


def _parse(data: bytes, display: str, ctx: Context, dangerous: bool,
           module_name: tuple[str, bool] | None):
    """(module, raw findings) or (None, error findings); `dangerous`: looks_dangerous(data);
    `module_name`: the file's dotted name and whether it is a package (project.module_name)."""
    # Here, so that `privlint --version` and `rules` stay light; cstparse first, as it is what
    # imports libcst the fast way (dataclass_code.py).
    from privlint.cstparse import cst, parse_module
    from privlint.detect import detect
    from privlint.safety import parse_would_fail

    if dangerous:
        reason = parse_would_fail(data)
        if reason is not None:
            return None, _file_error(ctx, display, SYNTAX_ERROR, f"cannot parse: {reason}")
    try:
        module = parse_module(data)
    except cst.ParserSyntaxError as exc:
        line, column, text = _syntax_error_location(data, exc)
        return None, _file_error(ctx, display, SYNTAX_ERROR, f"cannot parse: {text}", line, column)
    except SyntaxError as exc:  # from the encoding cookie: `# coding: klingon`
        return None, _file_error(ctx, display, SYNTAX_ERROR, f"cannot parse: {exc.msg}",
                                 exc.lineno or 1)
    except (RecursionError, MemoryError, ValueError, UnicodeError, LookupError) as exc:
        return None, _file_error(ctx, display, SYNTAX_ERROR, f"cannot parse: {type(exc).__name__}: {exc}")
    try:
        return module, detect(module, ctx.catalog, ctx.project, module_name)
    except RecursionError:
        return None, _file_error(ctx, display, SYNTAX_ERROR, "cannot analyse: nesting too deep")
    except Exception as exc:  # a fault of privlint's own: said on stderr, whatever is selected,
        # and as this file's PRV002; the other files are checked
        import sys

        why = f"{type(exc).__name__}: {str(exc)[:200]}"
        print(f"privlint: internal error on {display} ({why}); please report it", file=sys.stderr)
        return None, _file_error(ctx, display, SYNTAX_ERROR, f"cannot analyse: privlint failed on this "
                                 f"file ({why}); please report it")


def _place(raw, module, data: bytes, display: str, ctx: Context,
           starts: slicing.Starts | None = None,
           piece: slicing.Slice | None = None) -> list[tuple[object, Finding]]:
    """Positions, messages, selection and suppression, computed only for files with findings.
    `piece`: the slice `module` was parsed from (its lines are mapped back to the file's)."""
    from privlint.guards import admits
    from privlint.positions import spans

    ends = {id(item.statement): item.statement.body[-1] for item in raw if item.statement is not None}
    tops: dict[int, object] = {}
    members: dict[int, object] = {}
    inners: dict[int, object] = {}
    for item in raw:  # a node, and the end of its statement, sit where the finding does
        keys = [id(item.node)]
        if item.statement is not None:
            keys.append(id(ends[id(item.statement)]))
        for key in keys:
            if item.top is not None:
                tops[key] = item.top
            if item.member is not None:
                members[key] = item.member
            if item.inner is not None:
                inners[key] = item.inner
    where = spans(module, [item.node for item in raw] + list(ends.values()), tops, starts, members,
                  inners)
    if piece is not None:
        where = {key: (piece.original(line), column, piece.original(end_line), end_column)
                 for key, (line, column, end_line, end_column) in where.items()}
    asked = {where[id(item.node)][0] for item in raw}
    asked.update(where[id(end)][2] for end in ends.values())
    comments = noqa.directives(data, asked)
    ignores = per_file_ignores(ctx.settings, display)
    gated_rule = ctx.engine[VERSION_GATED]
    placed = []
    for item in raw:
        rule: Rule = item.rule
        if not ctx.selection.enabled(rule.code, rule.default, ignores):
            continue
        if item.reached_before is not None and rule.kind != "generic" and all(
                rule.window.has(m) for m in ctx.target.minors if m < item.reached_before):
            continue  # a fallback that runs only on supported releases that have the API
        # Version checks around the use narrow the releases that reach it: a branch no
        # supported torch takes is dead code, and a check every supported torch passes does
        # not choose anything (the use is plainly unguarded).
        target = ctx.target
        gated = item.version_gated
        if item.bounds and all(b is not None for b in item.bounds):
            reached = frozenset(m for m in target.minors if all(admits(b, m) for b in item.bounds))
            if not reached:
                continue
            gated = reached != target.minors
            target = replace(target, minors=reached)
        code = rule.code
        if gated:
            if not ctx.selection.enabled(gated_rule.code, gated_rule.default, ignores):
                continue
            code = gated_rule.code
        line, column, end_line, end_column = where[id(item.node)]
        lines = (line,)
        if item.statement is not None:
            lines += (where[id(ends[id(item.statement)])][2],)
        if noqa.is_suppressed(comments, lines, (code, rule.code)):
            continue
        message, severity = explain(rule, item.api, target, ctx.catalog,
                                    gated_rule if gated else None, item.keywords)
        anchor = item.statement if item.statement is not None else item.node
        placed.append((item, Finding(display, line, column + 1, end_line, end_column + 1,
                                     code, item.api, message, severity, rule.code,
                                     fingerprint=fingerprint(display, code, item.api,
                                                             module.code_for_node(anchor)))))
    return placed


def fingerprint(path: str, code: str, api: str, source: str) -> str:
    normalised = " ".join(source.split())
    return hashlib.sha256(f"{path}\0{code}\0{api}\0{normalised}".encode()).hexdigest()[:20]


def _plans_on_slice(raw, data: bytes, piece: bytes, target: TargetRange) -> bool:
    """Whether each finding's fix plan comes out on this slice as on the whole file: beyond
    its own statement the plan reads only names (READS_BEYOND), and the slice holds every
    occurrence of each."""
    from privlint.fix.model import reads_beyond

    for item in raw:
        names = reads_beyond(item, target)
        if names is None:
            return False
        for name in names:
            word = name.encode()
            if data.count(word) != piece.count(word):
                return False  # an occurrence the slice left out may be a use the plan reads
    return True


def _with_plans(placed, module, ctx: Context):
    """Attach a fix plan to each finding (version-gated uses get none: a human must choose)."""
    from privlint.fix.facts import FileFacts
    from privlint.fix.model import plan

    facts = FileFacts.of(module)
    out = []
    for item, finding in placed:
        result = plan(item, facts, ctx.target) if not item.version_gated else None
        fix = result.fix if result is not None else None
        if fix is not None:
            finding.fix = {"applicability": fix.applicability, "description": fix.description}
        elif result is not None and result.note:
            finding = Finding(**{**finding.__dict__, "message": f"{finding.message} ({result.note}.)"})
        out.append((finding, fix))
    return out


def verify_command(display: str, function) -> str | None:
    """The `privlint verify` call that exercises a rewritten function."""
    if function is None:
        return None
    params = [p.name.value for p in function.params.params + function.params.kwonly_params]
    if params and params[0] in ("self", "cls"):
        return None
    arguments = ", ".join(params)
    unknown = [p for p in params if p not in RUNTIME_NAMES]
    hint = f"  # give {', '.join(unknown)} a value" if unknown else ""
    return f"privlint verify {display} --call '{function.name.value}({arguments})' --nproc 4{hint}"


def origin_of(ctx: Context, display: str) -> "Callable[[], astgate.Origin]":
    """Where a file is in the project, worked out when a prefilter asks."""
    from privlint.project import module_name

    return lambda: astgate.Origin(ctx.project, module_name(Path(display)))


@dataclass(frozen=True)
class _Analysis:
    """One file's bytes and what the gate and the slicer made of them, for `analyse`. (A method
    of this, not a closure in check_source: a closure that calls itself holds itself, and that
    cycle kept every file's trees for the cyclic collector.)"""

    data: bytes
    source: bytes                        # the slice's text, or the file's own bytes
    piece: "slicing.Slice | None"
    whole_starts: "slicing.Starts | None"
    display: str
    ctx: Context
    dangerous: bool
    name: tuple[str, bool] | None        # the file's module name (project.module_name)
    relevant: bool                       # the text prefilter's answer

    def analyse(self, current: bytes):
        """(module, [(finding, fix or None)]), or (None, findings) if it cannot be analysed."""
        data, piece, ctx, display = self.data, self.piece, self.ctx, self.display
        sliced = piece is not None and current is self.source
        module, raw = _parse(current, display, ctx, self.dangerous if current is data or sliced
                             else looks_dangerous(current), self.name)
        if module is None:
            if sliced:
                return self.analyse(data)  # the file's own error, at the file's own line
            # Only files that could hold a finding are privlint's business (keeps the prefilter lossless).
            return None, (raw if self.relevant else [])
        try:
            if sliced and raw and not _plans_on_slice(raw, data, current, ctx.target):
                return self.analyse(data)  # such a fix is planned on the whole file, as it is applied
            starts = piece.starts if sliced else self.whole_starts if current is data else None
            # The file's own comments say what is suppressed.
            placed = _place(raw, module, data if sliced else current, display, ctx,
                            starts, piece if sliced else None) if raw else []
            return module, (_with_plans(placed, module, ctx) if placed else [])
        except RecursionError:
            return None, _file_error(ctx, display, SYNTAX_ERROR, "cannot analyse: nesting too deep")


def check_source(data: bytes, display: str, ctx: Context, fix: str | None = None,
                 relevant: bool | None = None) -> FileResult:
    """Findings for one file's bytes; with fix="safe"/"unsafe", also the rewritten bytes
    (the passes themselves are privlint.fix.passes'). `relevant`: the text prefilter's answer,
    when the caller already has it (runner.py asks it before sending a file to a worker)."""
    from privlint.project import module_name

    if relevant is None:
        relevant = ctx.relevant.search(data, origin_of(ctx, display))
    if ctx.use_prefilter and not relevant:
        return FileResult([], data)
    dangerous = looks_dangerous(data)  # such files go straight to the guarded libcst parse
    name = module_name(Path(display))
    source = data
    # The first line of each module-level statement, from CPython's tree: positions are then
    # generated statement by statement (positions.py). For the whole file and for its slice.
    whole_starts = piece = None
    if ctx.use_prefilter and not dangerous:
        reading = astgate.read(data, ctx.gate, astgate.Origin(ctx.project, name))
        if not reading.maybe:
            return FileResult([], data)
        if reading.tree is not None:
            whole_starts = slicing.statement_starts(reading.tree)
            inside_torch = name is not None and name[0].split(".")[0] == "torch"
            piece = slicing.slice_source(data, reading.tree, reading.lines, inside_torch, reading.stores,
                                         reading.names) \
                if ctx.use_slicing and fix is None \
                and not slicing.fixable_outside_try(data, reading.tree, reading.lines,
                                                whole_file_fix_words(ctx)) else None
            if piece is not None:
                source = piece.source

    analysis = _Analysis(data, source, piece, whole_starts, display, ctx, dangerous, name, relevant)
    result = FileResult([], data)
    if fix is None:
        module, planned = analysis.analyse(source)
        result.findings = planned if module is None else [finding for finding, _ in planned]
        return result
    from privlint.fix.passes import run_passes

    passes = run_passes(data, fix, analysis.analyse)
    result.findings, result.fixed, result.applied = passes.findings, passes.fixed, passes.applied
    for function in passes.unsafe_functions:
        command = verify_command(display, function)
        if command and command not in result.verify_commands:
            result.verify_commands.append(command)
    return result
