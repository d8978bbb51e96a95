"""Slicing (privlint/slicing.py): libcst sees only the statements around the candidates, and
the report is the one the whole file gives, finding for finding, position for position."""

from __future__ import annotations

import dataclasses
import ast
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privlint.astgate import Origin, gate_words, read
from privlint.catalog import load_catalog
from privlint.checker import Context, check_source, whole_file_fix_words
from privlint.config import Settings
from privlint.project import module_name
from privlint import slicing
from privlint.slicing import slice_source

CATALOG = load_catalog()
WORDS = gate_words(CATALOG)
# Sliced even where a fix may be planned (a real run analyses such files whole at once):
# the slice must then give the findings the whole file gives.
SLICED = dataclasses.replace(Context.build(CATALOG, Settings()), fixable=())
WHOLE = Context.build(CATALOG, Settings(), use_slicing=False)
UNFILTERED = Context.build(CATALOG, Settings(), use_prefilter=False)

FILLER = "\n".join(f"def helper_{i}(x):\n    return x + {i}\n" for i in range(30))


# Statements inside a function that no use depends on: `@BODY@` on a line of its own.
BODY = "\n".join(f"v{i} = compute({i}, *rows)" for i in range(25))
ROWS = "\n".join(f"compute({i}, v7 = {i})," for i in range(25))  # the elements of a display


def _source(text: str) -> bytes:
    text = textwrap.dedent(text).lstrip("\n")
    text = text.replace("@FILLER4@", textwrap.indent(FILLER, "    ")).replace("@FILLER@", FILLER)
    lines = []
    for line in text.split("\n"):
        if line.strip() in ("@BODY@", "@ROWS@"):
            filler = BODY if line.strip() == "@BODY@" else ROWS
            line = textwrap.indent(filler, line[:len(line) - len(line.lstrip())])
        lines.append(line)
    return "\n".join(lines).encode()


def _piece(data: bytes) -> slicing.Slice | None:
    reading = read(data, WORDS)
    assert reading.maybe and reading.tree is not None
    return slice_source(data, reading.tree, reading.lines, stores=reading.stores, names=reading.names)


def _sliced(data: bytes) -> bytes | None:
    piece = _piece(data)
    if piece is None:
        return None
    # Every line of a slice is a whole line of the file, in order, and says which one.
    original = data.split(b"\n")
    assert piece.numbers == sorted(set(piece.numbers))
    for line, number in zip(piece.source.split(b"\n"), piece.numbers):
        assert line == original[number - 1]
    ast.parse(piece.source)
    return piece.source


def _report(data: bytes, ctx: Context) -> list:
    # A fingerprint (what baselines match on) is not part of a Finding's equality: compare it too.
    return [(finding, finding.fingerprint) for finding in check_source(data, "case.py", ctx).findings]


@pytest.fixture
def slice_everything(monkeypatch):
    """Slice even where the slice keeps nearly every line: small programs test the slicer too."""
    monkeypatch.setattr(slicing, "NEARLY_ALL", 2)


def _same_report(data: bytes) -> list:
    sliced = _report(data, SLICED)
    assert sliced == _report(data, WHOLE)
    assert sliced == _report(data, UNFILTERED)
    return [finding for finding, _ in sliced]


