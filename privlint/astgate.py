"""The second lossless prefilter: find with CPython's `ast` where a file may hold a finding.

libcst's parse is most of privlint's time, and CPython's parser is several times faster. The
gate reads the `ast` once and answers two questions: may the detector (detect.py) report
anything in this file, and on which lines. The second answer lets the checker hand libcst
only the code around those lines (slicing.py). The reading over-approximates the detector,
and says "maybe" whenever it is unsure.

Every finding sits where the code writes a private name (detect.py reports a use only where
the chain as written has a private part), so the candidates are:

- an import of a private path under a catalog root (`from torch._C import ...`);
- a private attribute, or `getattr(x, "_name")`, whose name a member rule covers (`._unflatten`
  on any receiver: the detector may know the receiver's type);
- any other private attribute or `getattr` string whose receiver may hold something the detector
  tracks. The receiver's chain is followed down to its head name (`dist.new_group()._x` ->
  `dist`; `self.pg._x` -> `self.pg`), and the head may hold a tracked value when an import from
  a catalog root binds it; the project hands it on (`from .utils import dist`, asked of the
  project index exactly as the detector asks it); or it gets a value whose own head may hold one,
  the way the resolver infers values (a call's result only when its callee may be typed: see
  `_untyped_call`): an assignment (`pg = dist.new_group()`, `self.pg = ...`),
  a loop, what a function here returns, an annotation, `isinstance` and `typing.cast`
  (repeated until nothing changes; scopes and order are ignored, which only adds names).
  An annotation (of a parameter, an assignment, a return; the type an `isinstance` or a
  `cast` names) types through a bare name it holds (`PG`, `DeviceMesh`) or a dotted name
  ending in a tracked type's name (`dist.ProcessGroup`): every path to a tracked type ends
  with one, aliases too, so `torch.nn.Module` types nothing. A tracked type's own name is
  such a source wherever the file names one (in code, a string or a comment); `self` is
  typed when a class's base reads as such an annotation. A file that star-imports a catalog
  root may type any receiver: all its private uses are candidates (`self._x` too, when a
  class there has a base).

Anything CPython cannot parse (a syntax error, newer syntax than this Python, a null byte)
is "maybe" everywhere: libcst then parses it and reports, as before. So is what libcst may
fail on where CPython does not (a run of thousands of adjacent string literals, which CPython
makes one constant: a file is read whole only when one string's lines hold that many quotes),
so that a PRV002 is never lost either; files the hostile-input screen flags never reach the
gate (checker.py).
"""

from __future__ import annotations

import ast
import gc
import re
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from privlint.catalog import Catalog, has_private_part, is_private
from privlint.prefilter import may_spell_a_name

if TYPE_CHECKING:
    from privlint.config import Selection
    from privlint.project import ProjectIndex

# libcst rejects a run of more than 3,000 adjacent string literals that CPython accepts (and
# merges into one constant, so the ast cannot count them); such a run needs 6,002 quotes.
MANY_QUOTES = 6000

_MEMBER = "<member>"  # marks a value that reads a distinctive member: its result has a type
# Marks a name that may hold a tracked type itself (`PG` after `from torch.distributed import
# ProcessGroup as PG`), as opposed to a value of one: what annotations type through.
_TYPE = "type:"


@dataclass(frozen=True)
class GateWords:
    roots: frozenset[str]       # first segments of every rule's API: {"torch"}
    members: frozenset[str]     # every member name a member rule covers
    # Short names of the tracked torch types: a file that names one (`inner: ProcessGroup`,
    # `class W(dist.ProcessGroup)`) can type a receiver whose private member is then reported.
    types: frozenset[str] = frozenset()
    type_words: tuple[bytes, ...] = field(default=(), compare=False)  # the same, as bytes
    # The names a callee must have for its call's result to be typed (catalog's
    # call_result_names), when the callee is an attribute or a name only a root import binds:
    # `torch.compile(model)` and `FSDP(model)` give `model` nothing the detector tracks.
    results: frozenset[str] = frozenset()
    # The API paths under which no selected rule reports anything (None: any path may report).
    silent: "Silence | None" = field(default=None, compare=False)


@dataclass
class Silence:
    """Whether the rules a run selects report nothing at or below an API path
    (Catalog.reports_nothing_under), worked out once for each path asked: off-by-default rules
    cover whole families (`torch.ops.aten._*`, `torch.utils._pytree`), and a file whose private
    uses are all theirs has nothing to report."""
    catalog: Catalog
    selection: "Selection"
    known: dict[str, bool] = field(default_factory=dict)

    def __call__(self, path: str) -> bool:
        answer = self.known.get(path)
        if answer is None:
            enabled = self.selection.enabled
            answer = self.known[path] = self.catalog.reports_nothing_under(
                path, lambda rule: enabled(rule.code, rule.default))
        return answer


def gate_words(catalog: Catalog, selection: "Selection | None" = None) -> GateWords:
    """What the gate reads for; with `selection`, also the paths its rules leave silent."""
    types = frozenset(name.rsplit(".", 1)[-1] for name in catalog.type_names)
    return GateWords(catalog.roots, catalog.member_names, types, tuple(sorted(t.encode() for t in types)),
                     catalog.call_result_names,
                     None if selection is None else Silence(catalog, selection))