CASES = {
    "the use far below its import": """
        import torch.distributed as dist
        @FILLER@
        def gather(out, inp):
            dist._all_gather_base(out, inp)
    """,
    "a guard at the top of the module": """
        import torch.distributed as dist
        if not hasattr(dist, "_all_gather_base"):
            raise ImportError("too old")
        @FILLER@
        dist._all_gather_base(out, inp)
    """,
    "a version check at the top of the module": """
        import torch
        import torch.distributed as dist
        assert torch.__version__ >= "2.5"
        @FILLER@
        dist._all_gather_base(out, inp)
    """,
    "a flag set in another statement": """
        import torch.distributed as dist
        HAS_GATHER = hasattr(dist, "_all_gather_base")
        @FILLER@
        def gather(out, inp):
            if HAS_GATHER:
                dist._all_gather_base(out, inp)
    """,
    "a private name the file sets itself": """
        import torch.distributed as dist
        @FILLER@
        def patch(target):
            target._my_hook = print
        def use():
            dist._my_hook("x")
    """,
    "a method that types another method's attribute": """
        import torch.distributed as dist
        class Worker:
            def __init__(self):
                self.pg = dist.new_group()
        @FILLER4@
            def go(self):
                self.pg._allgather_base(a, b)
    """,
    "a local function's result": """
        import torch.distributed as dist
        def make():
            return dist.new_group()
        @FILLER@
        make()._allgather_base(a, b)
    """,
    "comments above the first statement kept, the file's first left out": """
        import os
        @FILLER@
        # a note on the use: the statement's own, not the module's header
        torch._C._foo()
        import torch
    """,
    "comments above a use, after code left out": """
        import torch
        @FILLER@
        def left_out():
            return 1
            # the footer of left_out's body
        # the use's own comment, part of its fingerprint
        limit = torch._dynamo.config.cache_size_limit
    """,
    "a use deep in a long function": """
        import torch.distributed as dist
        def train(rows, out, inp):
            @BODY@
            for row in rows:
                @BODY@
                if row:
                    dist._all_gather_base(out, inp)
                @BODY@
            @BODY@
            return out
    """,
    # Found by the generated programs: `dist` is local to `first` (assigned in it), and the
    # narrowing decides what `self.dist` holds (a ProcessGroup has no `new_group`), so it is
    # kept with the assignment after it.
    "a narrowing before an assignment another method reads": """
        import torch.distributed as dist
        from torch.distributed import ProcessGroup
        @FILLER@
        class K:
            def first(self, out):
                assert isinstance(dist, ProcessGroup)
                self.dist = dist.new_group()
                dist = dist.new_group()
            def second(self, out, inp):
                self.dist._allgather_base(out, inp)
    """,
    "a narrowing inside a statement before an assignment another method reads": """
        import torch.distributed as dist
        from torch.distributed import ProcessGroup
        @FILLER@
        class K:
            def first(self, out):
                if out:
                    if not isinstance(dist, ProcessGroup):
                        return
                self.dist = dist.new_group()
                dist = dist.new_group()
            def second(self, out, inp):
                self.dist._allgather_base(out, inp)
    """,
    "a guard early in the function": """
        import torch.distributed as dist
        def gather(out, inp):
            if not hasattr(dist, "_all_gather_base"):
                return None
            @BODY@
            dist._all_gather_base(out, inp)
            @BODY@
    """,
    "a version check with both branches in a function": """
        import torch
        import torch.distributed as dist
        def gather(out, inp):
            @BODY@
            if torch.__version__ >= "2.5":
                @BODY@
                dist._all_gather_base(out, inp)
            else:
                @BODY@
                dist.all_gather_into_tensor(out, inp)
            @BODY@
    """,
    "an elif chain": """
        import torch
        import torch.distributed as dist
        def gather(out, inp, mode):
            if mode == 1:
                @BODY@
            # a comment above the elif
            elif torch.__version__ >= "2.5":
                @BODY@
                dist._all_gather_base(out, inp)
            else:
                @BODY@
    """,
    "a flag set earlier in the function": """
        import torch.distributed as dist
        def gather(out, inp):
            has_base = hasattr(dist, "_all_gather_base")
            @BODY@
            if has_base:
                dist._all_gather_base(out, inp)
    """,
    "a group typed earlier in the function": """
        import torch.distributed as dist
        def gather(out, inp, rows):
            group = dist.new_group()
            @BODY@
            group._allgather_base(out, inp)
    """,
    "a try around the use": """
        import torch.distributed as dist
        def gather(out, inp):
            try:
                @BODY@
                dist._all_gather_base(out, inp)
            except AttributeError:
                dist.all_gather_into_tensor(out, inp)
            @BODY@
    """,
    "loops with else and a with block": """
        import contextlib
        import torch.distributed as dist
        def gather(out, inp, rows):
            while rows:
                @BODY@
            else:
                @BODY@
            for row in rows:
                @BODY@
            else:
                with contextlib.suppress(AttributeError):
                    @BODY@
                    dist._all_gather_base(out, inp)
    """,
    "a two-statement helper is not a predicate": """
        import torch.distributed as dist
        def has_base():
            note = "two statements"
            return hasattr(dist, "_all_gather_base")
        @FILLER@
        def gather(out, inp):
            if has_base():
                dist._all_gather_base(out, inp)
    """,
    "a one-statement helper is a predicate": """
        import torch.distributed as dist
        def has_base():
            return hasattr(dist, "_all_gather_base")
        @FILLER@
        def gather(out, inp):
            @BODY@
            if has_base():
                dist._all_gather_base(out, inp)
    """,
    "a flag a try sets for its import, far above its use": """
        import torch
        try:
            import torch._dynamo
            HAS_DYNAMO = True
        except ImportError:
            HAS_DYNAMO = False
        @FILLER@
        def compiled(model):
            if HAS_DYNAMO:
                return torch._dynamo.optimize("x")(model)
            return torch._dynamo.optimize("y")(model)
    """,
    "a guarded import whose handler lets the failure pass, far above its use": """
        import torch
        try:
            import torch._dynamo
        except ImportError:
            pass
        @FILLER@
        def compiled(model):
            return torch._dynamo.optimize("x")(model)
    """,
    "a flag a try sets inside a function": """
        import torch
        @FILLER@
        def compiled(model):
            try:
                from torch import _dynamo
                ok = True
            except ImportError:
                ok = False
            @BODY@
            if ok:
                return torch._dynamo.optimize("x")(model)
            return torch._dynamo.optimize("y")(model)
    """,
    # Found in review: a use through a private name an import bound is no candidate of the
    # gate's, and the guard above it is kept all the same.
    "a guard above a use through a private name a guarded import bound": """
        try:
            from torch import _dynamo
        except ImportError:
            _HAS = False
        else:
            _HAS = True
        def compiled(model):
            model.eval()
            if not _HAS:
                return model
            return _dynamo.optimize("x")(model)
        @FILLER@
    """,
    "a try that sets two flags, one read": """
        import torch
        def compile_model(model):
            try:
                import torch._dynamo
                ok = True
                loaded = True
            except ImportError:
                return model
            @BODY@
            if ok:
                torch._dynamo.reset()
            return model
        @FILLER@
    """,
    "a flag proves an import whose names no kept code reads": """
        import torch
        try:
            from torch.utils._pytree import tree_map as tm
            from torch import _dynamo
            HAS = True
        except ImportError:
            HAS = False
        @FILLER@
        def f(m):
            if HAS:
                torch._C.tree_map(m)
            return m
    """,
    "a pytestmark on a try flag, far above the tests": """
        import pytest
        import torch
        try:
            import torch._dynamo
            HAS = True
        except ImportError:
            HAS = False
        pytestmark = pytest.mark.skipif(not HAS, reason="needs dynamo")
        @FILLER@
        def test_compiled(model):
            return torch._dynamo.optimize("x")(model)
    """,
    "a pytestmark bound again below the tests": """
        import sys
        import pytest
        import torch
        try:
            import torch._dynamo
            HAS = True
        except ImportError:
            HAS = False
        pytestmark = pytest.mark.skipif(not HAS, reason="needs dynamo")
        def test_compiled(model):
            return torch._dynamo.optimize("x")(model)
        @FILLER@
        if sys.platform == "win32":
            pytestmark = pytest.mark.slow
    """,
    "pytest.skip under a try flag in a long test": """
        import pytest
        import torch
        try:
            import torch._dynamo
            HAS = True
        except ImportError:
            HAS = False
        @FILLER@
        def test_compiled(model):
            model.eval()
            if not HAS:
                pytest.skip("needs dynamo")
            @BODY@
            return torch._dynamo.optimize("x")(model)
    """,
    "a predicate method defined after its use": """
        import torch.distributed as dist
        HAS_BASE = hasattr(dist, "_all_gather_base")
        class Worker:
            def go(self, out, inp):
                @BODY@
                if self.can_gather():
                    dist._all_gather_base(out, inp)
        @FILLER4@
            def can_gather(self):
                return HAS_BASE
    """,
    "a predicate method defined before its use": """
        import torch.distributed as dist
        HAS_BASE = hasattr(dist, "_all_gather_base")
        class Worker:
            @classmethod
            def can_gather(cls):
                return HAS_BASE
        @FILLER4@
            def go(self, out, inp):
                @BODY@
                return dist._all_gather_base(out, inp) if self.can_gather() else None
    """,
    "a predicate method whose line goes on after its return": """
        import torch.distributed as dist
        HAS_BASE = hasattr(dist, "_all_gather_base")
        class Worker:
            def can_gather(self):
                return HAS_BASE; note = 1
        @FILLER4@
            def go(self, out, inp):
                @BODY@
                if self.can_gather():
                    dist._all_gather_base(out, inp)
    """,
    "a predicate method after a line that starts with its docstring": """
        import torch.distributed as dist
        HAS_BASE = hasattr(dist, "_all_gather_base")
        class Worker:
            def can_gather(self):
                "Whether the base exists."; note = 1
                return HAS_BASE
        @FILLER4@
            def go(self, out, inp):
                @BODY@
                if self.can_gather():
                    dist._all_gather_base(out, inp)
    """,
    "a nested function's result": """
        import torch.distributed as dist
        def outer(out, inp):
            def make():
                @BODY@
                return dist.new_group()
            @BODY@
            make()._allgather_base(out, inp)
    """,
    "an attribute set in the same method": """
        import torch.distributed as dist
        class Worker:
            \"\"\"A docstring no use depends on.\"\"\"
            def go(self, out, inp):
                @BODY@
                self.pg = dist.new_group()
                @BODY@
                self.pg._allgather_base(out, inp)
    """,
    "a narrowing assert": """
        import torch
        from torch.distributed.tensor import DTensor
        def local(p):
            @BODY@
            assert isinstance(p, DTensor)
            @BODY@
            return p._local_tensor
    """,
    "a narrowing assert inside an if": """
        import torch.distributed as dist
        from torch.distributed import ProcessGroup
        def gather(out, inp, flag):
            @BODY@
            if flag:
                assert isinstance(dist, ProcessGroup)
            @BODY@
            group = dist.new_group()
            group._allgather_base(out, inp)
    """,
    "comments above a use after statements left out in a function": """
        import torch
        def limit(rows):
            @BODY@
            for row in rows:
                pass
                # the footer of the loop
            # the use's own comment, part of its fingerprint
            value = torch._dynamo.config.cache_size_limit
            @BODY@
    """,
    "an if whose body goes on after it raises": """
        import torch.distributed as dist
        def gather(out, inp):
            @BODY@
            if not hasattr(dist, "_all_gather_base"):
                raise ImportError("no _all_gather_base")
                print("never runs, but the body does not end by leaving")
            dist._all_gather_base(out, inp)
    """,
    "a use in a handler, the fallback of the public API in the body": """
        import torch
        @FILLER@
        def multiply(a, b, results):
            try:
                @BODY@
                results.append(torch.nn.functional.grouped_mm(a, b))
            except AttributeError:
                results.append(torch._grouped_mm(a, b))
            @BODY@
    """,
    "a long table the use reads": """
        import torch
        from helpers import make_group
        TABLE = [
            make_group(),
            @ROWS@
        ]
        def gather(out, inp):
            TABLE[0]._allgather_base(out, inp)
            return torch._dynamo.config.cache_size_limit
    """,
    "a table with a walrus inside": """
        import torch.distributed as dist
        @FILLER@
        TABLE = [
            (group := dist.new_group()),
            @ROWS@
        ]
        group._allgather_base(out, inp)
    """,
    "a table that sets a private name the use reads": """
        import torch.distributed as dist
        @FILLER@
        TABLE = [
            setattr(dist, "_zzz_private", print),
            @ROWS@
        ]
        dist._zzz_private("x")
    """,
    "a member rule's name the file sets itself": """
        import torch.distributed as dist
        @FILLER@
        def install(stub):
            stub._flatten = lambda *names: stub
        def use(mesh):
            return mesh._flatten()
    """,
    "a member rule's name, read by getattr, that the file sets itself": """
        import torch.distributed as dist
        @FILLER@
        def install(stub):
            stub._flatten = lambda *names: stub
        def use(mesh):
            return getattr(mesh, "_flatten")()
    """,
    "a use through a private import's name that reaches another rule": """
        from torch.distributed.device_mesh import _mesh_resources
        @FILLER@
        def root_of(mesh):
            return _mesh_resources.root_to_flatten_mapping[mesh]
    """,
    "a use through a private name given a private torch path": """
        import torch
        _ops = torch._C._foo
        @FILLER@
        def run():
            return _ops.bar
    """,
    "a use through a private attribute given a private torch path": """
        import torch
        class Runner:
            def __init__(self):
                self._ops = torch._C._foo
        @FILLER4@
            def run(self):
                return self._ops.bar
    """,
    "a use through a private parameter whose default is a private torch path": """
        import torch
        def run(x, _ops=torch._C._foo):
            @BODY@
            return _ops.bar
    """,
    "a use through a private name given a member rule's API, no receiver followed": """
        from torch.distributed.device_mesh import DeviceMesh
        _root = DeviceMesh._get_root_mesh
        @FILLER@
        def root_of(mesh):
            return _root.bar
    """,
    "a use through a private name given, in turn, a private torch path": """
        import torch
        ops = (
            torch._C._foo)
        _ops = ops
        @FILLER@
        def run():
            return _ops.bar
    """,
    "a use through a private name given a private import's name": """
        from torch.distributed.device_mesh import _mesh_resources as mr
        _mr = mr
        @FILLER@
        def root_of(mesh):
            return _mr.get_root_mesh(mesh)
    """,
    "a noqa comment on the use": """
        import torch.distributed as dist
        @FILLER@
        dist._all_gather_base(out, inp)  # noqa: PRV303
        dist._reduce_scatter_base(out, inp)
    """,
}