_ASCII_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def names_a_type(data: bytes, words: tuple[bytes, ...]) -> bool:
    """Whether one of these words stands in the text as a whole word (as `\\b` reads one in
    bytes: ASCII letters, digits and `_` make words). Found with `bytes.find`: a pattern that
    starts with an alternation makes the engine try every byte."""
    for word in words:
        at = data.find(word)
        while at >= 0:
            end = at + len(word)
            if (not at or data[at - 1] not in _ASCII_WORD) \
                    and (end == len(data) or data[end] not in _ASCII_WORD):
                return True
            at = data.find(word, at + 1)
    return False


@dataclass(frozen=True)
class SelfStores:
    """What the gate worked out of the values a file stores on `self` (`self.pg = v`), for the
    slicer: a store matters to the detector only when it may type the attribute (the resolver
    keeps a tracked value or a capability flag, and nothing else) or make a flag."""

    typed: frozenset[str]     # the attributes whose `self.<attribute>` may hold a tracked value
    # The names the file binds by a `def` or as an assignment's or a loop's target: what a
    # predicate (`def has_x(): return hasattr(...)`), whose call makes a flag, may be called by.
    assigned: frozenset[str]


@dataclass(frozen=True)
class Reading:
    """What the gate learned of one file."""

    maybe: bool                          # may the detector report anything here?
    tree: ast.Module | None = None       # CPython's tree, when it parsed the file
    lines: frozenset[int] = frozenset()  # the lines of the candidate uses
    stores: SelfStores | None = None     # None: any store on `self` may type (not worked out)
    # The private names the candidates read: `_x` of `dist._x`, a `getattr`'s string; and the
    # private names a candidate gives a value, which may be a private torch path (`_pg =
    # torch._C._foo`, `from torch.x import _mesh_resources`), or that are given such a name's
    # value in turn (`_b = _pg`). The detector's readings of a private name across the whole
    # file (the project sets `_x` on an object itself, probes it, a class defines it) are of
    # the first. A use written through one of the others (`_pg.bar`, `_mr.get_root_mesh()`)
    # is no candidate here, yet the detector reports it; and a fix plan for an import reads
    # every use of the names it binds. None when not worked out (a star import of torch's,
    # whose file is never sliced): then every private word of the candidates' lines counts.
    names: frozenset[str] | None = None


@dataclass(frozen=True)
class Origin:
    """Where the file is, for the imports the project may hand on: `from .utils import dist`."""

    project: "ProjectIndex | None" = None
    module: tuple[str, bool] | None = None  # this file's dotted name, and is it a package


def _head(node: ast.expr, calls: "_Calls") -> str | ast.Call | None:
    """The name a receiver's value comes from: `dist.new_group()` -> `dist`, `self.pg` ->
    `self.pg` (what `self.pg = ...` assigned), `self` -> `self`; None for a literal, or for
    a call the resolver does not type (_untyped_call); the call itself for
    `typing.cast(PG, x)`, which its first argument types."""
    attribute = None
    while True:
        kind = type(node)
        if kind is ast.Attribute:
            attribute = node.attr
            node = node.value
        elif kind is ast.Call:
            if _is_cast(node):
                return node
            if _untyped_call(node, calls):
                return None
            attribute = None
            node = node.func
        elif kind is ast.Subscript:
            attribute = None
            node = node.value
        elif kind is ast.Starred:
            node = node.value
        elif kind is ast.Name:
            break
        else:
            return None
    if node.id in ("self", "cls"):
        return f"self.{attribute}" if attribute else "self"
    return node.id


def _target(node: ast.expr) -> str | None:
    """The name an assignment binds a value to (`a`, or `self.a`); tuples bind no value."""
    if type(node) is ast.Name:
        return node.id
    if type(node) is ast.Attribute and type(node.value) is ast.Name \
            and node.value.id in ("self", "cls"):
        return f"self.{node.attr}"
    return None


# The root whose paths the resolver never asks the project about: a call of any other path may
# be typed by what a project function of that name returns (resolve.py's `_infer_call`).
_TORCH = "torch"


def _untyped_callee(root: str, imported: str, results: frozenset[str]) -> bool:
    """Whether a name an import of `imported` from catalog root `root` binds is a callee whose
    call the resolver gives no type: a torch path whose last name no constructor or rule's
    return has (`from torch.distributed.fsdp import FullyShardedDataParallel`)."""
    return root == _TORCH and imported not in results


@dataclass(frozen=True)
class _Calls:
    """What tells, in one file, a call the resolver types from one it does not."""

    results: frozenset[str]  # the callee names whose calls may be typed (GateWords.results)
    untyped_names: frozenset[str] = frozenset()  # names only torch imports bind, to such callees
    # Names an import of anything but torch binds: a dotted call through one (`utils.make()`,
    # `mylib.core.make()`) may be typed by what the project's function of that path returns.
    path_heads: frozenset[str] = frozenset()


def _untyped_call(call: ast.Call, calls: _Calls) -> bool:
    """Whether the resolver gives this call's result no type (resolve.py's `_infer_call`): a
    call through an attribute whose name is not in `results` (`torch.compile(m)`), unless it
    is a dotted name from an import of anything but torch; or through a name the file binds
    only by importing, from torch, something whose name is not in `results` (`FSDP(m)` after
    `from torch.distributed.fsdp import FullyShardedDataParallel as FSDP`; _untyped_callee).
    A torch path's call is typed only by a constructor or a rule's return, each in `results`."""
    func = call.func
    kind = type(func)
    if kind is ast.Attribute:
        if func.attr in calls.results:
            return False
        head = func.value
        while type(head) is ast.Attribute:
            head = head.value
        return not (type(head) is ast.Name and head.id in calls.path_heads)
    return kind is ast.Name and func.id in calls.untyped_names


def _value(node: ast.expr | None, members: frozenset[str], types: frozenset[str],
           calls: _Calls) -> set[str]:
    """What a value's binding can come from, as the resolver infers it: the head of a name,
    attribute, call or subscript chain, and a distinctive member read along the chain. A
    call the resolver does not type (_untyped_call) ends the chain."""
    found: set[str] = set()
    attribute = None
    while node is not None:
        kind = type(node)
        if kind is ast.Attribute:
            if node.attr in members:
                found.add(_MEMBER)
            attribute = node.attr
            node = node.value
        elif kind is ast.Call:
            if _last_name(node.func) == "cast":  # typing.cast(PG, x): typed by what it names
                found |= _cast_type(node, types)
            elif _untyped_call(node, calls):
                return found
            attribute = None
            node = node.func
        elif kind is ast.Subscript:
            attribute = None
            node = node.value
        elif kind is ast.Name:
            # `pg = self.pg` is as typed as what `self.pg = ...` assigned (the resolver's attr_types),
            # and as `self` itself: a `self` typed as a plain name (`import pkg.utils as self`)
            # types its attributes, as it does the heads of uses.
            if attribute and node.id in ("self", "cls"):
                found.add(f"self.{attribute}")
            found.add(node.id)
            return found
        else:
            return found
    return found


def _is_cast(call: ast.Call) -> bool:
    """A call the resolver reads as `typing.cast`: named `cast`, with two arguments in all."""
    return _last_name(call.func) == "cast" and len(call.args) + len(call.keywords) == 2


def _cast_type(call: ast.Call, types: frozenset[str]) -> set[str]:
    """What a cast may type its result as: any of its arguments read as an annotation (the
    resolver reads the first as written, `cast(typ=PG, val=x)` too)."""
    found: set[str] = set()
    for argument in (*call.args, *(keyword.value for keyword in call.keywords)):
        found |= _annotation(argument, types)
    return found


def _last_name(node: ast.expr) -> str:
    return node.attr if type(node) is ast.Attribute else node.id if type(node) is ast.Name else ""


def _annotation(node: ast.expr | None, types: frozenset[str]) -> set[str]:
    """The names (marked _TYPE) through which an annotation may type what it annotates, as the
    resolver reads one (`Optional[PG]`, `"PG"`, `dist.ProcessGroup`). A dotted name types only
    as a tracked type's path, and every such path ends with a tracked type's name (`types`,
    aliases' too): `torch.nn.Module` gives nothing, `dist.ProcessGroup` gives `ProcessGroup`.
    A bare name types when it may hold a tracked type (`PG`). A string is read as the
    expression it holds, as the resolver parses it."""
    found: set[str] = set()
    todo = [node] if node is not None else []
    while todo:
        node = todo.pop()
        kind = type(node)
        if kind is ast.Name:
            found.add(_TYPE + node.id)
        elif kind is ast.Attribute:
            if _dotted(node):  # a dotted name: its head is not read on its own
                if node.attr in types:
                    found.add(_TYPE + node.attr)
            else:
                todo.append(node.value)  # `f().T` names no type; what it holds is read anyway
        elif kind is ast.Constant:
            if type(node.value) is str:
                parsed = _expression(node.value)
                if parsed is None:
                    found.update(_TYPE + name for name in re.findall(r"[A-Za-z_]\w*", node.value))
                else:
                    todo.append(parsed)
        else:
            todo.extend(children(node))
    return found


def _type_value(node: ast.expr | None, types: frozenset[str]) -> set[str]:
    """What an assigned value may make its target hold as a type (`Group = dist.ProcessGroup`,
    `Group = PG`): the resolver binds a path, which an annotation then reads."""
    if type(node) is ast.Name:
        return {_TYPE + node.id}
    if type(node) is ast.Attribute and node.attr in types and _dotted(node):
        return {_TYPE + node.attr}
    return set()


def _dotted(node: ast.Attribute) -> bool:
    """Whether an attribute is a dotted name (`a.b.T`), not an attribute of a call's result."""
    head = node.value
    while type(head) is ast.Attribute:
        head = head.value
    return type(head) is ast.Name