# Found in review: a store the resolver makes that the slicer did not count as one, and reads
# of `self` in code the class body runs itself. Each was lost, or reported wrongly, once a
# store beside it (`self.size = 1`, which types nothing) was no longer kept for its own read.
_COMPREHENSION_ON_SELF = """
    import torch.distributed as dist
    from torch.distributed.device_mesh import DeviceMesh
    class Trainer:
        def __init__(self, meshes: "list[DeviceMesh]", c):
@STORES@
    @FILLER4@
        def step(self, foo):
            foo._bar()
            self.mesh._flatten(self.size)
"""
for _name, _stores in {
    "beside a store that types nothing": "self.size = 1; [0 for self.mesh in meshes]",
    "in a method of two statements": "self.size = 1\n[0 for self.mesh in meshes]",
    "inside an if": "if c:\n    self.size = 1\n    [0 for self.mesh in meshes]\nelse:\n    self.size = 2",
}.items():
    CASES[f"a comprehension's target on self {_name}"] = _COMPREHENSION_ON_SELF.replace(
        "@STORES@", textwrap.indent(_stores, " " * 12))
CASES.update({
    "a flag on self read by a lambda of the class body": """
        import torch.distributed as dist
        HAS = hasattr(dist, "_all_gather_base")
        class A:
            def __init__(self):
                self.size = 1; self.ok = HAS
        @FILLER4@
            def go(self, out, inp):
                dist._all_gather_base(out, inp, self.size)
            gather = lambda self, out, inp: dist._all_gather_base(out, inp) if self.ok else None
    """,
    "a flag on self read by a default argument": """
        import torch.distributed as dist
        HAS = hasattr(dist, "_all_gather_base")
        class A:
            def __init__(self):
                self.ok = HAS
        @FILLER4@
            def go(self, out, inp, fn=(dist._all_gather_base if self.ok else None)):
                return fn
    """,
})