def _expression(text: str) -> ast.expr | None:
    """A string annotation's expression; None when CPython cannot read it (libcst may)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an invalid escape in the string is not ours to report
            return ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _string_arguments(call: ast.Call):
    for argument in (*call.args, *(keyword.value for keyword in call.keywords)):
        if isinstance(argument, ast.Starred):
            argument = argument.value
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            yield argument.value


def _bound_by_import(node: ast.Import | ast.ImportFrom) -> set[str]:
    """The names an import binds (`_limits` of `from torch.x import _limits`): a use through a
    private one may reach another rule, and a fix plan for the import reads every use of them."""
    return {alias.asname or (alias.name if type(node) is ast.ImportFrom else alias.name.split(".")[0])
            for alias in node.names}


def _absolute(node: ast.ImportFrom, origin: Origin) -> str | None:
    from privlint.project import absolute

    if node.level and origin.module is None:
        return None
    current, is_package = origin.module or ("", False)
    return absolute(node.module or "", node.level, current, is_package) or None


def read(data: bytes, words: GateWords, origin: Origin = Origin()) -> Reading:
    """Where in this file the detector may report something (see the module's docstring)."""
    # A parse makes many objects and no cycles: the cyclic collector only costs time here.
    collecting = gc.isenabled()
    gc.disable()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: not ours to report
            tree = ast.parse(data)
        if data.count(b"'") + data.count(b'"') >= MANY_QUOTES and _long_string_run(tree, data):
            return Reading(True)  # libcst may fail where CPython does not: libcst's turn
        if _lone_backslash(data):
            return Reading(True)  # libcst reads what follows such a line otherwise: libcst's turn
        # A type's name, or a string that may spell one (`"Process\x47roup"`) in an annotation.
        named = bool(words.type_words) and (names_a_type(data, words.type_words) or may_spell_a_name(data))
        lines, names, stores = _candidates(tree, words, origin, named)
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeError, OverflowError):
        return Reading(True)
    finally:
        if collecting:
            gc.enable()
    return Reading(bool(lines), tree, frozenset(lines), stores, None if names is None else frozenset(names))


def _lone_backslash(data: bytes) -> bool:
    """Whether a line holds only a backslash (and space): CPython joins it to the next line,
    and libcst reads the code after it otherwise (in the block above, or not at all)."""
    for ending in (b"\\\n", b"\\\r\n"):
        at = data.find(ending)
        while at >= 0:
            line_start = max(data.rfind(b"\n", 0, at), data.rfind(b"\r", 0, at)) + 1
            if not data[line_start:at].strip(b" \t\x0c"):
                return True
            at = data.find(ending, at + len(ending))
    return False


def _long_string_run(tree: ast.Module, data: bytes) -> bool:
    """Whether one string holds MANY_QUOTES quotes: CPython makes one constant of a run of
    adjacent literals, so a run libcst rejects is one node whose text has that many."""
    lines: list[bytes] | None = None
    for node in ast.walk(tree):
        if type(node) is ast.JoinedStr or (type(node) is ast.Constant
                                           and type(node.value) in (str, bytes)):
            # CPython's line numbers count `\r\n`, `\r` and `\n` as line ends, as `splitlines` does.
            lines = data.splitlines() if lines is None else lines
            text = b"\n".join(lines[node.lineno - 1:node.end_lineno or node.lineno])
            if text.count(b"'") + text.count(b'"') >= MANY_QUOTES:
                return True
    return False


def may_have_findings(data: bytes, words: GateWords, origin: Origin = Origin()) -> bool:
    """False only when the detector cannot report anything in this file."""
    return read(data, words, origin).maybe


def _span(node: ast.AST) -> range:
    return range(node.lineno, (node.end_lineno or node.lineno) + 1)


def _fields_of(kind: type) -> tuple[str, ...]:
    """The fields of a node class that can hold expressions or statements. A list field holds
    only nodes, or None (a `**` entry's key in a dict display), once the lists of names
    (`global`'s, `nonlocal`'s, a class pattern's keywords) are left out."""
    if kind in (ast.Global, ast.Nonlocal):
        return ()
    return tuple(name for name in kind._fields if name not in ("ctx", "op", "ops", "type_comment", "kwd_attrs"))


# Leaves and nodes whose parts the reading below takes itself: never descended into (and the
# None a list of nodes may hold).
_LEAVES = frozenset({ast.Name, ast.Constant, ast.Pass, ast.Break, ast.Continue, ast.Global,
                     ast.Nonlocal, ast.Import, ast.ImportFrom, ast.alias, type(None)})
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(kind: type) -> tuple[str, ...]:
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELDS[kind] = _fields_of(kind)
    return fields


BODIES = ("body", "orelse", "finalbody", "handlers", "cases")  # where statements hold statements


def children(node: ast.AST) -> "list[ast.AST]":
    """The nodes right inside `node`, as `ast.iter_child_nodes` finds them but for the
    contexts and operators, which hold nothing."""
    found: list[ast.AST] = []
    for name in _FIELDS.get(type(node)) or _fields(type(node)):
        value = getattr(node, name, None)
        if type(value) is list:
            found.extend([item for item in value if isinstance(item, ast.AST)])
        elif value is not None and isinstance(value, ast.AST):
            found.append(value)
    return found


def walk(node: ast.AST) -> "list[ast.AST]":
    """`node` and every node inside it, as `ast.walk` finds them but for the contexts and
    operators (`Load`, `Add`), which hold nothing: a list built in one loop, where `ast.walk`
    runs three generators per node."""
    found = [node]
    for current in found:  # (the list grows as it is read)
        found.extend(children(current))
    return found


def returns_in(statements: list[ast.stmt]):
    """The `return` statements among these statements and the blocks inside them (not inside
    the functions and classes they define)."""
    todo = list(statements)
    while todo:
        statement = todo.pop()
        kind = type(statement)
        if kind is ast.Return:
            yield statement
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
            continue
        else:
            for name in BODIES:
                todo.extend(getattr(statement, name, ()) or ())


def _candidates(tree: ast.Module, words: GateWords, origin: Origin,
                named: bool) -> tuple[set[int], set[str] | None, SelfStores | None]:
    """The lines of the candidate uses, the private names they read (Reading.names), and what
    the stores on `self` may type (None when the file's uses did not need it worked out).
    `named`: the file's text names a tracked type."""
    roots, members, results = words.roots, words.members, words.results
    everywhere = False                              # a star import of a root: any name may be its
    definite: set[int] = set()                     # lines that hold a candidate whatever names hold
    definite_names: set[str] = set()               # the private members those candidates read
    import_bound: set[str] = set()                  # the names candidate imports bind
    uses: list[tuple[ast.expr | None, int, str]] = []  # (receiver, line, name), other private uses
    # Names that may hold a tracked value, and (marked _TYPE) a tracked type: its own name,
    # as the resolver reads an unresolved `DeviceMesh` in an annotation, and its imports.
    sources: set[str] = {_MEMBER, *(_TYPE + name for name in words.types)} if named else {_MEMBER}
    # name -> the (module, name) each import of anything but a root binds it to; the name is
    # "" for the module itself (`import pkg.utils as u`).
    handed: dict[str, list[tuple[str, str]]] = {}
    stars: list[str] = []                           # project modules star-imported here
    binders: list[ast.AST] = []                     # what gives names values (read if needed)
    bases: list[ast.expr] = []                      # the base classes
    # Names a root import binds to what a call of is untyped (`FSDP`), and the names bound
    # any other way: a call of a name in the first and not the second is untyped.
    imported_callees: set[str] = set()
    bound: set[str] = set()
    assigned: set[str] = set()  # bound by a `def` or as a target (SelfStores.assigned)
    path_heads: set[str] = set()  # names imports of anything but torch bind (_Calls.path_heads)
    # A root's name that only `import <root>...` binds holds the root everywhere: the path a
    # use through it writes is the path the detector reports (for `Reading.silent`).
    plain_roots: set[str] = set()
    rebound_roots: set[str] = set()  # bound some other way too (a target or `def`: `assigned`)
    silent = words.silent
    # Imports from a module other than torch's own (node, module, name or "*", the name bound),
    # and whether a private name heads a chain: it may hold a private torch path they hand on.
    foreign_imports: list[tuple[ast.ImportFrom, str, str, str]] = []
    private_heads = False
    todo: list = [tree]
    pop, extend, append = todo.pop, todo.extend, todo.append
    Attribute, Call, Name, AST, Load = ast.Attribute, ast.Call, ast.Name, ast.AST, ast.Load
    while todo:
        node = pop()
        kind = type(node)
        if kind is Attribute:
            attr = node.attr
            if attr[0] == "_" and is_private(attr):
                line = node.end_lineno or node.lineno  # where the name is written
                if attr in members:
                    definite.add(line)
                    definite_names.add(attr)
                else:
                    uses.append((node.value, line, attr))
            value = node.value
            if type(value) is Name and value.id[0] == "_":
                private_heads = True  # `_C.foo`: see _private_paths_given
            todo.append(value)
            continue
        if kind in _LEAVES:
            if kind is Name:
                if type(node.ctx) is not Load:
                    bound.add(node.id)
                    assigned.add(node.id)
            elif kind is ast.Import:
                for alias in node.names:
                    parts = alias.name.split(".")
                    local = alias.asname or parts[0]
                    if parts[0] in roots:
                        if any(is_private(part) for part in parts) \
                                and not (silent is not None and silent(_to_first_private(parts))):
                            definite.update(_span(node))
                            import_bound.update(_bound_by_import(node))
                        (rebound_roots if alias.asname else plain_roots).add(local)
                        sources.add(local)
                        if alias.asname and parts[-1] in words.types:
                            sources.add(_TYPE + alias.asname)  # `import torch.x.ProcessGroup as PG`
                        # `import torch.x.y as z` binds z to torch.x.y; `import torch.x`, torch.
                        imported = parts[-1] if alias.asname else parts[0]
                        (imported_callees if _untyped_callee(parts[0], imported, results) else bound).add(local)
                    else:
                        bound.add(local)
                        rebound_roots.add(local)
                        # `import pkg.utils` binds `pkg`, `import pkg.utils as u` binds `u`: a
                        # call through it may be a project function's (_add_handed_on).
                        handed.setdefault(local, []).append(
                            (alias.name if alias.asname else parts[0], ""))
                    if parts[0] != _TORCH:
                        path_heads.add(local)
            elif kind is ast.ImportFrom:
                parts = (node.module or "").split(".")
                if not node.level and parts[0] in roots:
                    private_module = any(is_private(part) for part in parts)
                    if private_module and not (silent is not None and silent(_to_first_private(parts))):
                        definite.update(_span(node))
                        import_bound.update(_bound_by_import(node))
                    for alias in node.names:
                        if alias.name == "*" and parts[0] == _TORCH:
                            everywhere = True  # any name may be torch's: the detector's star roots
                        elif alias.name == "*":
                            stars.append(node.module or "")  # another root's: a module of the project
                        elif is_private(alias.name) and not private_module and not (
                                silent is not None and silent(f"{node.module}.{alias.name}")):
                            definite.update(_span(node))
                            import_bound.update(_bound_by_import(node))
                        local = alias.asname or alias.name
                        rebound_roots.add(local)
                        sources.add(local)
                        if parts[0] != _TORCH:  # the resolver asks the project of other roots' modules
                            foreign_imports.append((node, node.module or "", alias.name, local))
                        if alias.name != "*":
                            (imported_callees if _untyped_callee(parts[0], alias.name, results)
                             else bound).add(local)
                            if parts[0] != _TORCH:
                                path_heads.add(local)
                        if alias.name in words.types:  # `from torch.distributed import ProcessGroup as PG`
                            sources.add(_TYPE + local)
                else:
                    bound.update(alias.asname or alias.name for alias in node.names)
                    rebound_roots.update(alias.asname or alias.name for alias in node.names)
                    path_heads.update(alias.asname or alias.name for alias in node.names)
                    module = _absolute(node, origin)
                    if module is not None:  # else: a relative import outside a package
                        for alias in node.names:
                            if alias.name == "*" and module.split(".")[0] == _TORCH:
                                everywhere = True  # inside torch itself: the detector's star roots
                            elif alias.name == "*":
                                stars.append(module)
                                foreign_imports.append((node, module, "*", ""))
                            else:
                                local = alias.asname or alias.name
                                handed.setdefault(local, []).append((module, alias.name))
                                foreign_imports.append((node, module, alias.name, local))
            continue
        if kind is Call:
            func = node.func
            if type(func) is Name:
                if func.id == "isinstance" and len(node.args) == 2 and type(node.args[0]) is Name:
                    binders.append(node)
                elif func.id == "getattr":
                    for member in _string_arguments(node):
                        if is_private(member):
                            if member in members:
                                definite.update(_span(node))
                                definite_names.add(member)
                            else:
                                receiver = node.args[0] if node.args else None
                                uses.extend((receiver, line, member) for line in _span(node))
        elif kind in _BINDERS:
            binders.append(node)
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                bound.add(node.name)
                assigned.add(node.name)
        elif kind is ast.ClassDef:
            bases.extend(node.bases)
            bound.add(node.name)
            rebound_roots.add(node.name)
        elif kind in _NAMING:
            binding = getattr(node, _NAMING[kind])  # a parameter, `except E as e`, a match capture
            if binding is not None:
                bound.add(binding)
                rebound_roots.add(binding)
        # The children, inline: a generator per node was a fifth of this walk. (A list may hold
        # None, a leaf here.)
        for name in _FIELDS.get(kind) or _fields(kind):
            value = getattr(node, name, None)
            if type(value) is list:
                extend(value)
            elif value is not None and isinstance(value, AST):
                append(value)
    if private_heads:
        for node, module, name, local in foreign_imports:
            given = _private_paths_given(module, name, local, origin)
            if given:
                definite.update(_span(node))  # (the uses of what it gives are the candidates)
                import_bound.update(given)
    if silent is not None and uses and not everywhere and not stars:
        plain = plain_roots - rebound_roots - assigned
        if plain:
            uses = [use for use in uses if not _silenced(use[0], use[2], plain, silent)]
    # A project star import may bind any name: then no callee is known to be torch's alone.
    calls = _Calls(results, frozenset(imported_callees - bound) if not stars else frozenset(),
                   frozenset(_aliases(path_heads, binders)))
    if not uses:
        if not definite or everywhere:
            return definite, None, None
        seeds = import_bound | _given_by_candidates(binders, definite)
        flows = _flows(binders, members, words.types, calls)[0] if seeds else []  # (most: none given)
        return definite, _read_names(definite_names, seeds, flows), None
    heads: list[tuple[str | ast.Call | None, int]] = [
        (_head(receiver, calls) if receiver is not None else None, line) for receiver, line, _ in uses]
    if everywhere:
        return definite | {line for head, line in heads if head != "self" or bases}, None, None
    flows, functions = _flows(binders, members, words.types, calls)
    for at, (head, line) in enumerate(heads):
        if type(head) is ast.Call:  # a cast: typed as its first argument annotates
            key = f"<cast {at}>"
            flows.append((key, _cast_type(head, words.types)))
            heads[at] = (key, line)
    based = set().union(*(_annotation(base, words.types) for base in bases))
    demanded = {head for head, _ in heads if type(head) is str} | based | {"self", "cls"}
    _add_returned(flows, functions, demanded, members, words.types, calls)
    _add_handed_on(sources, handed, stars, flows, heads, origin, roots, words.types, based)
    held = _fixed_point(sources, flows)
    # `self` is typed by a tracked base class, read as an annotation is (`dist.ProcessGroup`,
    # an import of it as `PG`, a name a project star import hands on); `cls` and `self` are
    # one name to the heads (`cls._x` is read as `self`'s), so a typed `cls` types it too.
    if based & held or "cls" in held:
        held.add("self")
    # A `self` that may be typed as a plain name (`def patch(self: DTensorSpec)`) may type
    # its attributes too (`self.mesh._x`: the catalog knows a tracked type's attributes).
    typed_self = "self" in held
    chosen = [at for at, (head, _) in enumerate(heads)
              if head in held or (typed_self and type(head) is str and head.startswith("self."))]
    stores = None if typed_self else SelfStores(
        frozenset(name[len("self."):] for name in held if name.startswith("self.")), frozenset(assigned))
    lines = definite | {heads[at][1] for at in chosen}
    names = _read_names(definite_names | {uses[at][2] for at in chosen},
                        import_bound | _given_by_candidates(binders, lines), flows)
    return lines, names, stores