CASES.update({
    "a property that probes, read as a flag": """
        import torch.distributed as dist
        class A:
            @property
            def ok(self):
                return hasattr(dist, "_all_gather_base")
        @FILLER4@
            def go(self, out, inp):
                if not self.ok:
                    return None
                dist._all_gather_base(out, inp)
            def late(self, out, inp):
                if self.has_it:
                    dist._all_gather_base(out, inp)
            def has_it(self):
                return hasattr(dist, "_all_gather_base")
            @classmethod
            def on_class(cls, out, inp):
                if cls.ok:
                    dist._all_gather_base(out, inp)
            @ok.setter
            def ok(self, value):
                self._ok = value
    """,
    "a property redefined as a plain method far below it": """
        import torch.distributed as dist
        class A:
            @property
            def ok(self):
                return hasattr(dist, "_all_gather_base")
        @FILLER4@
            def ok(self):
                found = self._ok
                return found
            def go(self, out, inp):
                if self.ok:
                    dist._all_gather_base(out, inp)
    """,
    "a cached property that probes is no flag": """
        import functools
        import torch.distributed as dist
        class A:
            def __init__(self):
                self.ok = True
            @functools.cached_property
            def ok(self):
                return hasattr(dist, "_all_gather_base")
        @FILLER4@
            def go(self, out, inp):
                if self.ok:
                    dist._all_gather_base(out, inp)
    """,
})


def test_a_property_that_probes_guards_and_a_method_read_uncalled_does_not():
    """A property's body runs when it is read, so `if not self.ok: return` guards what follows;
    a method read without a call is a bound method, always true, and guards nothing."""
    data = _source(CASES["a property that probes, read as a flag"])
    lines = data.split(b"\n")
    uses = [number for number, line in enumerate(lines, 1) if line.strip() == b"dist._all_gather_base(out, inp)"]
    # The guarded use (after `if not self.ok: return`) is not reported; the uncalled method's
    # and the one under `cls.ok` (the property object itself, always true) are; a setter of
    # the property changes nothing.
    assert [finding.line for finding in _same_report(data)] == uses[1:]
    # Redefined as a plain method: the last definition runs, a bound method, always true.
    assert len(_same_report(_source(CASES["a property redefined as a plain method far below it"]))) == 1
    cached = _same_report(_source(CASES["a cached property that probes is no flag"]))
    assert len(cached) == 1  # an instance attribute of the same name hides a cached_property


# Found in a second review: stores written in shapes the slicer's reading of stores missed.
_STORE_SHAPES = {
    "a comprehension's target right after a number": "return [0for self.pg in groups]",
    "a comprehension's target inside a display":
        "table = [\n    1,\n    [0 for self.pg in groups],\n    2,\n]",
    "a comment after a stored name": "(self.pg  # the group\n ) = dist.new_group()",
    "a comment before a store's dot": "(self  # the group\n ).pg = dist.new_group()",
    "a comment after a store's dot": "(self.  # the group\n pg) = dist.new_group()",
    "a comment in a loop's target": "for (self.pg  # each\n     ) in groups:\n    pass",
    "a comment in a comprehension's target": "return [0 for self.pg  # each group\n        in groups]",
}
for _name, _store in _STORE_SHAPES.items():
    CASES[f"a store on self: {_name}"] = """
        import torch.distributed as dist
        from torch.distributed import ProcessGroup
        def other(out, inp):
            dist._all_gather_base(out, inp)
        class Worker:
            def setup(self, groups: list[ProcessGroup]):\n""" + textwrap.indent(_store, " " * 16) + """
        @FILLER4@
            def go(self, a, b):
                self.pg._allgather_base(a, b)
    """
CASES["a store on self: a comprehension's target in a display of the class body"] = """
    import torch.distributed as dist
    from torch.distributed import ProcessGroup
    GROUPS: list[ProcessGroup] = []
    class Worker:
        TABLE = [
            1,
            [0 for cls.pg in GROUPS],
            2,
        ]
    @FILLER4@
        def go(self, a, b):
            self.pg._allgather_base(a, b)
"""

# A capability flag stored on `self` in one method guards a use in another. The stored value
# types nothing, so only its being a flag keeps the store in the slice (_may_be_a_flag).
_FLAG_ON_SELF = """
    import torch.distributed as dist
    HAS_BASE = hasattr(dist, "_all_gather_base")
    def can_gather():
        return hasattr(dist, "_all_gather_base")
    check = can_gather
    class Worker:
        def __init__(self, config):
            self.ok = @VALUE@
    @FILLER4@
        def can(self):
            return HAS_BASE
    @FILLER4@
        def go(self, out, inp):
            if @TEST@:
                dist._all_gather_base(out, inp)
"""
FLAG_VALUES = {
    "a probe": ('hasattr(dist, "_all_gather_base")', "self.ok"),
    "a probe after a negation": ('not config.off and hasattr(dist, "_all_gather_base")', "self.ok"),
    "a probe and a call": ('hasattr(dist, "_all_gather_base") and config.enabled()', "self.ok"),
    "a getattr compared with None": ('getattr(dist, "_all_gather_base", None) is not None', "self.ok"),
    "a predicate's result": ("can_gather()", "self.ok"),
    "an aliased predicate's result": ("check()", "self.ok"),
    "a flag copied": ("HAS_BASE", "self.ok"),
    "a probe through bool": ('bool(hasattr(dist, "_all_gather_base"))', "self.ok"),
    "a predicate method's result": ("self.can()", "self.ok"),
}
for _name, (_value, _test) in FLAG_VALUES.items():
    CASES[f"a flag on self: {_name}"] = _FLAG_ON_SELF.replace("@VALUE@", _value).replace("@TEST@", _test)