def _private_paths_given(module: str, name: str, local: str, origin: Origin) -> set[str]:
    """The names `from <module> import <name> as <local>` binds to a torch path with a private
    part, as the resolver binds them (tracking.bind_import), from a module other than torch's
    own (a project's, one under another root, or one inside torch by a relative import; `name`
    may be "*"). The detector reports a chain headed by a private name that holds such a path
    (`_C.foo()` after `from .compat import _C`, or after `from .compat import C` and `_C = C`)
    though it writes no private attribute: the import is a candidate, as a private torch import
    is, and its names seed the names whose mentions the slicer keeps (Reading.names)."""
    project = origin.project
    if name == "*":
        if project is None:
            return set()
        return {bound for bound, (kind, value) in project.star_names(module).items()
                if kind == "path" and has_private_part(value)}
    if module.split(".")[0] == _TORCH:  # (a relative import: torch's own are candidates already)
        return {local} if has_private_part(f"{module}.{name}") else set()
    handed = project.exported(module, name) if project is not None else None
    return {local} if handed is not None and handed[0] == "path" and has_private_part(handed[1]) else set()


def _to_first_private(parts: list[str]) -> str:
    """The dotted path up to its first private part (`torch.utils._pytree` of
    `torch.utils._pytree.tree_map`): every path the detector may report for what writes
    `parts` is at or below it."""
    for at, part in enumerate(parts):
        if is_private(part):
            return ".".join(parts[:at + 1])
    return ".".join(parts)


def _silenced(receiver: ast.expr | None, member: str, plain: set[str], silent: Silence) -> bool:
    """Whether a private use (`receiver.member`, or a getattr's) writes a path from a root's
    plain name (`torch.ops.aten._to_copy`) below which the selected rules report nothing."""
    parts = [member]
    node = receiver
    while type(node) is ast.Attribute:
        parts.append(node.attr)
        node = node.value
    if type(node) is not ast.Name or node.id not in plain:
        return False
    parts.append(node.id)
    parts.reverse()
    return silent(_to_first_private(parts))


def _read_names(members: set[str], given: set[str], flows: list[tuple[str, set[str]]]) -> set[str]:
    """Reading.names: the private members the candidates read, and the private names among
    those the candidates give a value (`given`: by candidate imports, and _given_by_candidates)
    and those given their values in turn (`_b = _a`, through any name: the flows' fixed point)."""
    given = _fixed_point(given, flows)
    given = {name[len("self."):] if name.startswith("self.") else name for name in given}
    return members | {name for name in given if is_private(name)}


def _given_by_candidates(binders: list[ast.AST], lines: set[int]) -> set[str]:
    """The names (`pg`, `self.pg`) that a value holding a candidate is given to (`_pg =
    torch._C._foo`), and the parameters whose default holds one: such a name may hold a
    private torch path, and a use written through it (`_pg.bar`) is one the detector reports
    when the name is private, though no private member there makes it a candidate."""
    found: set[str] = set()

    def holds(node: ast.expr) -> bool:
        return any(line in lines for line in range(node.lineno, (node.end_lineno or node.lineno) + 1))

    for node in binders:
        kind = type(node)
        if kind is ast.Assign or kind is ast.AnnAssign or kind is ast.NamedExpr:
            if node.value is None or not holds(node.value):
                continue
            for target in node.targets if kind is ast.Assign else (node.target,):
                name = _target(target)
                if name is not None:
                    found.add(name)
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            arguments = node.args
            positional = [*arguments.posonlyargs, *arguments.args]
            defaults = [*zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults),
                        *zip(arguments.kwonlyargs, arguments.kw_defaults)]
            found.update(arg.arg for arg, default in defaults if default is not None and holds(default))
    return found


_BINDERS = frozenset({ast.Assign, ast.AnnAssign, ast.NamedExpr, ast.For, ast.AsyncFor,
                      ast.comprehension, ast.FunctionDef, ast.AsyncFunctionDef})
# The other nodes that bind a name, and the field that holds it (None when they bind none).
_NAMING: dict[type, str] = {ast.arg: "arg", ast.ExceptHandler: "name", ast.MatchAs: "name",
                            ast.MatchStar: "name", ast.MatchMapping: "rest"}
for _kind in ("TypeVar", "ParamSpec", "TypeVarTuple"):  # Python 3.12's type parameters
    if hasattr(ast, _kind):
        _NAMING[getattr(ast, _kind)] = "name"


def _aliases(heads: set[str], binders: list[ast.AST]) -> set[str]:
    """`heads` and the names assigned a dotted name through one (`u = utils`, `h = pkg.sub`):
    the resolver binds such a name to the same path, so a call through it may be typed too."""
    assigned: list[tuple[str, str]] = []  # (name, the dotted value's head)
    for node in binders:
        kind = type(node)
        if kind is ast.Assign or kind is ast.AnnAssign or kind is ast.NamedExpr:
            value = node.value
            while type(value) is ast.Attribute:
                value = value.value
            if type(value) is ast.Name:
                for target in (node.targets if kind is ast.Assign else (node.target,)):
                    name = _target(target)
                    if name is not None:
                        assigned.append((name, value.id))
    heads = set(heads)
    changed = bool(assigned)
    while changed:
        changed = False
        for name, head in assigned:
            if head in heads and name not in heads:
                heads.add(name)
                changed = True
    return heads