WHOLE_BODIES = {"a use in a handler, the fallback of the public API in the body",
                "a table with a walrus inside", "a table that sets a private name the use reads"}


@pytest.mark.filterwarnings("ignore::SyntaxWarning")  # `[0for ...]`: code all the same
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_slice_reports_what_the_whole_file_reports(name):
    data = _source(CASES[name])
    sliced = _sliced(data)
    assert sliced is not None, "the case should be sliced"
    assert b"helper_7" not in sliced  # the filler was left out
    assert b"v7 = " not in sliced or name in WHOLE_BODIES
    _same_report(data)


def test_a_slice_reports_the_file_s_own_lines():
    data = _source(CASES["the use far below its import"])
    piece = _piece(data)
    assert piece.source.count(b"\n") < 10 < data.count(b"\n")
    assert piece.starts.statements == [1, piece.numbers.index(92) + 1]  # the import, the function
    findings = _same_report(data)
    assert [(f.line, f.column) for f in findings] == [(93, 5)]


@pytest.mark.parametrize("name", sorted(FLAG_VALUES))
def test_a_flag_stored_on_self_is_kept_with_the_use_it_guards(name):
    data = _source(CASES[f"a flag on self: {name}"])
    assert b"self.ok = " in _sliced(data)
    assert _same_report(data) == []  # the flag guards the use


def test_a_store_on_self_that_types_nothing_is_left_out():
    # `self.handler` is read beside the use, but what it is given is no tracked value and no
    # flag: the resolver leaves the attribute as it was, so the store, and the statements
    # that its arguments would keep, are not handed to libcst.
    data = _source("""
        import torch.distributed as dist
        class Handler:
            def __init__(self, *parts):
                self.parts = parts
        def default_callbacks(args):
            return [args]
        class Trainer:
            def __init__(self, model, args):
                callbacks = default_callbacks(args)
                self.handler = Handler(callbacks, model, args.flags)
                self.pg = dist.new_group()
        @FILLER4@
            def step(self, out, inp):
                self.handler.on_step(self.pg)
                self.pg._allgather_base(out, inp)
    """)
    sliced = _sliced(data)
    assert b"self.pg = dist.new_group()" in sliced
    assert b"self.handler = " not in sliced and b"class Handler" not in sliced
    assert len(_same_report(data)) == 1


def test_another_private_word_on_a_use_s_line_is_a_name_like_any_other():
    # `_GROUP` beside the use is no member the detector reads across the file: only its
    # bindings in the use's scopes are kept, not every statement that mentions it.
    data = _source("""
        import torch.distributed as dist
        _GROUP = None
        def init():
            global _GROUP
            _GROUP = dist.new_group()
            @BODY@
        @FILLER@
        def gather(out, inp):
            dist._all_gather_base(out, inp, group=_GROUP)
    """)
    sliced = _sliced(data)
    assert b"_GROUP = None" in sliced and b"def init" not in sliced and b"v7 = " not in sliced
    assert [f.api for f in _same_report(data)] == ["torch.distributed._all_gather_base"]
    # Every word of the use's lines counts when the private names read are not known.
    reading = read(data, WORDS)
    assert b"def init" in slice_source(data, reading.tree, reading.lines, stores=reading.stores).source


def test_the_gate_says_which_private_names_the_candidates_read():
    names = {
        "import torch.distributed as dist\ndist._all_gather_base(a, b, group=_G)\n": {"_all_gather_base"},
        "import torch\n_pg = torch._C._foo\n_other = 1\n": {"_C", "_foo", "_pg"},
        "import torch\nclass K:\n    def __init__(self):\n        self._pg = (\n            torch._C._foo)\n":
            {"_C", "_foo", "_pg"},
        "import torch\ndef f(x, _ops=torch._C._foo, *, _y=torch._C._bar, z=1):\n    pass\n":
            {"_C", "_foo", "_bar", "_ops", "_y"},
        "import torch\nfrom torch.x import _m as _n\n_pg = torch._C._foo\n": {"_C", "_foo", "_pg", "_n"},
        "import torch.distributed as dist\nfrom torch._C import _foo, bar\ndist._x()\n": {"_x", "_foo"},
        "def f(mesh):\n    return mesh._flatten(_x)\n": {"_flatten"},
        'def f(mesh):\n    return getattr(mesh, "_flatten")(_x)\n': {"_flatten"},
        "from torch._C import _foo\n": {"_foo"},
        "from torch.distributed.device_mesh import _mesh_resources as mr\n_mr = mr\nx = 1\n": {"_mr"},
        # A star import of torch's: never sliced, its names not worked out (every private word
        # on the candidates' lines would count).
        "from torch.distributed import *\nx._zz()\n": None,
    }
    for text, expected in names.items():
        assert read(text.encode(), WORDS).names == expected, text

def test_a_class_keeps_only_the_methods_the_use_depends_on():
    data = _source(CASES["a method that types another method's attribute"])
    sliced = _sliced(data).decode()
    assert "def __init__" in sliced and "def go" in sliced
    assert "helper_3" not in sliced


@pytest.mark.parametrize("data", [
    b"import torch\r\ntorch._C._foo()\r\n",              # carriage returns
    b"\xef\xbb\xbfimport torch\ntorch._C._foo()\n",      # a byte order mark
])
def test_files_a_slice_cannot_keep_faithful_are_parsed_whole(data):
    assert _sliced(data) is None
    _same_report(data)


def test_a_torch_star_import_in_a_try_keeps_the_file_whole():
    # Under a torch star import the detector reads a name the file binds nowhere as torch's:
    # `new_thing` is bound, inside another function, which a slice would leave out.
    data = _source("""
        try:
            from torch.distributed import *
        except ImportError:
            pass
        def unrelated():
            new_thing = 1
            return new_thing
        @FILLER@
        def use():
            return new_thing._private_member
    """)
    assert _sliced(data) is None
    assert _same_report(data) == []


@pytest.mark.parametrize("layout", [
    """
        try:
            from .names import *
        except ImportError:
            pass
        @FILLER@
        def gather(out, inp):
            dist._all_gather_base(out, inp)
    """,
    # Module-level imports are bound before any function body runs: a use above counts too.
    """
        def gather(out, inp):
            dist._all_gather_base(out, inp)
        @FILLER@
        from .names import *
    """])
def test_a_star_import_of_the_project_s_own_module_is_kept_in_the_slice(tmp_path, layout):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "names.py").write_text("import torch.distributed as dist\n")
    user = tmp_path / "pkg" / "user.py"
    data = _source(layout)
    user.write_bytes(data)
    settings = Settings(project_root=tmp_path)
    contexts = [dataclasses.replace(Context.build(CATALOG, settings), fixable=()),
                Context.build(CATALOG, settings, use_slicing=False),
                Context.build(CATALOG, settings, use_prefilter=False)]
    reading = read(data, WORDS, Origin(contexts[0].project, module_name(user)))
    piece = slice_source(data, reading.tree, reading.lines, names=reading.names)
    assert piece is not None and b"from .names import *" in piece.source
    assert b"helper_7" not in piece.source
    reports = [[(f, f.fingerprint) for f in check_source(data, str(user), ctx).findings]
               for ctx in contexts]
    assert reports[0] == reports[1] == reports[2]
    assert [f.api for f, _ in reports[0]] == ["torch.distributed._all_gather_base"]


@pytest.mark.parametrize("data", [
    b"import torch\ny = 1\n    # note\ntorch._C._foo()\n",
    b"import torch\ndef f():\n    y = 1\n        # note\n    torch._C._foo()\n",
    b"import torch\ndef g():\n    if y:\n        pass\n  # odd\ntorch._C._foo()\n",
    b"import os\ny = 1\n\n    # deeper after blank\ntorch._C._foo()\nimport torch\n",
    b"import torch\ndef g():\n    return 1\n    # footer of g\n\n# mine\ntorch._C._foo()\n",
    # Found in review: a `match` has a footer of its own, at its cases' indentation.
    b"import torch\nmatch a:\n    case _:\n        pass\n    # mid note\ntorch._C._foo()\n",
    b"import torch\nmatch a:\n    case _:\n        torch._C._bar()\ny = 2\n    # mid note\ntorch._C._foo()\n",
    # Found by the generated programs: a deep comment after a statement left out would become
    # the footer of the block kept above it (the statement between them is kept).
    b"import torch\ndef g():\n    return torch._C._foo()\ny = 2\n        # note\ntorch._C._bar()\n",
    b"import torch\ndef f():\n    def g():\n        return torch._C._foo()\n    y = 2\n"
    b"            # note\n    torch._C._bar()\n",
    b"import torch\ndef g():\n    return 1\n# mine\n    # footer of g after all\ntorch._C._foo()\n",
    b"import torch\nif a:\n    x = 1\nelif b:\n    y = 2\n    # footer\ntorch._C._foo()\n",
    b"import torch\nif a:\n    x = 1\nelse:\n    if b:\n            y = 2\n      # where\ntorch._C._foo()\n",
    b"import torch\ntry:\n    x = 1\nexcept E:\n    y = 2\n  # where\n    # footer\ntorch._C._foo()\n",
    b"import torch\nif a: x = 1\n    # not a footer\ntorch._C._foo()\n",
])
def test_comments_between_statements_go_where_libcst_puts_them(slice_everything, data):
    # A block's footer is every line up to the last one that starts with the block's
    # indentation; the rest is the next statement's, and its fingerprint hashes them.
    _same_report(data)


NAMES = ["dist", "pg", "mesh", "x", "helper"]
STATEMENTS = [
    "import torch.distributed as dist",
    "from torch.distributed.device_mesh import init_device_mesh",
    "{a} = dist.new_group()",
    "{a} = init_device_mesh('cpu', (2,))",
    "{a} = {b}",
    "{a}._allgather_base(out, inp)",
    "{a}._flatten('x')",
    "{a}._private_thing = 1",
    "if not hasattr({a}, '_allgather_base'):\n    raise ImportError",
    "def {a}():\n    return {b}",
    "def use_{a}():\n    return {a}._allgather_base(out, inp)",
    "class K{a}:\n    def __init__(self):\n        self.{a} = {b}\n    def go(self):\n"
    "        return self.{a}._allgather_base(out, inp)",
    "filler = [i for i in range(3)]",
    "# a note on {a}",
    "@staticmethod\n# between decorators\n@property\ndef deco_{a}():\n    return {a}._allgather_base(out, inp)",
    "x_{a} = 1; y_{a} = {a}._allgather_base(out, inp)",
    "def left_{a}():\n    return 1\n    # the footer of left_{a}",
    "def half_{a}():\n    return 1\n  # shallower than its body: the next statement's\n",
    "odd_{a} = 2\n        # deeper than the code, after a plain statement: the next one's",
    "{a} = 1  # noqa: PRV900",
    "try:\n    from torch.distributed import *\nexcept ImportError:\n    pass",
    "def unrelated_{a}():\n    {b} = 1\n    return {b}",
    "try:\n    import torch._dynamo\n    has_{a} = True\nexcept ImportError:\n    has_{a} = False",
    "try:\n    from torch import _dynamo\nexcept ImportError:\n    pass",
    "def dyn_{a}():\n    if has_{b}:\n        return torch._dynamo.optimize('x')\n    return _dynamo.optimize('y')",
    "has_{a} = False",
    "pytestmark = pytest.mark.skipif(not has_{a}, reason='x')",
    "try:\n    from torch import _dynamo\n    has_{a} = True\nexcept ImportError:\n    pass",
    "try:\n    from torch.utils._pytree import tree_map as tm\nexcept ImportError: has_{a} = False\nelse: has_{a} = True",
    "def guarded_{a}():\n    x = 1\n    if not has_{b}:\n        return None\n    return _dynamo.optimize('z')",
]


@st.composite
def programs(draw) -> str:
    lines = []
    for _ in range(draw(st.integers(2, 9))):
        template = draw(st.sampled_from(STATEMENTS))
        lines.append(template.format(a=draw(st.sampled_from(NAMES)), b=draw(st.sampled_from(NAMES))))
    return "\n".join(lines) + "\n"


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_slicing_is_lossless_on_generated_programs(slice_everything, program):
    _same_report(program.encode())