def _flows(binders: list[ast.AST], members: frozenset[str], types: frozenset[str], calls: _Calls
           ) -> tuple[list[tuple[str, set[str]]], dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]]:
    """(name bound, what its value comes from) for each binding the walk met but a function's
    returns, and the functions by name (their returns are read on demand: _add_returned).
    Read only for a file with private uses whose receivers must be followed."""
    flows: list[tuple[str, set[str]]] = []
    functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for node in binders:
        kind = type(node)
        if kind is ast.Call:  # `isinstance(p, PG)` types `p` where it holds
            flows.append((node.args[0].id, _annotation(node.args[1], types)))
        elif kind is ast.Assign:
            came = _value(node.value, members, types, calls)
            kind_of = _type_value(node.value, types)
            for target in node.targets:
                name = _target(target)
                if name is not None:
                    if came:
                        flows.append((name, came))
                    if kind_of:
                        flows.append((_TYPE + name, kind_of))
        elif kind is ast.AnnAssign:
            name = _target(node.target)
            if name is not None:
                flows.append((name, _annotation(node.annotation, types)
                              | _value(node.value, members, types, calls)))
                flows.append((_TYPE + name, _type_value(node.value, types)))
        elif kind is ast.NamedExpr:
            flows.append((node.target.id, _value(node.value, members, types, calls)))
            flows.append((_TYPE + node.target.id, _type_value(node.value, types)))
        elif kind is ast.For or kind is ast.AsyncFor or kind is ast.comprehension:
            name = _target(node.target)
            if name is not None:
                flows.append((name, _value(node.iter, members, types, calls)))
        else:
            functions.setdefault(node.name, []).append(node)
            arguments = node.args
            for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
                if argument.annotation is not None:
                    flows.append((argument.arg, _annotation(argument.annotation, types)))
    return flows, functions


def _add_returned(flows: list[tuple[str, set[str]]],
                  functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]],
                  demanded: set[str], members: frozenset[str], types: frozenset[str],
                  calls: _Calls) -> None:
    """Add what functions return (the detector types a call by its function's returns), for
    the functions a value or a use here may reach by name: those in `demanded` (the uses'
    heads, the base classes, `self` and `cls`) or in what the flows come from, and so on
    through their own returns. A function nothing reads by name types nothing, and most of
    a file's functions are such."""
    wanted = set(demanded)
    for _, came in flows:
        wanted |= came
    pending = [name for name in wanted if name in functions]
    while pending:
        for node in functions.pop(pending.pop(), ()):
            came = _annotation(node.returns, types)
            for returned in returns_in(node.body):
                came |= _value(returned.value, members, types, calls)
            if came:
                flows.append((node.name, came))
                pending.extend(name for name in came if name in functions)


def _add_handed_on(sources: set[str], handed: dict[str, list[tuple[str, str]]], stars: list[str],
                   flows: list[tuple[str, set[str]]], uses: list[tuple[str | None, int]],
                   origin: Origin, roots: frozenset[str], types: frozenset[str],
                   based: set[str]) -> None:
    """Names the project's own modules hand on, asked only for the names that matter here:
    one a module binds to a torch path or a typed function (`from .utils import dist`), or one
    bound to a project function, module or package a call through may be typed by
    (`from pkg import utils` then `utils.make_pg()`). `based`: what the file's base classes
    read as annotations."""
    project = origin.project
    # (`self` and `cls` too: a use's head `self.make_pg` is typed by a `self` an import binds.)
    wanted = {head for head, _ in uses} | based | {"self", "cls"}
    for _, came in flows:
        wanted |= came
    for name in wanted.intersection(handed):
        for module, original in handed[name]:
            if not original:  # the module itself: only the project's functions type its calls
                typed = project is not None and project.calls_may_be_typed(module)
            else:  # a relative import inside torch itself names a root's module directly
                typed = project is None or module.split(".")[0] in roots \
                    or project.import_may_type(module, original)
            if typed:
                sources.add(name)
                break
    for name, imports in handed.items():
        for module, original in imports:
            if module.split(".")[0] in roots and original in types:
                sources.add(_TYPE + name)  # inside torch: `from .distributed_c10d import ProcessGroup as PG`
    for module in stars:
        if project is None:
            sources.update(wanted)  # without the project's modules, any name may be theirs
        else:
            names = project.star_names(module)
            sources.update(names)
            # A star import binds its names as plain paths, whatever they are called there: a
            # tracked type among them types what its name annotates.
            sources.update(_TYPE + name for name, (kind, _) in names.items() if kind == "path")


def _fixed_point(sources: set[str], flows: list[tuple[str, set[str]]]) -> set[str]:
    held = set(sources)
    pending = flows
    changed = True
    while changed:
        changed = False
        remaining = []
        for name, came in pending:
            if came & held:
                held.add(name)
                changed = True
            else:
                remaining.append((name, came))
        pending = remaining
    return held