# Statements of a function body, some of them compound with bodies drawn the same way: uses,
# what types them, guards of every form the detector reads, and statements nothing needs.
INNER = [
    "{a} = dist.new_group()",
    "{a} = {b}",
    "{a}._allgather_base(out, inp)",
    "{a}._flatten('x')",
    "{a}._private_thing = 1",
    "self.{a} = dist.new_group()",
    "self.{a}._allgather_base(out, inp)",
    "if not hasattr({a}, '_allgather_base'):\n    return None",
    "if not hasattr({a}, '_private_thing'):\n    {a}._private_thing = {{}}",
    "assert isinstance({a}, ProcessGroup)",
    "flag_{a} = hasattr({a}, '_allgather_base')",
    "if flag_{b}:\n@",
    "if hasattr({a}, '_allgather_base'):\n@\nelse:\n@",
    "if torch.__version__ >= '2.5':\n@\nelif {a}:\n@",
    "for {a} in rows:\n@",
    "while {a}:\n@\nelse:\n@",
    "try:\n@\nexcept AttributeError:\n@",
    "try:\n@\nfinally:\n@",
    "with contextlib.suppress(AttributeError):\n@",
    "def inner_{a}():\n@",
    "{a} = inner_{b}()",
    "return {a}",
    "# a note on {a}",
    "x_{a} = 1; y_{a} = {a}",
    "'''a string statement'''",
    "unused_{a} = [i for i in range(3)]",
    "try:\n    import torch._dynamo\n    ok_{a} = True\nexcept ImportError:\n    ok_{a} = False",
    "try:\n    from torch import _dynamo\nexcept ImportError:\n@",
    "if ok_{b}:\n    torch._dynamo.optimize('x')",
    "_dynamo.optimize('y')",
    "ok_{a} = False",
    "try:\n    from torch import _dynamo\n    ok_{a} = True\n    also_{a} = True\nexcept ImportError:\n    return None",
    "if not ok_{b}:\n    return None",
    "if not ok_{b}:\n    pytest.skip('x')",
]


@st.composite
def bodies(draw, depth: int = 0) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 4 if depth else 7))):
        template = draw(st.sampled_from(INNER if depth < 2 else [t for t in INNER if "@" not in t]))
        text = template.format(a=draw(st.sampled_from(NAMES)), b=draw(st.sampled_from(NAMES)))
        while "@" in text:
            text = text.replace("@", textwrap.indent(draw(bodies(depth + 1)), "    "), 1)
        lines.append(text)
    return "\n".join(lines)


@st.composite
def function_programs(draw) -> str:
    head = ("import contextlib\nimport torch\nimport torch.distributed as dist\n"
            "from torch.distributed import ProcessGroup\n")
    if draw(st.booleans()):
        return head + "def f(self, out, inp, rows, pg):\n" + textwrap.indent(draw(bodies()), "    ") + "\n"
    return (head + "class K:\n    def first(self, out, inp, rows, pg):\n"
            + textwrap.indent(draw(bodies()), "        ")
            + "\n    def second(self, out, inp, rows, pg):\n"
            + textwrap.indent(draw(bodies()), "        ") + "\n")


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(function_programs())
def test_slicing_inside_functions_is_lossless_on_generated_programs(slice_everything, program):
    _same_report(program.encode())


def test_a_file_with_a_fixable_use_is_analysed_whole_at_once():
    whole = Context.build(CATALOG, Settings())
    # `_unflatten`: its fix template reads the scopes around the use (no READS_BEYOND)
    data = _source("""
        def split(mesh, r, ws):
            @BODY@
            return mesh._unflatten(0, (r, ws // r), ("a", "b"))
    """)
    lines = read(data, WORDS).lines
    assert slicing.fixable_outside_try(data, None, lines, whole_file_fix_words(whole))
    assert not slicing.fixable_outside_try(data, None, lines, ())
    unfixable = _source(CASES["a long table the use reads"])  # `torch._dynamo.config`: no fix
    assert not slicing.fixable_outside_try(unfixable, None, read(unfixable, WORDS).lines,
                                           whole_file_fix_words(whole))
    assert [f for f, _ in _report(data, whole)] == _same_report(data)
    # A fixable name in a `try` is most often its guarded fallback: sliced first, as usual.
    guarded = _source("""
        def split(mesh):
            try:
                return mesh._unflatten(0, (2, 2), ("a", "b"))
            except AttributeError:
                return None
    """)
    reading = read(guarded, WORDS)
    assert slicing.fixable_outside_try(guarded, None, reading.lines, whole_file_fix_words(whole))
    assert not slicing.fixable_outside_try(guarded, reading.tree, reading.lines,
                                           whole_file_fix_words(whole))


@pytest.fixture
def parsed(monkeypatch) -> list[int]:
    """The line counts of what libcst parses while the test runs, in order."""
    import privlint.cstparse as cstparse

    counts: list[int] = []
    parse = cstparse.parse_module
    monkeypatch.setattr(cstparse, "parse_module",
                        lambda source: counts.append(source.count(b"\n")) or parse(source))
    return counts


def test_an_import_probe_is_planned_on_the_slice(parsed):
    # `from torch.distributed._tensor import DTensor`: beyond the import its plan reads nothing
    # (fix/model.py's READS_BEYOND), so `check` parses only the slice, once, and reports the
    # fix the whole file reports.
    real = Context.build(CATALOG, Settings())
    data = _source("""
        from torch.distributed._tensor import DTensor
        @FILLER@
        def f(x):
            return DTensor.from_local(x)
    """)
    findings = [finding for finding, _ in _report(data, real)]
    assert parsed and len(parsed) == 1 and parsed[0] < data.count(b"\n") / 2, parsed
    assert [f.fix for f in findings if f.fix], findings
    assert findings == _same_report(data)
    # `import torch.distributed._tensor as dt`: the plan reads every use of `dt` in the file
    # (a bare `dt` makes it unsafe), so the file is analysed whole after its slice.
    parsed.clear()
    aliased = _source("""
        import torch.distributed._tensor as dt
        @FILLER@
        def f(x):
            return dt.DTensor.from_local(x)
        def g():
            return dt
    """)
    findings = [finding for finding, _ in _report(aliased, real)]
    assert parsed[-1] >= aliased.count(b"\n"), parsed
    assert findings == _same_report(aliased)
    assert any(f.fix and "unsafe: the module object itself is used" in f.fix["description"]
               for f in findings), findings


def test_a_private_import_s_uses_stay_in_the_slice_for_its_plan(parsed):
    # `from ... import _LRScheduler`: its plan reads every use of the name it binds, so the
    # slice keeps them (a name the import binds is among the names the candidates read), and
    # `check` plans it on the slice, parsed once, not on the whole file after the slice.
    real = Context.build(CATALOG, Settings())
    data = _source("""
        from torch.optim.lr_scheduler import _LRScheduler
        @FILLER@
        class Warmup(_LRScheduler):
            pass
        def make(optimizer):
            return _LRScheduler(optimizer)
    """)
    findings = [finding for finding, _ in _report(data, real)]
    assert len(parsed) == 1 and parsed[0] < data.count(b"\n") / 2, parsed
    assert [f.api for f in findings] == ["torch.optim.lr_scheduler._LRScheduler"]
    assert findings == _same_report(data)


def test_a_public_twin_is_planned_on_the_slice_unless_torchscript_may_read_it(parsed):
    # `torch._dynamo.reset()` behind a probe: the plan asks whether TorchScript compiles the
    # function, which a `jit.script(f)` anywhere in the file may say. With no `jit` in the
    # file the slice plans it; with one the slice leaves out, the whole file does.
    real = Context.build(CATALOG, Settings())
    plain = _source("""
        import torch
        @FILLER@
        def reset_all():
            torch._dynamo.reset()
    """)
    findings = [finding for finding, _ in _report(plain, real)]
    assert len(parsed) == 1 and parsed[0] < plain.count(b"\n") / 2, parsed
    assert [f.fix for f in findings if f.fix], findings
    assert findings == _same_report(plain)
    parsed.clear()
    scripted = _source("""
        import torch
        def reset_all():
            torch._dynamo.reset()
        @FILLER@
        compiled = torch.jit.script(reset_all)
    """)
    findings = [finding for finding, _ in _report(scripted, real)]
    assert parsed[-1] >= scripted.count(b"\n") - 1, parsed
    assert findings == _same_report(scripted)
    assert any("TorchScript" in f.message for f in findings), findings


def test_a_slice_leaves_no_cycles_for_the_collector():
    # The slicer's scopes and statements point at each other; left so, every file's trees wait
    # for the cyclic collector (a million and a half objects over the corpus).
    import gc

    data = _source(CASES["a narrowing before an assignment another method reads"])
    reading = read(data, WORDS)
    gc.collect()
    gc.disable()
    try:
        assert slice_source(data, reading.tree, reading.lines) is not None
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_a_string_that_spells_a_name_keeps_the_file_whole():
    # The slicer finds what a statement needs by the words it shows: `setattr(dist, "\x5ffoo", f)`
    # shows no `_foo`, yet tells the detector that the file sets it (so `dist._foo` is no finding).
    data = b'import torch.distributed as dist\nsetattr(dist, "\\x5ffoo", print)\n\ndef _q0(a, b):\n    return a + b * 0\n\ndef _q1(a, b):\n    return a + b * 1\n\ndef _q2(a, b):\n    return a + b * 2\n\ndef _q3(a, b):\n    return a + b * 3\n\ndef _q4(a, b):\n    return a + b * 4\n\ndef _q5(a, b):\n    return a + b * 5\n\ndef _q6(a, b):\n    return a + b * 6\n\ndef _q7(a, b):\n    return a + b * 7\n\ndef _q8(a, b):\n    return a + b * 8\n\ndef _q9(a, b):\n    return a + b * 9\n\ndef _q10(a, b):\n    return a + b * 10\n\ndef _q11(a, b):\n    return a + b * 11\n\ndef _q12(a, b):\n    return a + b * 12\n\ndef _q13(a, b):\n    return a + b * 13\n\ndef _q14(a, b):\n    return a + b * 14\n\ndef _q15(a, b):\n    return a + b * 15\n\ndef _q16(a, b):\n    return a + b * 16\n\ndef _q17(a, b):\n    return a + b * 17\n\ndef _q18(a, b):\n    return a + b * 18\n\ndef _q19(a, b):\n    return a + b * 19\n\ndef _q20(a, b):\n    return a + b * 20\n\ndef _q21(a, b):\n    return a + b * 21\n\ndef _q22(a, b):\n    return a + b * 22\n\ndef _q23(a, b):\n    return a + b * 23\n\ndef _q24(a, b):\n    return a + b * 24\n\ndef _q25(a, b):\n    return a + b * 25\n\ndef _q26(a, b):\n    return a + b * 26\n\ndef _q27(a, b):\n    return a + b * 27\n\ndef _q28(a, b):\n    return a + b * 28\n\ndef _q29(a, b):\n    return a + b * 29\n\ndist._foo(1)\n'
    assert _piece(data) is None
    assert _same_report(data) == []


def test_a_checked_file_leaves_its_trees_to_reference_counting():
    # What check_source keeps while it works (CPython's tree, the slice's statement starts)
    # must not sit in a cycle when it returns: the runner collects between files, and a
    # cycle holding a tree made that collection traverse every file's tree again (about 6%
    # of a cold run). Found in a closure that called itself, and in visitor classes made per
    # call (they held the resolver's bindings). A fix run too.
    import gc

    data = _source("""
        import torch.distributed as dist
        @FILLER@
        pg = dist.new_group()
        pg._allgather_base(a, b)
        @FILLER@
    """)
    gc.collect()
    gc.disable()
    try:
        for ctx, fix in ((SLICED, None), (WHOLE, None), (WHOLE, "unsafe")):
            assert check_source(data, "case.py", ctx, fix).findings
            assert gc.collect() == 0, (ctx.use_slicing, fix)
    finally:
        gc.enable()


def test_a_slice_says_where_the_kept_statements_of_a_function_s_body_start():
    # Positions are generated from the statement of a function's body that holds a finding,
    # at the line the slice gives it: the kept statements of a body kept line by line.
    import libcst as cst

    data = _source("""
        import torch.distributed as dist
        def gather(out, inp):
            @BODY@
            dist._all_gather_base(out, inp)
            @BODY@
            return out
    """)
    piece = _piece(data)
    assert piece is not None and b"v7 = " not in piece.source  # the body was kept line by line
    function = cst.parse_module(piece.source).body[1]
    lines = piece.starts.body(1)
    assert lines is not None and len(lines) == len(function.body.body)
    source_lines = piece.source.split(b"\n")
    assert b"dist._all_gather_base(out, inp)" in [source_lines[line - 1].strip() for line in lines]
    findings = _same_report(data)
    assert [(f.line, f.column) for f in findings] == [(28, 5)]
