"""The text prefilter (privlint/prefilter.py) on shapes the generated programs do not reach,
and on generated mixes of prose and code."""

from __future__ import annotations

import dataclasses
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from privlint.catalog import load_catalog
from privlint.checker import Context, check_source
from privlint.config import Settings
from privlint.prefilter import _bindings, _self_bindings, build

TEXT = build(load_catalog())
FILTERED = dataclasses.replace(Context.build(load_catalog(), Settings()), fixable=())
WHOLE = Context.build(load_catalog(), Settings(), use_prefilter=False)


def test_thousands_of_receivers_are_passed_on_not_scanned_one_by_one():
    # Each untyped receiver costs a scan of the file: past a bound, the file goes on to the
    # `ast` gate (which then rejects it) instead of costing thousands of scans.
    names = 5000
    data = b"".join(b"a%d = %d\na%d._x\n" % (i, i, i) for i in range(names))
    start = time.process_time()
    assert TEXT.search(data)  # "maybe": the bound was reached
    assert time.process_time() - start < 30  # a guard against a hang, not a benchmark
    few = b"".join(b"a%d = %d\na%d._x\n" % (i, i, i) for i in range(10))
    assert not TEXT.search(few)  # under the bound each is judged: literals type nothing
    # A call's head is asked about once (whether it may be a project path), and counts
    # towards the bound: thousands of values cost one scan each, not one per value.
    calls = [b"from torch import nn\n" + b"pg = nn.Linear(1, 1)\n" * names + b"pg._x\n",
             b"import torch\nclass A:\n    def f(self):\n" + b"        pg = self.model.modules()\n" * names
             + b"        pg._x\n"]
    for data in calls:
        start = time.process_time()
        assert not TEXT.search(data)
        assert time.process_time() - start < 30
    heads = b"import torch\n" + b"".join(b"pg = a%d.f()\n" % i for i in range(names)) + b"pg._x\n"
    start = time.process_time()
    assert TEXT.search(heads)  # "maybe": the bound was reached
    assert time.process_time() - start < 30


def test_a_comment_ending_with_a_dot_does_not_make_self_a_chain():
    # `x. self._y` (an attribute named `self`) passes the file; a comment's full stop above a
    # `self._y` line is not that, and must not keep every class with a commented method.
    commented = b"import torch\nclass A:\n    def f(self):\n        # Set it up.\n        self._y = 1\n"
    assert not TEXT.search(commented)
    chained = b"import torch\nclass A:\n    def f(self, x):\n        return (x.\n            self._y)\n"
    assert TEXT.search(chained)
    quoted = b"import torch\nclass A:\n    def f(self, x):\n        return ('#', x.\n            self._y)\n"
    assert TEXT.search(quoted)


def test_a_value_is_as_typed_as_its_head_name():
    # `x = <chain>`: calls, attributes and subscripts type only what their head's value reaches
    # (the resolver's and the gate's reading), so a chain on a name nothing types is untyped.
    untyped = [b"import torch\nimport numpy as np\nout = np.zeros(3)\nout._meta\n",
               b"import torch\ndef f(model):\n    out = model(torch.ones(1))\n    return out._meta\n",
               b"import torch\nclass A:\n    def f(self):\n        x = self.helper()[0]\n        return x._y\n",
               b"import torch\nimport os\nx = os.environ.get('A')\nx._y\n"]
    for data in untyped:
        assert not TEXT.search(data), data
    typed = [b"import torch.distributed as dist\ng = dist.new_group()\ng._allgather_base(a, b)\n",
             b"import torch\ng = torch.distributed.group.WORLD\ng._x\n",
             b"from torch import distributed\ng = distributed.new_group().inner[0]\ng._x\n",
             b"import torch\nclass A:\n    def f(self):\n        self.pg = torch.distributed.new_group()\n"
             b"        g = self.pg.get_group()\n        return g._y\n",
             b"import typing\ng = typing.cast(Group, x)\ng._x\n",               # a cast
             b"import torch\ng = (torch.x())\ng._y\n",                          # a bracket
             b"import torch\nasync def f():\n    g = await torch.x()\n    g._y\n"]  # a keyword
    for data in typed:
        assert TEXT.search(data), data


def test_a_value_that_starts_with_an_untyped_call_is_untyped():
    # The gate's and the resolver's reading: a call through an attribute whose name no tracked
    # type, constructor or rule's return has (`nn.Linear`, `model.modules`) gives nothing the
    # detector tracks, and what the value goes on with adds nothing; each file here is one the
    # gate rejects too.
    untyped = [b"from torch import nn\nm = nn.Linear(8, 8)\nm._x\n",
               b"import torch\nm = torch.nested.as_nested_tensor(x)\nm._x\n",
               b"import torch\ndef f(model):\n    for m in model.modules():\n        m._x\n",
               b"import torch\nclass A:\n    def f(self):\n        for m in self.modules():\n            m._x\n",
               b"import torch\nv = torch.empty_like(x).detach()\nv._x\n",
               b"import torch.distributed as dist\npg = dist.new_group()\n"
               b"v = torch.nn.Linear(1, 1) if c else pg\nv._x\n"]
    for data in untyped:
        assert not TEXT.search(data), data
    # A callee a rule or a type names, a `self` bound as a plain name, a name with a letter
    # that is not ASCII: read as before.
    typed = [b"import torch.distributed as dist\nv = dist.init_device_mesh('cuda', (2,))\nv._x\n",
             b"import torch\nimport torch.distributed as self\nv = self.new_subgroups()\nv._x\n",
             b"import torch\nv = torch.distributed.new_gr\xc3\xb6up()\nv._x\n"]
    for data in typed:
        assert TEXT.search(data), data


def test_a_getattr_call_whose_arguments_go_on_below_is_read_whole():
    # Its arguments are read to the bracket that closes the call, over lines (a comment's
    # bracket is no code's); without a private string among them the call reports nothing,
    # and with one its receiver is judged as on one line. Each untyped file here is one the
    # gate rejects too.
    untyped = [b"import torch\ndef f(model):\n    return getattr(model, 'is_loaded', False) or getattr(\n"
               b"        model, '_other', None)\n",
               b"import torch\ndef f(obj):\n    return getattr(\n        obj,\n        '_y',\n        None,\n    )\n",
               b"import torch\ndef f(m):\n    return getattr(m, '_a', 0) or getattr(\n        m, 'b')\n",
               b"import torch\ndef f(m):\n    return getattr(m, name)(\n        '_x')\n"]
    for data in untyped:
        assert not TEXT.search(data), data
    typed = [b"import torch.distributed as dist\npg = dist.new_group()\nx = getattr(\n    pg, '_allgather_base')\n",
             b"import torch\ndef f(mesh):\n    return getattr(\n        mesh, '_unflatten')\n",  # a member
             b"import torch.distributed as dist\nx = getattr(\n    dist.new_group(), '_allgather_base')\n",
             b"import torch.distributed as dist\npg = dist.new_group()\nx = getattr(pg,  # the group)\n"
             b"    '_allgather_base')\n",
             b"import torch.distributed as dist\npg = dist.new_group()\nx = getattr(\n    pg, '_allg\\x61ther_base')\n",
             b"import torch.distributed as dist\npg = dist.new_group()\nx = getattr(\n    pg, '_allgather_base'\n    )\n"]
    for data in typed:
        assert TEXT.search(data), data


def test_call_arguments_are_read_as_the_tokenizer_reads_them():
    from privlint.prefilter import _call_arguments

    def arguments(text: bytes) -> bytes | None:
        return _call_arguments(text, text.index(b"("))

    assert arguments(b"f(a, (b), [c])") == b"a, (b), [c]"
    assert arguments(b"f(a,  # see g()\n  ')', '#')\nx") == b"a,  # see g()\n  ')', '#'"
    assert arguments(b"f(a, 'b'") is None  # no close
    assert arguments(b"f(a, 'b)\n')") is None  # a string its line does not close
    for unsure in (b"f(a, '''b)''')", b'f(a, f"{b[")"]}")', b"f(a, rt'{b:)'}')"):
        assert arguments(unsure) is None, unsure  # a triple quote, a field that may hide a quote
    assert arguments(b'f(a, f"{b})")') == b'a, f"{b})"'  # a field closed before the quote
    assert arguments(b"f(a, rb'b)')") == b"a, rb'b)'"
    assert arguments(b"f(" + b"a, " * 2000 + b")") is None  # too long to read


def test_a_function_types_its_calls_by_what_it_returns():
    # `m = make()` is as typed as `make`'s returns, or its return annotation, as the gate and the
    # resolver read a call of the file's own function. Each untyped file is one the gate rejects.
    use = b"m = make()\nm._allgather_base(1, 2)\n"
    untyped = [b"import torch\ndef make():\n    return torch.nn.Linear(1, 1)\n",
               b"import torch\ndef make() -> torch.nn.Module:\n    return build()\n",
               b"import torch\ndef make():\n    x = 1\n    return\n",
               b"import torch\nimport torch.distributed as dist\ndef make():\n    return torch.nn.Linear(1, 1)\n"
               b"def other():\n    return dist.new_group()\n",
               b"import torch\ndef make():\n    noreturn = 1\n    return torch.nn.Linear(1, 1)\n"]
    for data in untyped:
        assert not TEXT.search(data + use), data
    QQQ = "'" * 3
    typed = {
        "a typed return": b"def make():\n    return dist.new_group()\n",
        "a tracked type's path": b"def make() -> dist.ProcessGroup:\n    return build()\n",
        "a bare name": b"from torch.distributed import ProcessGroup as PG\ndef make() -> PG:\n    return build()\n",
        "a def in a docstring": b"def make():\n    QQQ\ndef x():\nQQQ\n    return dist.new_group()\n",
        "a nested def": b"def make():\n    def inner():\n        return 1\n    return dist.new_group()\n",
        "a header over lines": b"def make(\n    a=1,\n) -> dist.ProcessGroup:\n    return build()\n",
        "a default holding a colon": b"def make(a={1:\n2}) -> dist.ProcessGroup:\n    return build()\n",
        "a one-line body": b"def make(): return dist.new_group()\n",
        "a def in an f-string": b"def make():\n    s = fQQQ\ndef y():\nQQQ\n    return dist.new_group()\n",
        "a string in the header": b"def make(a=')') -> dist.ProcessGroup:\n    return build()\n",
        "a string annotation": b"def make() -> 'dist.ProcessGroup':\n    return build()\n",
        "a subscript annotation": b"def make() -> Optional[dist.ProcessGroup]:\n    return build()\n",
        # Found by a review: a `return` in a string or a name earlier on the line; a def after a
        # line a backslash continues (indented as that line is); a def in a string after a word.
        "a return in a string before": b'def make():\n    if mode == "return": return dist.new_group()\n',
        "a return ending a name before": b"def make():\n    noreturn = 0; return dist.new_group()\n",
        "a def after a continued line": b"def make():\n    x = 1\n    \\\ndef g(): pass\n    return dist.new_group()\n",
        "a def in a string after a keyword": b"def make():\n    assertQQQ\ndef x(): QQQ\n    return dist.new_group()\n",
        "a class in a string after a keyword": b"def make():\n    s = 1 if 0 elseQQQ\nclass X:\nQQQ\n    return dist.new_group()\n",
    }
    for name, code in typed.items():
        data = b"import torch.distributed as dist\n" + code.replace(b"QQQ", QQQ.encode()) + use
        assert TEXT.search(data), name


def test_values_and_imports_the_text_reads_in_unusual_shapes():
    # Found in review: each was lost by the text prefilter while the gate kept it.
    shapes = [
        b"from torch .distributed import new_group as ng\nx = ng()\nx._foo()\n",  # spaces in a module
        b"from torch.\\\n    distributed import new_group as ng\nx = ng()\nx._foo()\n",
        "import torch.distributed as dist\ndonnées = dist.new_group()\nx = données\nx._foo()\n".encode(),
        b"import torch.distributed as dist\nx: Annotated[Any, print(end=1)] = dist.new_group()\nx._foo()\n",
        b"import torch.distributed as dist\nx: Literal['a=b'] = dist.new_group()\nx._foo()\n",
        b"import torch.distributed as dist\nx: 'a=b' = dist.new_group()\nx._foo()\n",
    ]
    for data in shapes:
        assert TEXT.search(data), data


def test_a_parameter_list_is_not_an_annotation_cut_short():
    # `obj: Any, config: dict | None = None)`: the `=` is a default's, and what follows it
    # (`None) -> ...`) is read as a value as usual: nothing types `obj` here.
    data = (b"import torch\ndef save(obj: Any, folder: str, config: dict | None = None) -> list:\n"
            b"    return obj._auto_class\n")
    assert not TEXT.search(data)


def test_an_annotation_holding_a_comparison_does_not_hide_the_value_after_it():
    # `x: "==" = v` (found by a review): the annotation's `==` is not the assignment's `=`.
    for annotation in (b'"=="', b"'!='", b"1 >= 0", b"Annotated[Any, 1 <= 2]"):
        data = (b"import torch.distributed as dist\npg = dist.get_rank()\npg: " + annotation
                + b" = dist.new_group()\npg._allgather_base(a, b)\n")
        assert TEXT.search(data), data


def test_a_loop_target_is_as_typed_as_its_iterable():
    # `for m in <chain>` binds `m` to what the chain's head reaches, as the gate reads a loop;
    # an iterable the line does not show (below it, after a backslash) may be typed.
    untyped = b"import torch\ndef f(model):\n    for m in model.modules():\n        m._orig_mod\n"
    assert not TEXT.search(untyped)
    typed = [b"import torch.distributed as dist\nfor g in dist.pgs:\n    g._allgather_base(a, b)\n",
             b"import torch.distributed as dist\nout = [g._allgather_base(a, b) for g in\n"
             b"       dist.groups()]\n",
             b"import torch.distributed as dist\nfor g in \\\n        dist.groups():\n"
             b"    g._allgather_base(a, b)\n"]
    for data in typed:
        assert TEXT.search(data), data


def test_a_name_is_bound_whatever_byte_a_binding_starts_with_after_it():
    # The tails of a binding are tried only after the bytes they may start with
    # (_TAIL_STARTS): each such byte, right after the name, still binds it.
    value = b"dist.new_group()"
    forms = {b" ": b"pg = %s\n", b"\t": b"pg\t= %s\n", b"\x0c": b"pg\x0c= %s\n",
             b"\x0b": b"pg\x0b= %s\n",  # space to `re`, not to CPython: read as before
             b"=": b"pg=%s\n", b":": b"pg:PG=%s\n", b")": b"(pg)=%s\n", b"\\": b"pg\\\n= %s\n",
             b"#": b"(pg# the group\n) = %s\n", b"\n": b"(pg\n) = %s\n", b"\r": b"(pg\r\n) = %s\n"}
    for byte, form in forms.items():
        text = form % value
        assert [v.strip() for v, _ in _bindings(text, b"pg", None)] == [value], byte
        assert [v.strip() for v, _ in _self_bindings(text.replace(b"pg", b"self.pg"), b"pg")] == [value], byte
        assert TEXT.search(b"import torch.distributed as dist\n" + text + b"pg._allgather_base(a, b)\n"), byte
    # Any other byte after the name: a use, bound only by a `def` (its returns).
    assert not list(_bindings(b"pg.x = 1\npg(1)\npg[0] = 2\n", b"pg", None))
    assert list(_bindings(b"def pg(a):\n    return a\n", b"pg", None)) == [(None, False)]


def test_a_walrus_whose_value_is_on_the_next_line_is_typed():
    # `(g :=` at a line's end: the value is below, so the text cannot say it is untyped
    # (it once read the empty rest of the line as the value, and lost the finding).
    data = b"import torch.distributed as dist\nif (g :=\n        dist.new_group()):\n    g._allgather_base(a, b)\n"
    assert TEXT.search(data)


def test_receivers_the_text_can_tell_are_not_typed():
    # Each of these once made the text unsure, and passed the file on to CPython's parser.
    untyped = {
        "a sentence's end in a comment above": b"import torch\n# Reset the state.\nState._reset_state(True)\n",
        "a relative import": b"import torch\n# A module.\nfrom ._builders import llama\n",
        "a number": b"import torch\nscale = 512.\n_unused = 1\n",
        # A type's name with no private name written anywhere: nothing for it to type.
        "a type named, nothing private": b"from torch.distributed import DeviceMesh\n"
                                         b"def f(m: DeviceMesh):\n    return m.size()\n",
    }
    for name, data in untyped.items():
        assert not TEXT.search(data), name
    # A dot in a comment that holds a quote may be a string's: the text stays unsure.
    quoted = b"import torch\nx = (dist.  # it's\n     inner._x)\n"
    assert TEXT.search(quoted)


def test_an_isinstance_of_a_keyword_narrows_nothing():
    # libcst reads `None`, `True` and `False` as names, and the detector once narrowed them
    # (`None._x()` after `assert isinstance(None, DeviceMesh)` was reported), where the gate
    # reads them as constants and lost the file: no value of theirs is ever narrowed.
    head = b"from torch.distributed.device_mesh import DeviceMesh\n"
    keywords = {
        "the keyword itself": head + b"assert isinstance(None, DeviceMesh)\nNone._zzz_priv()\n",
        "a name given the keyword": head + b"assert isinstance(None, DeviceMesh)\nm = None\nm._zzz_priv()\n",
        "in an if": head + b"if isinstance(True, DeviceMesh):\n    m = True\n    m._zzz_priv()\n",
    }
    for name, data in keywords.items():
        assert check_source(data, "case.py", WHOLE).findings == [], name
        assert check_source(data, "case.py", FILTERED).findings == [], name
    named = head + b"def f(m):\n    assert isinstance(m, DeviceMesh)\n    m._zzz_priv()\n"
    assert [f.code for f in check_source(named, "case.py", WHOLE).findings] == ["PRV900"]


# Candidates written in prose (prose.py) and the same in code: a comment or a plain string
# holds no finding, an f-string's field is code, and past what the file's tokens cannot be
# read for sure (Python 3.12's quotes inside a field) everything is code.
IN_PROSE = {
    "a docstring's dotted name": b'import torch\ndef f():\n    """Takes a torch.optim.lr_scheduler._LRScheduler."""\n',
    "a member in a comment after a quote": b"import torch\nx = 'a'  # then mesh._flatten()\n",
    "a private import in a docstring": b'"""Example:\n\n    from torch._C import _get_tracing_state\n"""\nimport torch\n',
    "an import in a comment after a quote": b"import torch\nx = 'a'  # import torch._dynamo\n",
    "a getattr in a docstring": b'import torch\n"""getattr(mesh, "_flatten")"""\n',
    "a typed head in a string": b'import torch.distributed as dist\nx = "dist._world, dist._x"\n',
}
IN_CODE = {
    "a docstring's dotted name, in code": b'import torch\ndef f():\n    """Takes an LR scheduler."""\n'
                                          b"    return torch.optim.lr_scheduler._LRScheduler\n",
    "a member in a field": b"import torch\nx = f'{mesh._flatten()}'  # a\n",
    "a typed head in a field": b'import torch.distributed as dist\nx = f"{dist._world}"\n',
    "a private import in code": b'"""Example."""\nfrom torch._C import _get_tracing_state\n',
    "a docstring after what cannot be read": b'import torch\nx = f"{d["k"]}"\n"""mesh._flatten()"""\n',
}


def test_candidates_in_prose_are_not_code():
    for name, data in IN_PROSE.items():
        assert not TEXT.search(data), name
    for name, data in IN_CODE.items():
        assert TEXT.search(data), name


# A file that names a tracked type: the text lets by what the name may type (an annotation,
# an `isinstance`, a base class for `self`, a cast), and nothing else.
NAMED_TYPED = {
    "an annotated parameter": b"from torch.distributed import ProcessGroup\n"
                              b"def f(pg: ProcessGroup):\n    return pg._allgather_base(a, b)\n",
    "an annotation after a comment": b"from torch.distributed import ProcessGroup\n"
                                     b"def f(pg  # the group\n      : ProcessGroup):\n"
                                     b"    return pg._allgather_base(a, b)\n",
    "a narrowing": b"from torch.distributed import ProcessGroup\ndef f(pg):\n"
                   b"    if isinstance(pg, ProcessGroup):\n        return pg._allgather_base(a, b)\n",
    "a narrowing over lines": b"from torch.distributed import ProcessGroup\ndef f(pg):\n"
                              b"    if isinstance(  # is it one?\n            pg, ProcessGroup):\n"
                              b"        return pg._allgather_base(a, b)\n",
    "an annotated attribute": b"from torch.distributed import ProcessGroup\nclass A:\n"
                              b"    def __init__(self, make):\n        self.pg: ProcessGroup = make()\n"
                              b"    def go(self):\n        return self.pg._allgather_base(a, b)\n",
    "a loop over an annotated list": b"from torch.distributed import ProcessGroup\n"
                                     b"def f(groups: list[ProcessGroup]):\n"
                                     b"    return [g._allgather_base(a, b) for g in groups]\n",
    "a base imported under another name": b"from torch.distributed import ProcessGroup as PG\n"
                                           b"class W(PG):\n    def go(self):\n"
                                           b"        return self._allgather_base(a, b)\n",
    "a base bound to a type": b"import torch.distributed as dist\nBase = dist.ProcessGroup\n"
                              b"class W(Base):\n    def go(self):\n        return self._allgather_base(a, b)\n",
    "a subclass's getattr on self": b"import torch.distributed as dist\n"
                                    b"class W(dist.ProcessGroup):\n    def go(self):\n"
                                    b"        return getattr(self, '_allgather_base')\n",
    "a cast": b"import typing\nfrom torch.distributed import ProcessGroup\n"
              b"def f(x):\n    return typing.cast(ProcessGroup, x)._allgather_base(a, b)\n",
    # Found in review: `self` outside a class is a name as any other; narrowing through
    # brackets and a continuation; a base list after type parameters; `as` before a CRLF.
    "self annotated outside a class": b"from torch.distributed import ProcessGroup\n"
                                      b"def patched(self: ProcessGroup):\n    return self._foo()\n",
    "self narrowed outside a class": b"from torch.distributed import ProcessGroup\n"
                                     b"if isinstance(self, ProcessGroup):\n    self._foo()\n",
    "getattr on an annotated self": b"from torch.distributed import ProcessGroup\n"
                                    b"def patched(self: ProcessGroup):\n    return getattr(self, '_foo')\n",
    "a bracketed isinstance argument": b"from torch.distributed import ProcessGroup\ndef f(pg):\n"
                                       b"    if isinstance((pg), ProcessGroup):\n        pg._foo()\n",
    "isinstance continued on the next line": b"from torch.distributed import ProcessGroup\ndef f(pg):\n"
                                             b"    if isinstance \\\n            (pg, ProcessGroup):\n"
                                             b"        pg._foo()\n",
    "type parameters before the base list": b"from torch.distributed import ProcessGroup\n"
                                            b"class W[T](ProcessGroup):\n    def go(self):\n"
                                            b"        return self._foo()\n",
    # An escape spells the type's name only in the string: no plain text of the file names it.
    "an escaped type name in a string annotation": b'import torch.distributed as dist\n'
                                                   b'def f(pg: "dist.Process\\x47roup"):\n'
                                                   b'    return pg._allgather_base(a, b)\n',
    "a renaming import over CRLF lines": b"from torch.distributed import (ProcessGroup as\r\n    PG)\r\n"
                                         b"class W(PG):\r\n    def go(self):\r\n        return self._foo()\r\n",
}
NAMED_UNTYPED = {
    "self under a base that is not a type": b"import torch.nn as nn\nfrom torch.distributed import DeviceMesh\n"
                                            b"class Block(nn.Module):\n    def forward(self, x: DeviceMesh):\n"
                                            b"        return self._cache(x)\n",
    "a metaclass keyword": b"import abc\nfrom torch.distributed import DeviceMesh\n"
                           b"class Block(abc.ABC, metaclass=abc.ABCMeta):\n"
                           b"    def forward(self, x: DeviceMesh):\n        return self._cache(x)\n",
    "a base defined here": b"from torch.distributed import DeviceMesh\nclass Base:\n    pass\n"
                           b"class Block(Base):\n    def forward(self, x: DeviceMesh):\n"
                           b"        return self._cache, self.inner._cache, getattr(self, '_cache')\n",
    "a parameter it does not annotate": b"import torch\nfrom torch.distributed import DeviceMesh\n"
                                        b"def f(model, mesh: DeviceMesh):\n    return model._orig_mod\n",
    "an argument after the first": b"from torch.distributed import DeviceMesh\n"
                                   b"def f(model, mesh):\n    if isinstance(mesh, DeviceMesh) or f(x, model):\n"
                                   b"        return model._orig_mod\n",
}


def test_a_named_type_types_what_it_may_annotate_narrow_or_subclass():
    for name, data in NAMED_TYPED.items():
        assert TEXT.search(data), name
        expected = check_source(data, "case.py", WHOLE).findings
        assert expected, f"{name}: the case should have a finding"
        assert check_source(data, "case.py", FILTERED).findings == expected, name
    for name, data in NAMED_UNTYPED.items():
        assert not TEXT.search(data), name
        assert not check_source(data, "case.py", WHOLE).findings, name


def test_a_private_module_import_is_read_where_a_statement_may_start():
    # `import torch._C` counts where an `import` statement may stand: a line's start (after
    # indentation or a line continuation), or after `;` or a header's `:`; a comment's is prose.
    statements = [b"import torch._C\n", b"if True:\n    import torch._C\n", b"if x: import torch._C\n",
                  b"x = 1; import torch._dynamo\n", b"x = 1; \\\n    import torch._C\n",
                  b"x = 1; \\\r\n    import torch._C\r\n", b"\x0cimport os, torch._C as C\n"]
    for data in statements:
        assert TEXT.search(data), data
    assert not TEXT.search(b"# import torch._C, a note\nx = 1  # or import torch._C\n")


def test_comments_and_strings_around_a_receiver_are_read():
    # A comment's sentence ending before a private name on the next line is prose; a string
    # inside a call or a subscript, or a comment with a quote on the line above, leaves the
    # receiver readable (each once made the text unsure, and passed the file on).
    untyped = {
        "a comment's full stop": b"import torch\n# Architecture -> (module, class).\n_MODELS = {'a': 1}\n",
        "a subscript by a string": b"import torch\ndef f(data):\n    data['position_ids']._ragged_idx = 2\n",
        "a comment with a quote above": b"import torch\ndef f(pipeline):\n    # it's the scale\n"
                                        b"    pipeline._guidance_scale = 0\n",
        "a call with a string": b"import torch\ndef f(processor):\n"
                                b"    return getattr(processor, 'tokenizer', processor)._tokenizer\n",
    }
    for name, data in untyped.items():
        assert not TEXT.search(data), name
    typed = {
        "a typed call with a string": b"import torch.distributed as dist\n"
                                      b"dist.new_group(backend='gloo')._allgather_base(a, b)\n",
        "a string holding a bracket": b"import torch.distributed as dist\n"
                                      b"dist.new_group(backend=')')._allgather_base(a, b)\n",
        "a code line with a quote and a comment above": b"import torch.distributed as dist\n"
                                                        b"x = (f('a') .  # it's\n     dist._world)\n",
        "a quote before the comment's sign": b"import torch.distributed as dist\n"
                                             b"x = dist.new_group('#')  ._world\n",
    }
    for name, data in typed.items():
        assert TEXT.search(data), name


# Found by a review, each once lost by the text prefilter (or the slice) while the whole
# file reports a finding: the reports with and without the prefilters must agree.
REVIEWED = {
    # Reviews in the eleventh session. Of the getattr reading over lines (bee71fd): a letter
    # of a declared two-byte encoding ending with the byte of `}` or `]`, and UTF-7's quote
    # (made by it); a `)` in a string, or a private-looking string in a comment, on the call's
    # line (older). Of the untyped-call reading (b180911): an annotation holding `==` hid the
    # value after it (made by it); a `self` an import binds, as a use's head (older, the gate).
    # Of all of them together: none made; one older, a lambda in an annotation, whose default's
    # `=` ended the annotation early.
    'a lambda in an annotation': b'import torch.distributed as dist\npg: lambda a=1: a = dist.new_group()\npg._allgather_base(1, 2)\n',
    "a lambda in an attribute's annotation": b'import torch.distributed as dist\nclass A:\n    def __init__(self):\n'
                                              b'        self.pg: lambda a=1: a = dist.new_group()\n'
                                              b'    def f(self):\n        self.pg._allgather_base(1, 2)\n',
    'a Shift-JIS letter ending with the byte of `}`': b'# coding: sjis\ngetattr(\n\x83}, "_unflatten")\n',
    'a GBK letter ending with the byte of `]`': b'# coding: gbk\ngetattr(\n\x81], "_unflatten")\n',
    'a Shift-JIS name bound to torch': b'# coding: sjis\nimport torch\n\x83} = torch\ngetattr(\n\x83}, "_C")\n',
    "UTF-7's quote in getattr's arguments": b'# coding: utf-7\ngetattr(\nm, +ACI-_unflatten+ACI-)\n# "_\n',
    "UTF-7's underscore in a getattr string": b'# coding: utf-7\ngetattr(m, "+AF8-unflatten")\n',
    "UTF-7's underscore in an attribute": b'# coding: utf-7\nimport torch\ntorch.+AF8-C\n',
    "a `)` in a string on getattr's line": b'def f(m):\n    return getattr(m[")"],\n        "_unflatten")\n',
    "a `)` and a `#` in a string on getattr's line": b'def f(m):\n    return getattr(")#"[0],\n        "_unflatten")\n',
    "a private-looking string in a comment on getattr's line": b'def f(m):\n    return getattr(m,  # "_x"\n        "_unflatten")\n',
    "an annotation holding `==`, after an untyped value": b'import torch.distributed as dist\npg = dist.get_rank()\npg: "==" = dist.new_group()\npg._allgather_base(a, b)\n',
    # A fourth review (tenth session), all older: an f-string over lines in a call's bracket walk,
    # a form feed or a continuation before an import's bracket, a bracketed getattr over lines,
    # an encoding the slice left out, a line holding only a backslash (CPython and libcst differ).
    'an f-string over lines whose field holds its own quote, in a call': b'import torch.distributed as dist\ndist.new_group(f"{x\n["a("]}")._allgather_base()\n',
    'an f-string continued by a backslash whose field holds its own quote': b'import torch.distributed as dist\ndist.new_group(f"\\\n{x["a("]}")._allgather_base()\n',
    "a form feed before an import's bracket": b'from torch import\x0c(\n _C)\n',
    "a line continuation before an import's bracket": b'from torch import\\\n(\n _C)\n',
    "a form feed before an import's bracket, a name it binds": b'from torch.distributed import\x0c(\n new_group as ng)\nng()._x\n',
    'a bracketed getattr whose arguments go on below': b'import torch\n(getattr)(torch,\n"_C")\n',
    'an encoding declared, then a slice': b'# coding: utf-7\npg = 1\nimport torch\nx = "+ACI-; torch._C._x() #"\n',
    'a line holding only a backslash, before module code': b'import torch.distributed as dist\ndef go():\n    pg = dist.new_group()\n\\\npg._x\n',
    'a line holding only a backslash, which libcst cannot parse': b'a = 1\n(a\n )._x\nif 1:\n    \\\npass\n',
    # A third review (tenth session), of older readings beside prose.py: a `#` in a string that
    # quote counts miss, `x. self. _y`, f- and t-strings over lines, a `from` in a comment that
    # runs into the import below it.
    'a string holding # after an even count of quotes, before x. self._y': b'import torch\n"\\"#"; torch. self._C\n',
    'a triple-quoted string holding #, before x. self._y': b"import torch\n''''#'''; torch. self._C\n",
    'a string begun above holding #, before x. self._y': b'import torch\nt = """\n#"""; y = torch. self._C\n',
    'space after the dot of x. self. _y': b'import torch\ntorch. self. _C\n',
    "a one-quote f-string's field over lines, then # in its text": b'import torch\nx = f"{1\n}#{torch._C._x()}"\n',
    "a one-quote f-string's field over lines, a receiver after #": b'import torch.distributed as dist\nx = f"{1\n}#{dist\n.new_group()._allgather_base()}"\n',
    'a triple-quoted t-string': b'import torch\nx = t"""\n# {torch._C._x()}"""\n',
    "a t-string's field holding its own quote, in a call": b'import torch.distributed as dist\ndist.new_group(t"{x["a(x"]}")._allgather_base()\n',
    "a comment's from-import continued by a backslash into an import": b'# from . import b \\\nfrom torch.distributed import new_group as ng\npg = ng()\npg._allgather_base(1)\n',
    "a comment's from-import bracket running into an import": b'# from . import (\nfrom torch.distributed import new_group as ng\npg = ng()\npg._allgather_base(1)\n',
    "a comment in a triple-quoted f-string's field, above a loop target on self (6d190d6's own)": b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\nclass W:\n    def setup(self, g: list[ProcessGroup]):\n        t = f"""{1}\n#{[0 for (self  # a\n).pg in g]}"""\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    "a comment's from-import bracket, a # in a string": b'# from a import (\nx = "#"; from torch.distributed import new_group as ng\nprint()\npg = ng()\npg._allgather_base(1)\n',
    # A review of prose.py (tenth session): strings inside an f-string's field, an encoding's
    # first declaration, and a match that starts in prose and runs into code.
    "a triple-quoted string in an f-string's field": b'import torch\nx = f"{\'\'\'a\'}\'\'\'+""+torch._C._x()+""}"\n',
    "an escaped quote in an f-string's field": b'import torch\nx = f"{\'\\\'\'+\'}\'+""+torch._C._x()+""}"\n',
    "a quote in an f-string's format spec": b'import torch\nx = f"{x:\'}{\'}\'+""+torch._C._x()+""}"\n',
    "an f-string's field misread, above a store": b'import torch.distributed as dist\nclass W:\n    def setup(self):\n        t = f"{\'\'\'a\'}\'\'\'+""""""}"; (self  # c """\n        ).pg = dist.new_group()\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'an encoding declared twice on a line, the first not UTF-8': b'# -*- coding: utf-7 -*- coding: utf-8\nimport torch\nx = "abc+ACI-; torch._C._x() #"\n',
    "a comment's from torch running into a private import": b'# adapted from torch\nfrom torch._C import _get_backend\n',
    "a comment's from torch.distributed running into a private module": b'# Adapted from torch.distributed\nfrom torch.distributed._tensor import DTensor\n',
    "a comment's from torch after code, then a private name imported": b'import os  # see also from torch\nfrom torch.distributed import _functional_collectives as fc\n',
    "a dot and # in a string, before a member's dot": b'y = ("a.#", m.\n     _local_tensor)\n',
    "a dot and # in a string, before a typed receiver's dot": b'import torch.distributed as dist\npg = dist.new_group()\ny = ("x. #", pg.\n     _allgather_base(a, b))\n',
    'a dot and # in a string, before an attribute named self': b'import torch\ny = ("a.#", torch.\n     self._C)\n',
    'getattr and # in a string, before a getattr over lines': b'import torch.distributed as dist\npg = dist.new_group()\ny = ("getattr #", getattr\n     (pg, "_allgather_base"))\n',
    # A review of the fifth's fix (tenth session): a comment after a string whose quotes,
    # counted one at a time, mislead (`"""#"b"""`), or after one begun on a line above.
    'a triple-quoted string holding # and a quote, above a store': b'import torch.distributed as dist\nclass W:\n    def setup(self):\n        t = """#"b"""; (self  # a #\n        ).pg = dist.new_group()\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    "a triple-quoted string with an apostrophe, above a store": b'import torch.distributed as dist\nclass W:\n    def setup(self):\n        t = \'\'\'it\'s #1\'\'\'; (self  # see #12\n        ).pg = dist.new_group()\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a triple-quoted string holding # and a quote, after the dot': b'import torch.distributed as dist\nclass W:\n    def setup(self):\n        t = """#"b"""; (self.  # a #\n        pg) = dist.new_group()\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a string begun on the line above a store': b'import torch.distributed as dist\nclass W:\n    def setup(self):\n        t = "\\\n#"; (self  # a #\n        ).pg = dist.new_group()\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a triple-quoted string begun on the line above a store': b'import torch.distributed as dist\nclass W:\n    def setup(self):\n        t = """\n#"""; (self  # a #\n        ).pg = dist.new_group()\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a quoted # before for (': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\ndef go(groups: list[ProcessGroup], a, b):\n    return ["""#"x""" for (  # each # 1\n             pg) in groups if pg._allgather_base(a, b)]\n',
    'a quoted # before for (, self.pg': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\nclass W:\n    def setup(self, groups: list[ProcessGroup]):\n        return ["""#"x""" for (  # each # 1\n                 self.pg) in groups]\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a quoted # before as': b'x = """#"x"""; from torch.distributed import (ProcessGroup as  # the # 1 type\n    PG)\nclass W(PG):\n    def go(self, a, b):\n        self._allgather_base(a, b)\n',
    'a quoted # before for, self': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\ndef go(groups: list[ProcessGroup], a, b):\n    return ["""#"x""" for  # each # 1\n            self in groups if self._allgather_base(a, b)]\n',
    'a triple-quoted string holding # and a quote, above a store, with \\r\\n line ends': b'import torch.distributed as dist\r\nclass W:\r\n    def setup(self):\r\n        t = """#"b"""; (self  # a #\r\n        ).pg = dist.new_group()\r\n    def go(self, a, b):\r\n        self.pg._allgather_base(a, b)\r\n',
    'a quoted # above a store, past an f-string the tokens cannot read': b'import torch.distributed as dist\nh = f"{n:#x}"\nclass W:\n    def setup(self):\n        t = """#"b"""; (self  # a #\n        ).pg = dist.new_group()\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    # The same review: `isinstance` and `getattr` bracketed or followed by a comment or a
    # form feed; a form feed before an annotation's `:`.
    'a comment between isinstance and its bracket, on self': b'from torch.distributed import ProcessGroup\nif (isinstance  # c\n        (self, ProcessGroup)):\n    self._allgather_base(1, 2)\n',
    'a bracketed isinstance': b'from torch.distributed import ProcessGroup\ndef f(pg):\n    assert (isinstance)(pg, ProcessGroup)\n    pg._allgather_base(1, 2)\n',
    'a bracketed isinstance, on self': b'from torch.distributed import ProcessGroup\nif (isinstance)(self, ProcessGroup):\n    self._allgather_base(1, 2)\n',
    'a bracketed getattr': b'import torch\n(getattr)(torch, "_C")\n',
    'a form feed before getattr\'s bracket': b'import torch\ngetattr\x0c(torch, "_C")\n',
    'a form feed before an annotation\'s colon': b'import torch.distributed as dist\npg\x0c: Any \\\n    = dist.new_group()\npg._allgather_base(1, 2)\n',
    # A fifth review (ninth session): a comment from neither the first nor the last `#` of its line,
    # lines that need different readings, `self` imported by its own name.
    'lines above a store that need different readings of their #': b'import torch.distributed as dist\nclass W:\n    def setup(self):\n        tag = "#"; (self.\\\n            # c\n            pg) = dist.new_group()\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a comment from a middle #, above a store': b'import torch.distributed as dist\nclass W:\n    def setup(self):\n        tag = "#"; (self  # see #12\n        ).pg = dist.new_group()\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a comment from a middle #, after for (': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\ndef go(groups: list[ProcessGroup], a, b):\n    return ["#" for (  # each #1\n             pg) in groups if pg._allgather_base(a, b)]\n',
    'a comment from a middle #, after for (, self': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\nclass W:\n    def setup(self, groups: list[ProcessGroup]):\n        return ["#" for (  # each #1\n                 self.pg) in groups]\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a comment from a middle #, after as': b'x = "#"; from torch.distributed import (ProcessGroup as  # the #1 type\n    PG)\nclass W(PG):\n    def go(self, a, b):\n        self._allgather_base(a, b)\n',
    'self imported by its own name': b'from torch import self\nself._C\n',
    'cls imported by its own name': b'from torch import cls\ncls._C\n',
    # A fourth review (ninth session): comments ending in `self`, a `#` in a string before a comment,
    # form feeds, `def self`, a bracket in a comment inside an import's brackets.
    'a comment ending in self inside a loop target': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\nclass W:\n    def setup(self, groups: list[ProcessGroup]):\n        for (self  # the group of self\n             ).pg in groups:\n            pass\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a comment ending in self. inside a loop target': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\nclass W:\n    def setup(self, groups: list[ProcessGroup]):\n        return [0 for (self.  # kept on self.\n                       pg) in groups]\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a comment ending in itself inside a loop target': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\nclass W:\n    def setup(self, groups: list[ProcessGroup]):\n        return [0 for (self  # the group itself\n                       ).pg in groups]\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a # in a string before a comment, above a store': b'import torch.distributed as dist\nclass W:\n    def setup(self):\n        tag = "#"; (self  # c\n        ).pg = dist.new_group()\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a # in a string before a comment after for (': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\ndef go(groups: list[ProcessGroup], a, b):\n    return ["#" for (  # each\n             pg) in groups if pg._allgather_base(a, b)]\n',
    'a # in a string before a comment after for (, self': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\nclass W:\n    def setup(self, groups: list[ProcessGroup]):\n        return ["#" for (  # each\n                 self.pg) in groups]\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a # in a string before a comment after as': b'x = "#"; from torch.distributed import (ProcessGroup as  # the type\n    PG)\nclass W(PG):\n    def go(self, a, b):\n        self._allgather_base(a, b)\n',
    'self. then a backslash as a value': b'import torch.distributed as dist\nclass W:\n    def setup(self):\n        self.other = dist.new_group()\n    def go(self, a, b):\n        pg = self.\\\n            other\n        pg._allgather_base(a, b)\n',
    'self, a form feed, .attr as a value': b'import torch.distributed as dist\nclass W:\n    def setup(self):\n        self.other = dist.new_group()\n    def go(self, a, b):\n        pg = self\x0c.other\n        pg._allgather_base(a, b)\n',
    'self., a form feed, attr as a value': b'import torch.distributed as dist\nclass W:\n    def setup(self):\n        self.other = dist.new_group()\n    def go(self, a, b):\n        pg = self.\x0cother\n        pg._allgather_base(a, b)\n',
    "a bracket in a comment inside an import's brackets, as self": b'import torch.distributed as dist\nfrom torch.distributed import (  # see f()\n    new_group as self)\ndef go(a, b):\n    self()._allgather_base(a, b)\n',
    "a bracket in a comment inside an import's brackets, as cls": b'import torch.distributed as dist\nfrom torch.distributed import (  # (see new_group())\n    new_group as cls)\ndef go(a, b):\n    return cls()._allgather_base(a, b)\n',
    'def, a form feed, a name': b'import torch.distributed as dist\ndef\x0cmake_pg():\n    return dist.new_group()\nmake_pg()._allgather_base(1, 2)\n',
    'for, a form feed, self.attr': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\nclass W:\n    def setup(self, groups: list[ProcessGroup]):\n        for\x0cself.pg in groups:\n            pass\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'def self': b'import torch.distributed as dist\ndef self():\n    return dist.new_group()\nself()._allgather_base(1, 2)\n',
    'def cls': b'import torch.distributed as dist\ndef cls():\n    return dist.new_group()\ndef go(a, b):\n    return cls()._allgather_base(a, b)\n',
    # A third review (ninth session): a `#` in a string above a store, comments after `for (` and `as`,
    # `(self)` as a loop target, `self` then a backslash before `.attr`.
    "a # in a string above a comprehension's target": b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\nclass W:\n    def setup(self, groups: list[ProcessGroup]):\n        return ["#" for self.\n                pg in groups]\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a # in a string above an annotated store': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\nclass W:\n    def setup(self):\n        tag = "#"; self.\\\npg: ProcessGroup = make()\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a # in a string above a store': b'import torch.distributed as dist\nclass W:\n    def setup(self):\n        tag = "#"; self.\\\npg = dist.new_group()\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a comment after as, a base class': b'from torch.distributed import (ProcessGroup as  # the group type\n                               PG)\nclass W(PG):\n    def go(self, a, b):\n        self._allgather_base(a, b)\n',
    'a comment after as, self': b'import torch.distributed as dist\nfrom torch.distributed import (new_group as  # c\n                               self)\ndef go(a, b):\n    self()._allgather_base(a, b)\n',
    'a comment after for (, a comprehension': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\nclass Worker:\n    def setup(self, groups: list[ProcessGroup]):\n        return [0 for (  # each group\n             self.pg) in groups]\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'a comment after for (, a name': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\ndef go(groups: list[ProcessGroup], a, b):\n    for (  # each group\n         pg) in groups:\n        pg._allgather_base(a, b)\n',
    'a comment after for (, self': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\nclass Worker:\n    def setup(self, groups: list[ProcessGroup]):\n        for (  # each group\n             self.pg) in groups:\n            pass\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    "(cls) as a comprehension's target": b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\ndef go(groups: list[ProcessGroup], a, b):\n    return [cls._allgather_base(a, b) for (cls) in groups]\n',
    "(self) as a loop's target": b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\ndef go(groups: list[ProcessGroup], a, b):\n    for (self) in groups:\n        self._allgather_base(a, b)\n',
    "self then a backslash, a name's value": b'import torch.distributed as dist\nclass W:\n    def setup(self):\n        self.other = dist.new_group()\n    def go(self, a, b):\n        pg = self \\\n            .other\n        pg._allgather_base(a, b)\n',
    "self then a backslash, a store's value": b'import torch.distributed as dist\nclass W:\n    def setup(self):\n        self.other = dist.new_group()\n        self.pg = self \\\n            .other\n    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    # A second review of the eighth session's slicer: comments inside a store's target.
    'comment before a store dot': b'import torch.distributed as dist\nclass Worker:\n    def setup(self):\n'
                                  b'        (self  # the group\n         ).pg = dist.new_group()\n'
                                  b'    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'comment after a store dot': b'import torch.distributed as dist\nclass Worker:\n    def setup(self):\n'
                                 b'        (self.  # the group\n         pg) = dist.new_group()\n'
                                 b'    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'comment in a loop target on self': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\n'
                                        b'class Worker:\n    def setup(self, groups: list[ProcessGroup]):\n'
                                        b'        for (self.pg  # each\n             ) in groups:\n            pass\n'
                                        b'    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'comment in a comprehension target on self': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\n'
                                                 b'class Worker:\n    def setup(self, groups: list[ProcessGroup]):\n'
                                                 b'        return [0 for self.pg  # each group\n                in groups]\n'
                                                 b'    def go(self, a, b):\n        self.pg._allgather_base(a, b)\n',
    'comment in a loop target': b'import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\n'
                                b'def f(groups: list[ProcessGroup], a, b):\n    for (pg  # each\n         ) in groups:\n'
                                b'        pg._allgather_base(a, b)\n',
    't1': b'import torch.distributed as dist\npg = dist.new_group(  # see foo(\n    backend="gloo")._x\n',
    't1b': b'import torch.distributed as dist\npg = dist.new_group(  # see foo(\n    ranks)._x\n',
    'r1_apos': b'import torch.distributed as dist\npg = dist.new_group(\n    "see f(", "it\'s",  # don\'t\n    ranks)._x\n',
    'r1_fstr': b'import torch.distributed as dist\npg = dist.new_group(f"{d["a("]}")._x\n',
    'r2_fstr': b'import torch.distributed as dist\ns = f"""\n# {dist._get_default_group()}\n"""\n',
    'r3_str': b'import torch.distributed as dist\nx = ("""\n#""", dist.\n    distributed_c10d._get_default_group())\n',
    'r6_dataclass': b'from dataclasses import dataclass\nfrom torch.distributed import ProcessGroup\n\n\n@dataclass\nclass Wrapped(ProcessGroup):\n    def f(self):\n        return self._x\n',
    'r6_noname': b'import torch.distributed as dist\nself = dist.new_group()\nself._x\n',
    'r6_isinst': b'from torch.distributed import ProcessGroup\ndef f(self):\n    if isinstance(  # note\n            self, ProcessGroup):\n        self._x\n',
    'r6_base': b'import torch.distributed as dist\n(PG) = dist.ProcessGroup\nclass A(PG):\n    def f(self):\n        return self._x\n',
    'r6_base2': b'import torch.distributed as dist\nPG \\\n    = dist.ProcessGroup\nclass A(PG):\n    def f(self):\n        return self._x\n',
    'r6_selfparen': b'from torch.distributed import ProcessGroup, new_group\n(self) = new_group()\nself._x\n',
    'r5_comment': b'# import \\\nimport torch.distributed as dist\ndist._get_default_group()\n',
    'r5_bs': b'import\\\n torch._C\n',
    'i8': b'import\x0ctorch._C\n',
    'r7_paren2': b'import torch.distributed as dist\n(pg) = dist.new_group()\npg._x\n',
    'r6_selfattr': b'import torch.distributed as dist\nclass A:\n    def __init__(self):\n        self.\\\n            pg = dist.new_group()\n    def f(self):\n        return self.pg._x\n',
    'k_match': b'import torch.distributed as dist\nmatch (dist)._get_default_group():\n    case _:\n        pass\n',
    'k_except': b'import torch.distributed as dist\ntry:\n    pass\nexcept (dist)._SomeError:\n    pass\n',
    'r6_subclass_comment': b'from torch.distributed.device_mesh import DeviceMesh\n# Add helpers to the mesh. Not a subclass\nclass M(DeviceMesh):\n    def f(self):\n        return self._thing\n',
    'r6_classword': b'from torch.distributed import ProcessGroup\n# A process group, as a subclass of the base class\nclass Wrapped(ProcessGroup):\n    def f(self):\n        return self._x\n',
    # Found by the eighth session's review (text, slice and gate, each lost the finding):
    'annotation over lines': b'from typing import Any, Optional\n\nimport torch.distributed as dist\n\ngroup: Optional[\n    Any\n] = dist.new_group(ranks=[0, 1])\ngroup._allgather_base(1, 2)\n',
    'annotation then a continued =': b'from typing import Any\n\nimport torch.distributed as dist\n\ngroup: Any \\\n    = dist.new_group(ranks=[0, 1])\ngroup._allgather_base(1, 2)\n',
    "self attribute's annotation over lines": b'from typing import Any, Optional\n\nimport torch.distributed as dist\n\n\nclass Trainer:\n    def __init__(self):\n        self.group: Optional[\n            Any\n        ] = dist.new_group(ranks=[0, 1])\n\n    def step(self, a, b):\n        self.group._allgather_base(a, b)\n',
    'for continued to its target': b'from torch.distributed import ProcessGroup\n\n\ndef gather_all(pgs: list[ProcessGroup], a, b):\n    for \\\n            pg in pgs:\n        pg._allgather_base(a, b)\n',
    'f-string continued with a # line': b'import torch.distributed as dist\n\npg = dist.new_group()\nmsg = f"gathered \\\n# {pg._allgather_base(1, 2)}"\n',
    'getattr then ( below': b'import torch.distributed as dist\n\npg = dist.new_group()\nfn = (getattr\n      (pg, "_allgather_base"))\n',
    'getattr continued to (': b'import torch.distributed as dist\n\npg = dist.new_group()\nfn = getattr \\\n    (pg, "_allgather_base")\n',
    'getattr string escaped after _': b'import torch.distributed as dist\n\npg = dist.new_group()\nfn = getattr(pg, "_\\x61llgather_base")\n',
    'getattr non-ASCII string': b'import torch.distributed as dist\n\npg = dist.new_group()\nfn = getattr(pg, "_donn\xc3\xa9es")\n',
    'getattr string with -': b'import torch.distributed as dist\n\npg = dist.new_group()\nfn = getattr(pg, "_x-y")\n',
    'getattr string with .': b'import torch.distributed as dist\n\npg = dist.new_group()\nfn = getattr(pg, "_x.y")\n',
    'getattr string with a space': b'import torch.distributed as dist\n\npg = dist.new_group()\nfn = getattr(pg, "_allgather base")\n',
    'getattr string with a trailing space': b'import torch.distributed as dist\n\npg = dist.new_group()\nfn = getattr(pg, "_allgather_base ")\n',
    'self, a comment, then .pg': b"import torch.distributed as dist\n\n\nclass Trainer:\n    def __init__(self):\n        self.pg = dist.new_group()\n\n    def step(self, a, b):\n        out = (self  # the trainer's group\n               .pg._allgather_base(a, b))\n        return out\n",
    'self. continued to pg': b'import torch.distributed as dist\n\n\nclass Trainer:\n    def __init__(self):\n        self.pg = dist.new_group()\n\n    def step(self, a, b):\n        return self.\\\n            pg._allgather_base(a, b)\n',
    '(self).pg': b'import torch.distributed as dist\n\n\nclass Trainer:\n    def __init__(self):\n        self.pg = dist.new_group()\n\n    def step(self, a, b):\n        return (self).pg._allgather_base(a, b)\n',
    'a class body calls its own function': b'import torch.distributed as dist\n\n\nclass Config:\n    def make_group():\n        return dist.new_group()\n\n    group = make_group()\n    group._allgather_base(1, 2)\n',
    'a docstring of literals side by side': b'import torch\n\n\ndef has_dynamo():\n    ("Whether this torch build "\n     "ships the compiler stack.")\n    return hasattr(torch, "_dynamo")\n\n\ndef helper_a(x):\n    y = x + 1\n    return y * 2\n\n\ndef helper_b(x):\n    y = x - 1\n    return y * 3\n\n\ndef helper_c(x):\n    y = x * 4\n    return y - 5\n\n\ndef reset():\n    if has_dynamo():\n        torch._dynamo.reset()\n',
    'pg = self, self annotated': b'from torch.distributed import ProcessGroup\n\n\ndef allgather_base(self: ProcessGroup, out, inp):\n    pg = self\n    return pg._allgather_base(out, inp)\n',
    # Found by the eighth session's second review (each lost before this session too):
    'annotation over lines, a bracket in a comment': b'import torch.distributed as dist\nfrom typing import Optional, Annotated\n\ndef use(a, b):\n    pg: Optional[  # ]\n        object] = dist.new_group()\n    pg._allgather_base(a, b)\n\ndef pad0(x):\n    y = x + 0\n    return y\n\ndef pad1(x):\n    y = x + 1\n    return y\n\ndef pad2(x):\n    y = x + 2\n    return y\n\ndef pad3(x):\n    y = x + 3\n    return y\n\ndef pad4(x):\n    y = x + 4\n    return y\n\ndef pad5(x):\n    y = x + 5\n    return y\n\ndef pad6(x):\n    y = x + 6\n    return y\n\ndef pad7(x):\n    y = x + 7\n    return y\n\ndef pad8(x):\n    y = x + 8\n    return y\n\ndef pad9(x):\n    y = x + 9\n    return y\n\ndef pad10(x):\n    y = x + 10\n    return y\n\ndef pad11(x):\n    y = x + 11\n    return y\n\ndef pad12(x):\n    y = x + 12\n    return y\n\ndef pad13(x):\n    y = x + 13\n    return y\n\ndef pad14(x):\n    y = x + 14\n    return y\n\ndef pad15(x):\n    y = x + 15\n    return y\n\ndef pad16(x):\n    y = x + 16\n    return y\n\ndef pad17(x):\n    y = x + 17\n    return y\n\ndef pad18(x):\n    y = x + 18\n    return y\n\ndef pad19(x):\n    y = x + 19\n    return y\n\ndef pad20(x):\n    y = x + 20\n    return y\n\ndef pad21(x):\n    y = x + 21\n    return y\n\ndef pad22(x):\n    y = x + 22\n    return y\n\ndef pad23(x):\n    y = x + 23\n    return y\n\ndef pad24(x):\n    y = x + 24\n    return y\n\ndef pad25(x):\n    y = x + 25\n    return y\n\ndef pad26(x):\n    y = x + 26\n    return y\n\ndef pad27(x):\n    y = x + 27\n    return y\n\ndef pad28(x):\n    y = x + 28\n    return y\n\ndef pad29(x):\n    y = x + 29\n    return y\n',
    'annotation over lines, a bracket in a string': b'import torch.distributed as dist\nfrom typing import Optional, Annotated\n\ndef use(a, b):\n    pg: Annotated[object, "]"\n        ] = dist.new_group()\n    pg._allgather_base(a, b)\n\ndef pad0(x):\n    y = x + 0\n    return y\n\ndef pad1(x):\n    y = x + 1\n    return y\n\ndef pad2(x):\n    y = x + 2\n    return y\n\ndef pad3(x):\n    y = x + 3\n    return y\n\ndef pad4(x):\n    y = x + 4\n    return y\n\ndef pad5(x):\n    y = x + 5\n    return y\n\ndef pad6(x):\n    y = x + 6\n    return y\n\ndef pad7(x):\n    y = x + 7\n    return y\n\ndef pad8(x):\n    y = x + 8\n    return y\n\ndef pad9(x):\n    y = x + 9\n    return y\n\ndef pad10(x):\n    y = x + 10\n    return y\n\ndef pad11(x):\n    y = x + 11\n    return y\n\ndef pad12(x):\n    y = x + 12\n    return y\n\ndef pad13(x):\n    y = x + 13\n    return y\n\ndef pad14(x):\n    y = x + 14\n    return y\n\ndef pad15(x):\n    y = x + 15\n    return y\n\ndef pad16(x):\n    y = x + 16\n    return y\n\ndef pad17(x):\n    y = x + 17\n    return y\n\ndef pad18(x):\n    y = x + 18\n    return y\n\ndef pad19(x):\n    y = x + 19\n    return y\n\ndef pad20(x):\n    y = x + 20\n    return y\n\ndef pad21(x):\n    y = x + 21\n    return y\n\ndef pad22(x):\n    y = x + 22\n    return y\n\ndef pad23(x):\n    y = x + 23\n    return y\n\ndef pad24(x):\n    y = x + 24\n    return y\n\ndef pad25(x):\n    y = x + 25\n    return y\n\ndef pad26(x):\n    y = x + 26\n    return y\n\ndef pad27(x):\n    y = x + 27\n    return y\n\ndef pad28(x):\n    y = x + 28\n    return y\n\ndef pad29(x):\n    y = x + 29\n    return y\n',
    "self attribute's annotation, a bracket in a comment": b'import torch.distributed as dist\nfrom typing import Optional\n\nclass W:\n    def setup(self):\n        self.pg: Optional[  # ]\n            object] = dist.new_group()\n    def use(self, a, b):\n        self.pg._allgather_base(a, b)\n\ndef pad0(x):\n    y = x + 0\n    return y\n\ndef pad1(x):\n    y = x + 1\n    return y\n\ndef pad2(x):\n    y = x + 2\n    return y\n\ndef pad3(x):\n    y = x + 3\n    return y\n\ndef pad4(x):\n    y = x + 4\n    return y\n\ndef pad5(x):\n    y = x + 5\n    return y\n\ndef pad6(x):\n    y = x + 6\n    return y\n\ndef pad7(x):\n    y = x + 7\n    return y\n\ndef pad8(x):\n    y = x + 8\n    return y\n\ndef pad9(x):\n    y = x + 9\n    return y\n\ndef pad10(x):\n    y = x + 10\n    return y\n\ndef pad11(x):\n    y = x + 11\n    return y\n\ndef pad12(x):\n    y = x + 12\n    return y\n\ndef pad13(x):\n    y = x + 13\n    return y\n\ndef pad14(x):\n    y = x + 14\n    return y\n\ndef pad15(x):\n    y = x + 15\n    return y\n\ndef pad16(x):\n    y = x + 16\n    return y\n\ndef pad17(x):\n    y = x + 17\n    return y\n\ndef pad18(x):\n    y = x + 18\n    return y\n\ndef pad19(x):\n    y = x + 19\n    return y\n\ndef pad20(x):\n    y = x + 20\n    return y\n\ndef pad21(x):\n    y = x + 21\n    return y\n\ndef pad22(x):\n    y = x + 22\n    return y\n\ndef pad23(x):\n    y = x + 23\n    return y\n\ndef pad24(x):\n    y = x + 24\n    return y\n\ndef pad25(x):\n    y = x + 25\n    return y\n\ndef pad26(x):\n    y = x + 26\n    return y\n\ndef pad27(x):\n    y = x + 27\n    return y\n\ndef pad28(x):\n    y = x + 28\n    return y\n\ndef pad29(x):\n    y = x + 29\n    return y\n',
    'getattr( then a comment with a bracket': b'import torch.distributed as dist\nfrom typing import Optional, Annotated\n\ndef use(a, b):\n    pg = dist.new_group()\n    getattr(  # )\n        pg, "_allgather_base")(a, b)\n\ndef pad0(x):\n    y = x + 0\n    return y\n\ndef pad1(x):\n    y = x + 1\n    return y\n\ndef pad2(x):\n    y = x + 2\n    return y\n\ndef pad3(x):\n    y = x + 3\n    return y\n\ndef pad4(x):\n    y = x + 4\n    return y\n\ndef pad5(x):\n    y = x + 5\n    return y\n\ndef pad6(x):\n    y = x + 6\n    return y\n\ndef pad7(x):\n    y = x + 7\n    return y\n\ndef pad8(x):\n    y = x + 8\n    return y\n\ndef pad9(x):\n    y = x + 9\n    return y\n\ndef pad10(x):\n    y = x + 10\n    return y\n\ndef pad11(x):\n    y = x + 11\n    return y\n\ndef pad12(x):\n    y = x + 12\n    return y\n\ndef pad13(x):\n    y = x + 13\n    return y\n\ndef pad14(x):\n    y = x + 14\n    return y\n\ndef pad15(x):\n    y = x + 15\n    return y\n\ndef pad16(x):\n    y = x + 16\n    return y\n\ndef pad17(x):\n    y = x + 17\n    return y\n\ndef pad18(x):\n    y = x + 18\n    return y\n\ndef pad19(x):\n    y = x + 19\n    return y\n\ndef pad20(x):\n    y = x + 20\n    return y\n\ndef pad21(x):\n    y = x + 21\n    return y\n\ndef pad22(x):\n    y = x + 22\n    return y\n\ndef pad23(x):\n    y = x + 23\n    return y\n\ndef pad24(x):\n    y = x + 24\n    return y\n\ndef pad25(x):\n    y = x + 25\n    return y\n\ndef pad26(x):\n    y = x + 26\n    return y\n\ndef pad27(x):\n    y = x + 27\n    return y\n\ndef pad28(x):\n    y = x + 28\n    return y\n\ndef pad29(x):\n    y = x + 29\n    return y\n',
    'getattr(pg, then a comment with a bracket': b'import torch.distributed as dist\nfrom typing import Optional, Annotated\n\ndef use(a, b):\n    pg = dist.new_group()\n    getattr(pg,  # )\n            "_allgather_base")(a, b)\n\ndef pad0(x):\n    y = x + 0\n    return y\n\ndef pad1(x):\n    y = x + 1\n    return y\n\ndef pad2(x):\n    y = x + 2\n    return y\n\ndef pad3(x):\n    y = x + 3\n    return y\n\ndef pad4(x):\n    y = x + 4\n    return y\n\ndef pad5(x):\n    y = x + 5\n    return y\n\ndef pad6(x):\n    y = x + 6\n    return y\n\ndef pad7(x):\n    y = x + 7\n    return y\n\ndef pad8(x):\n    y = x + 8\n    return y\n\ndef pad9(x):\n    y = x + 9\n    return y\n\ndef pad10(x):\n    y = x + 10\n    return y\n\ndef pad11(x):\n    y = x + 11\n    return y\n\ndef pad12(x):\n    y = x + 12\n    return y\n\ndef pad13(x):\n    y = x + 13\n    return y\n\ndef pad14(x):\n    y = x + 14\n    return y\n\ndef pad15(x):\n    y = x + 15\n    return y\n\ndef pad16(x):\n    y = x + 16\n    return y\n\ndef pad17(x):\n    y = x + 17\n    return y\n\ndef pad18(x):\n    y = x + 18\n    return y\n\ndef pad19(x):\n    y = x + 19\n    return y\n\ndef pad20(x):\n    y = x + 20\n    return y\n\ndef pad21(x):\n    y = x + 21\n    return y\n\ndef pad22(x):\n    y = x + 22\n    return y\n\ndef pad23(x):\n    y = x + 23\n    return y\n\ndef pad24(x):\n    y = x + 24\n    return y\n\ndef pad25(x):\n    y = x + 25\n    return y\n\ndef pad26(x):\n    y = x + 26\n    return y\n\ndef pad27(x):\n    y = x + 27\n    return y\n\ndef pad28(x):\n    y = x + 28\n    return y\n\ndef pad29(x):\n    y = x + 29\n    return y\n',
    'a type name split by a backslash in a string annotation': b'import torch.distributed as dist\nfrom typing import Optional, Annotated\n\ndef use(pg: "dist.Process\\\nGroup", a, b):\n    pg._allgather_base(a, b)\n\ndef pad0(x):\n    y = x + 0\n    return y\n\ndef pad1(x):\n    y = x + 1\n    return y\n\ndef pad2(x):\n    y = x + 2\n    return y\n\ndef pad3(x):\n    y = x + 3\n    return y\n\ndef pad4(x):\n    y = x + 4\n    return y\n\ndef pad5(x):\n    y = x + 5\n    return y\n\ndef pad6(x):\n    y = x + 6\n    return y\n\ndef pad7(x):\n    y = x + 7\n    return y\n\ndef pad8(x):\n    y = x + 8\n    return y\n\ndef pad9(x):\n    y = x + 9\n    return y\n\ndef pad10(x):\n    y = x + 10\n    return y\n\ndef pad11(x):\n    y = x + 11\n    return y\n\ndef pad12(x):\n    y = x + 12\n    return y\n\ndef pad13(x):\n    y = x + 13\n    return y\n\ndef pad14(x):\n    y = x + 14\n    return y\n\ndef pad15(x):\n    y = x + 15\n    return y\n\ndef pad16(x):\n    y = x + 16\n    return y\n\ndef pad17(x):\n    y = x + 17\n    return y\n\ndef pad18(x):\n    y = x + 18\n    return y\n\ndef pad19(x):\n    y = x + 19\n    return y\n\ndef pad20(x):\n    y = x + 20\n    return y\n\ndef pad21(x):\n    y = x + 21\n    return y\n\ndef pad22(x):\n    y = x + 22\n    return y\n\ndef pad23(x):\n    y = x + 23\n    return y\n\ndef pad24(x):\n    y = x + 24\n    return y\n\ndef pad25(x):\n    y = x + 25\n    return y\n\ndef pad26(x):\n    y = x + 26\n    return y\n\ndef pad27(x):\n    y = x + 27\n    return y\n\ndef pad28(x):\n    y = x + 28\n    return y\n\ndef pad29(x):\n    y = x + 29\n    return y\n',
    'for pg then a backslash before in': b'import torch.distributed as dist\nfrom typing import Optional\n\ndef use(pgs: list[dist.ProcessGroup], a, b):\n    for pg \\\n            in pgs:\n        pg._allgather_base(a, b)\n\ndef pad0(x):\n    y = x + 0\n    return y\n\ndef pad1(x):\n    y = x + 1\n    return y\n\ndef pad2(x):\n    y = x + 2\n    return y\n\ndef pad3(x):\n    y = x + 3\n    return y\n\ndef pad4(x):\n    y = x + 4\n    return y\n\ndef pad5(x):\n    y = x + 5\n    return y\n\ndef pad6(x):\n    y = x + 6\n    return y\n\ndef pad7(x):\n    y = x + 7\n    return y\n\ndef pad8(x):\n    y = x + 8\n    return y\n\ndef pad9(x):\n    y = x + 9\n    return y\n\ndef pad10(x):\n    y = x + 10\n    return y\n\ndef pad11(x):\n    y = x + 11\n    return y\n\ndef pad12(x):\n    y = x + 12\n    return y\n\ndef pad13(x):\n    y = x + 13\n    return y\n\ndef pad14(x):\n    y = x + 14\n    return y\n\ndef pad15(x):\n    y = x + 15\n    return y\n\ndef pad16(x):\n    y = x + 16\n    return y\n\ndef pad17(x):\n    y = x + 17\n    return y\n\ndef pad18(x):\n    y = x + 18\n    return y\n\ndef pad19(x):\n    y = x + 19\n    return y\n\ndef pad20(x):\n    y = x + 20\n    return y\n\ndef pad21(x):\n    y = x + 21\n    return y\n\ndef pad22(x):\n    y = x + 22\n    return y\n\ndef pad23(x):\n    y = x + 23\n    return y\n\ndef pad24(x):\n    y = x + 24\n    return y\n\ndef pad25(x):\n    y = x + 25\n    return y\n\ndef pad26(x):\n    y = x + 26\n    return y\n\ndef pad27(x):\n    y = x + 27\n    return y\n\ndef pad28(x):\n    y = x + 28\n    return y\n\ndef pad29(x):\n    y = x + 29\n    return y\n',
    'for (self.pg) in': b'import torch.distributed as dist\nfrom typing import Optional\n\nclass W:\n    def setup(self, pgs: list[dist.ProcessGroup]):\n        for (self.pg) in pgs:\n            pass\n    def use(self, a, b):\n        self.pg._allgather_base(a, b)\n\ndef pad0(x):\n    y = x + 0\n    return y\n\ndef pad1(x):\n    y = x + 1\n    return y\n\ndef pad2(x):\n    y = x + 2\n    return y\n\ndef pad3(x):\n    y = x + 3\n    return y\n\ndef pad4(x):\n    y = x + 4\n    return y\n\ndef pad5(x):\n    y = x + 5\n    return y\n\ndef pad6(x):\n    y = x + 6\n    return y\n\ndef pad7(x):\n    y = x + 7\n    return y\n\ndef pad8(x):\n    y = x + 8\n    return y\n\ndef pad9(x):\n    y = x + 9\n    return y\n\ndef pad10(x):\n    y = x + 10\n    return y\n\ndef pad11(x):\n    y = x + 11\n    return y\n\ndef pad12(x):\n    y = x + 12\n    return y\n\ndef pad13(x):\n    y = x + 13\n    return y\n\ndef pad14(x):\n    y = x + 14\n    return y\n\ndef pad15(x):\n    y = x + 15\n    return y\n\ndef pad16(x):\n    y = x + 16\n    return y\n\ndef pad17(x):\n    y = x + 17\n    return y\n\ndef pad18(x):\n    y = x + 18\n    return y\n\ndef pad19(x):\n    y = x + 19\n    return y\n\ndef pad20(x):\n    y = x + 20\n    return y\n\ndef pad21(x):\n    y = x + 21\n    return y\n\ndef pad22(x):\n    y = x + 22\n    return y\n\ndef pad23(x):\n    y = x + 23\n    return y\n\ndef pad24(x):\n    y = x + 24\n    return y\n\ndef pad25(x):\n    y = x + 25\n    return y\n\ndef pad26(x):\n    y = x + 26\n    return y\n\ndef pad27(x):\n    y = x + 27\n    return y\n\ndef pad28(x):\n    y = x + 28\n    return y\n\ndef pad29(x):\n    y = x + 29\n    return y\n',
    'for self.pg then a backslash before in': b'import torch.distributed as dist\nfrom typing import Optional\n\nclass W:\n    def setup(self, pgs: list[dist.ProcessGroup]):\n        for self.pg \\\n                in pgs:\n            pass\n    def use(self, a, b):\n        self.pg._allgather_base(a, b)\n\ndef pad0(x):\n    y = x + 0\n    return y\n\ndef pad1(x):\n    y = x + 1\n    return y\n\ndef pad2(x):\n    y = x + 2\n    return y\n\ndef pad3(x):\n    y = x + 3\n    return y\n\ndef pad4(x):\n    y = x + 4\n    return y\n\ndef pad5(x):\n    y = x + 5\n    return y\n\ndef pad6(x):\n    y = x + 6\n    return y\n\ndef pad7(x):\n    y = x + 7\n    return y\n\ndef pad8(x):\n    y = x + 8\n    return y\n\ndef pad9(x):\n    y = x + 9\n    return y\n\ndef pad10(x):\n    y = x + 10\n    return y\n\ndef pad11(x):\n    y = x + 11\n    return y\n\ndef pad12(x):\n    y = x + 12\n    return y\n\ndef pad13(x):\n    y = x + 13\n    return y\n\ndef pad14(x):\n    y = x + 14\n    return y\n\ndef pad15(x):\n    y = x + 15\n    return y\n\ndef pad16(x):\n    y = x + 16\n    return y\n\ndef pad17(x):\n    y = x + 17\n    return y\n\ndef pad18(x):\n    y = x + 18\n    return y\n\ndef pad19(x):\n    y = x + 19\n    return y\n\ndef pad20(x):\n    y = x + 20\n    return y\n\ndef pad21(x):\n    y = x + 21\n    return y\n\ndef pad22(x):\n    y = x + 22\n    return y\n\ndef pad23(x):\n    y = x + 23\n    return y\n\ndef pad24(x):\n    y = x + 24\n    return y\n\ndef pad25(x):\n    y = x + 25\n    return y\n\ndef pad26(x):\n    y = x + 26\n    return y\n\ndef pad27(x):\n    y = x + 27\n    return y\n\ndef pad28(x):\n    y = x + 28\n    return y\n\ndef pad29(x):\n    y = x + 29\n    return y\n',
    '(pg then ) = v below': b'import torch.distributed as dist\nfrom typing import Optional\n\ndef use(a, b):\n    (pg\n     ) = dist.new_group()\n    pg._allgather_base(a, b)\n\ndef pad0(x):\n    y = x + 0\n    return y\n\ndef pad1(x):\n    y = x + 1\n    return y\n\ndef pad2(x):\n    y = x + 2\n    return y\n\ndef pad3(x):\n    y = x + 3\n    return y\n\ndef pad4(x):\n    y = x + 4\n    return y\n\ndef pad5(x):\n    y = x + 5\n    return y\n\ndef pad6(x):\n    y = x + 6\n    return y\n\ndef pad7(x):\n    y = x + 7\n    return y\n\ndef pad8(x):\n    y = x + 8\n    return y\n\ndef pad9(x):\n    y = x + 9\n    return y\n\ndef pad10(x):\n    y = x + 10\n    return y\n\ndef pad11(x):\n    y = x + 11\n    return y\n\ndef pad12(x):\n    y = x + 12\n    return y\n\ndef pad13(x):\n    y = x + 13\n    return y\n\ndef pad14(x):\n    y = x + 14\n    return y\n\ndef pad15(x):\n    y = x + 15\n    return y\n\ndef pad16(x):\n    y = x + 16\n    return y\n\ndef pad17(x):\n    y = x + 17\n    return y\n\ndef pad18(x):\n    y = x + 18\n    return y\n\ndef pad19(x):\n    y = x + 19\n    return y\n\ndef pad20(x):\n    y = x + 20\n    return y\n\ndef pad21(x):\n    y = x + 21\n    return y\n\ndef pad22(x):\n    y = x + 22\n    return y\n\ndef pad23(x):\n    y = x + 23\n    return y\n\ndef pad24(x):\n    y = x + 24\n    return y\n\ndef pad25(x):\n    y = x + 25\n    return y\n\ndef pad26(x):\n    y = x + 26\n    return y\n\ndef pad27(x):\n    y = x + 27\n    return y\n\ndef pad28(x):\n    y = x + 28\n    return y\n\ndef pad29(x):\n    y = x + 29\n    return y\n',
    '(pg, a comment, then ) = v': b'import torch.distributed as dist\nfrom typing import Optional\n\ndef use(a, b):\n    (pg  # the group\n     ) = dist.new_group()\n    pg._allgather_base(a, b)\n\ndef pad0(x):\n    y = x + 0\n    return y\n\ndef pad1(x):\n    y = x + 1\n    return y\n\ndef pad2(x):\n    y = x + 2\n    return y\n\ndef pad3(x):\n    y = x + 3\n    return y\n\ndef pad4(x):\n    y = x + 4\n    return y\n\ndef pad5(x):\n    y = x + 5\n    return y\n\ndef pad6(x):\n    y = x + 6\n    return y\n\ndef pad7(x):\n    y = x + 7\n    return y\n\ndef pad8(x):\n    y = x + 8\n    return y\n\ndef pad9(x):\n    y = x + 9\n    return y\n\ndef pad10(x):\n    y = x + 10\n    return y\n\ndef pad11(x):\n    y = x + 11\n    return y\n\ndef pad12(x):\n    y = x + 12\n    return y\n\ndef pad13(x):\n    y = x + 13\n    return y\n\ndef pad14(x):\n    y = x + 14\n    return y\n\ndef pad15(x):\n    y = x + 15\n    return y\n\ndef pad16(x):\n    y = x + 16\n    return y\n\ndef pad17(x):\n    y = x + 17\n    return y\n\ndef pad18(x):\n    y = x + 18\n    return y\n\ndef pad19(x):\n    y = x + 19\n    return y\n\ndef pad20(x):\n    y = x + 20\n    return y\n\ndef pad21(x):\n    y = x + 21\n    return y\n\ndef pad22(x):\n    y = x + 22\n    return y\n\ndef pad23(x):\n    y = x + 23\n    return y\n\ndef pad24(x):\n    y = x + 24\n    return y\n\ndef pad25(x):\n    y = x + 25\n    return y\n\ndef pad26(x):\n    y = x + 26\n    return y\n\ndef pad27(x):\n    y = x + 27\n    return y\n\ndef pad28(x):\n    y = x + 28\n    return y\n\ndef pad29(x):\n    y = x + 29\n    return y\n',
    '(self.pg then ) = v below': b'import torch.distributed as dist\nfrom typing import Optional\n\nclass W:\n    def setup(self):\n        (self.pg\n         ) = dist.new_group()\n    def use(self, a, b):\n        self.pg._allgather_base(a, b)\n\ndef pad0(x):\n    y = x + 0\n    return y\n\ndef pad1(x):\n    y = x + 1\n    return y\n\ndef pad2(x):\n    y = x + 2\n    return y\n\ndef pad3(x):\n    y = x + 3\n    return y\n\ndef pad4(x):\n    y = x + 4\n    return y\n\ndef pad5(x):\n    y = x + 5\n    return y\n\ndef pad6(x):\n    y = x + 6\n    return y\n\ndef pad7(x):\n    y = x + 7\n    return y\n\ndef pad8(x):\n    y = x + 8\n    return y\n\ndef pad9(x):\n    y = x + 9\n    return y\n\ndef pad10(x):\n    y = x + 10\n    return y\n\ndef pad11(x):\n    y = x + 11\n    return y\n\ndef pad12(x):\n    y = x + 12\n    return y\n\ndef pad13(x):\n    y = x + 13\n    return y\n\ndef pad14(x):\n    y = x + 14\n    return y\n\ndef pad15(x):\n    y = x + 15\n    return y\n\ndef pad16(x):\n    y = x + 16\n    return y\n\ndef pad17(x):\n    y = x + 17\n    return y\n\ndef pad18(x):\n    y = x + 18\n    return y\n\ndef pad19(x):\n    y = x + 19\n    return y\n\ndef pad20(x):\n    y = x + 20\n    return y\n\ndef pad21(x):\n    y = x + 21\n    return y\n\ndef pad22(x):\n    y = x + 22\n    return y\n\ndef pad23(x):\n    y = x + 23\n    return y\n\ndef pad24(x):\n    y = x + 24\n    return y\n\ndef pad25(x):\n    y = x + 25\n    return y\n\ndef pad26(x):\n    y = x + 26\n    return y\n\ndef pad27(x):\n    y = x + 27\n    return y\n\ndef pad28(x):\n    y = x + 28\n    return y\n\ndef pad29(x):\n    y = x + 29\n    return y\n',
    '(self).pg = v': b'\nimport torch.distributed as dist\nclass W:\n    def setup(self):\n        (self).pg = dist.new_group()\n    def use(self, a, b):\n        self.pg._allgather_base(a, b)\n\ndef pad0(x):\n    y = x + 0\n    return y\n\ndef pad1(x):\n    y = x + 1\n    return y\n\ndef pad2(x):\n    y = x + 2\n    return y\n\ndef pad3(x):\n    y = x + 3\n    return y\n\ndef pad4(x):\n    y = x + 4\n    return y\n\ndef pad5(x):\n    y = x + 5\n    return y\n\ndef pad6(x):\n    y = x + 6\n    return y\n\ndef pad7(x):\n    y = x + 7\n    return y\n\ndef pad8(x):\n    y = x + 8\n    return y\n\ndef pad9(x):\n    y = x + 9\n    return y\n\ndef pad10(x):\n    y = x + 10\n    return y\n\ndef pad11(x):\n    y = x + 11\n    return y\n\ndef pad12(x):\n    y = x + 12\n    return y\n\ndef pad13(x):\n    y = x + 13\n    return y\n\ndef pad14(x):\n    y = x + 14\n    return y\n\ndef pad15(x):\n    y = x + 15\n    return y\n\ndef pad16(x):\n    y = x + 16\n    return y\n\ndef pad17(x):\n    y = x + 17\n    return y\n\ndef pad18(x):\n    y = x + 18\n    return y\n\ndef pad19(x):\n    y = x + 19\n    return y\n\ndef pad20(x):\n    y = x + 20\n    return y\n\ndef pad21(x):\n    y = x + 21\n    return y\n\ndef pad22(x):\n    y = x + 22\n    return y\n\ndef pad23(x):\n    y = x + 23\n    return y\n\ndef pad24(x):\n    y = x + 24\n    return y\n\ndef pad25(x):\n    y = x + 25\n    return y\n\ndef pad26(x):\n    y = x + 26\n    return y\n\ndef pad27(x):\n    y = x + 27\n    return y\n\ndef pad28(x):\n    y = x + 28\n    return y\n\ndef pad29(x):\n    y = x + 29\n    return y\n',
    '(self).pg = v, past the text': b'\nimport torch.distributed as dist\nclass Z:\n    def other(self):\n        self.pg = dist.new_group()\nclass W:\n    def setup(self):\n        (self).pg = dist.new_group()\n    def use(self, a, b):\n        self.pg._allgather_base(a, b)\n\ndef pad0(x):\n    y = x + 0\n    return y\n\ndef pad1(x):\n    y = x + 1\n    return y\n\ndef pad2(x):\n    y = x + 2\n    return y\n\ndef pad3(x):\n    y = x + 3\n    return y\n\ndef pad4(x):\n    y = x + 4\n    return y\n\ndef pad5(x):\n    y = x + 5\n    return y\n\ndef pad6(x):\n    y = x + 6\n    return y\n\ndef pad7(x):\n    y = x + 7\n    return y\n\ndef pad8(x):\n    y = x + 8\n    return y\n\ndef pad9(x):\n    y = x + 9\n    return y\n\ndef pad10(x):\n    y = x + 10\n    return y\n\ndef pad11(x):\n    y = x + 11\n    return y\n\ndef pad12(x):\n    y = x + 12\n    return y\n\ndef pad13(x):\n    y = x + 13\n    return y\n\ndef pad14(x):\n    y = x + 14\n    return y\n\ndef pad15(x):\n    y = x + 15\n    return y\n\ndef pad16(x):\n    y = x + 16\n    return y\n\ndef pad17(x):\n    y = x + 17\n    return y\n\ndef pad18(x):\n    y = x + 18\n    return y\n\ndef pad19(x):\n    y = x + 19\n    return y\n\ndef pad20(x):\n    y = x + 20\n    return y\n\ndef pad21(x):\n    y = x + 21\n    return y\n\ndef pad22(x):\n    y = x + 22\n    return y\n\ndef pad23(x):\n    y = x + 23\n    return y\n\ndef pad24(x):\n    y = x + 24\n    return y\n\ndef pad25(x):\n    y = x + 25\n    return y\n\ndef pad26(x):\n    y = x + 26\n    return y\n\ndef pad27(x):\n    y = x + 27\n    return y\n\ndef pad28(x):\n    y = x + 28\n    return y\n\ndef pad29(x):\n    y = x + 29\n    return y\n',
    # Found by the eighth session's third review: the slicer reads names as CPython does, and a
    # string that spells a name keeps the file whole.
    'a non-ASCII name CPython normalises (a variable)': b'import torch.distributed as dist\ndef _q0(a, b):\n    return a + b * 0\n\ndef _q1(a, b):\n    return a + b * 1\n\ndef _q2(a, b):\n    return a + b * 2\n\ndef _q3(a, b):\n    return a + b * 3\n\ndef _q4(a, b):\n    return a + b * 4\n\ndef _q5(a, b):\n    return a + b * 5\n\ndef _q6(a, b):\n    return a + b * 6\n\ndef _q7(a, b):\n    return a + b * 7\n\ndef _q8(a, b):\n    return a + b * 8\n\ndef _q9(a, b):\n    return a + b * 9\n\ndef _q10(a, b):\n    return a + b * 10\n\ndef _q11(a, b):\n    return a + b * 11\n\ndef _q12(a, b):\n    return a + b * 12\n\ndef _q13(a, b):\n    return a + b * 13\n\ndef _q14(a, b):\n    return a + b * 14\n\ndef _q15(a, b):\n    return a + b * 15\n\ndef _q16(a, b):\n    return a + b * 16\n\ndef _q17(a, b):\n    return a + b * 17\n\ndef _q18(a, b):\n    return a + b * 18\n\ndef _q19(a, b):\n    return a + b * 19\n\ndef _q20(a, b):\n    return a + b * 20\n\ndef _q21(a, b):\n    return a + b * 21\n\ndef _q22(a, b):\n    return a + b * 22\n\ndef _q23(a, b):\n    return a + b * 23\n\ndef _q24(a, b):\n    return a + b * 24\n\ndef _q25(a, b):\n    return a + b * 25\n\ndef _q26(a, b):\n    return a + b * 26\n\ndef _q27(a, b):\n    return a + b * 27\n\ndef _q28(a, b):\n    return a + b * 28\n\ndef _q29(a, b):\n    return a + b * 29\n\n\xef\xbd\x90g = dist.new_group()\n\xef\xbd\x90g._allgather_base(1)\n',
    'a normalised function name': b'import torch.distributed as dist\ndef _q0(a, b):\n    return a + b * 0\n\ndef _q1(a, b):\n    return a + b * 1\n\ndef _q2(a, b):\n    return a + b * 2\n\ndef _q3(a, b):\n    return a + b * 3\n\ndef _q4(a, b):\n    return a + b * 4\n\ndef _q5(a, b):\n    return a + b * 5\n\ndef _q6(a, b):\n    return a + b * 6\n\ndef _q7(a, b):\n    return a + b * 7\n\ndef _q8(a, b):\n    return a + b * 8\n\ndef _q9(a, b):\n    return a + b * 9\n\ndef _q10(a, b):\n    return a + b * 10\n\ndef _q11(a, b):\n    return a + b * 11\n\ndef _q12(a, b):\n    return a + b * 12\n\ndef _q13(a, b):\n    return a + b * 13\n\ndef _q14(a, b):\n    return a + b * 14\n\ndef _q15(a, b):\n    return a + b * 15\n\ndef _q16(a, b):\n    return a + b * 16\n\ndef _q17(a, b):\n    return a + b * 17\n\ndef _q18(a, b):\n    return a + b * 18\n\ndef _q19(a, b):\n    return a + b * 19\n\ndef _q20(a, b):\n    return a + b * 20\n\ndef _q21(a, b):\n    return a + b * 21\n\ndef _q22(a, b):\n    return a + b * 22\n\ndef _q23(a, b):\n    return a + b * 23\n\ndef _q24(a, b):\n    return a + b * 24\n\ndef _q25(a, b):\n    return a + b * 25\n\ndef _q26(a, b):\n    return a + b * 26\n\ndef _q27(a, b):\n    return a + b * 27\n\ndef _q28(a, b):\n    return a + b * 28\n\ndef _q29(a, b):\n    return a + b * 29\n\ndef \xef\xbd\x8dk():\n    return dist.new_group()\n\n\xef\xbd\x8dk()._allgather_base(1)\n',
    'a normalised self attribute': b'import torch.distributed as dist\ndef _q0(a, b):\n    return a + b * 0\n\ndef _q1(a, b):\n    return a + b * 1\n\ndef _q2(a, b):\n    return a + b * 2\n\ndef _q3(a, b):\n    return a + b * 3\n\ndef _q4(a, b):\n    return a + b * 4\n\ndef _q5(a, b):\n    return a + b * 5\n\ndef _q6(a, b):\n    return a + b * 6\n\ndef _q7(a, b):\n    return a + b * 7\n\ndef _q8(a, b):\n    return a + b * 8\n\ndef _q9(a, b):\n    return a + b * 9\n\ndef _q10(a, b):\n    return a + b * 10\n\ndef _q11(a, b):\n    return a + b * 11\n\ndef _q12(a, b):\n    return a + b * 12\n\ndef _q13(a, b):\n    return a + b * 13\n\ndef _q14(a, b):\n    return a + b * 14\n\ndef _q15(a, b):\n    return a + b * 15\n\ndef _q16(a, b):\n    return a + b * 16\n\ndef _q17(a, b):\n    return a + b * 17\n\ndef _q18(a, b):\n    return a + b * 18\n\ndef _q19(a, b):\n    return a + b * 19\n\ndef _q20(a, b):\n    return a + b * 20\n\ndef _q21(a, b):\n    return a + b * 21\n\ndef _q22(a, b):\n    return a + b * 22\n\ndef _q23(a, b):\n    return a + b * 23\n\ndef _q24(a, b):\n    return a + b * 24\n\ndef _q25(a, b):\n    return a + b * 25\n\ndef _q26(a, b):\n    return a + b * 26\n\ndef _q27(a, b):\n    return a + b * 27\n\ndef _q28(a, b):\n    return a + b * 28\n\ndef _q29(a, b):\n    return a + b * 29\n\nclass A:\n    def __init__(self):\n        self.\xef\xbd\x90g = dist.new_group()\n\n    def go(self):\n        return self.\xef\xbd\x90g._allgather_base(1)\n',
    'a normalised import name': b'from torch.distributed import new_group as \xef\xbd\x8eg\ndef _q0(a, b):\n    return a + b * 0\n\ndef _q1(a, b):\n    return a + b * 1\n\ndef _q2(a, b):\n    return a + b * 2\n\ndef _q3(a, b):\n    return a + b * 3\n\ndef _q4(a, b):\n    return a + b * 4\n\ndef _q5(a, b):\n    return a + b * 5\n\ndef _q6(a, b):\n    return a + b * 6\n\ndef _q7(a, b):\n    return a + b * 7\n\ndef _q8(a, b):\n    return a + b * 8\n\ndef _q9(a, b):\n    return a + b * 9\n\ndef _q10(a, b):\n    return a + b * 10\n\ndef _q11(a, b):\n    return a + b * 11\n\ndef _q12(a, b):\n    return a + b * 12\n\ndef _q13(a, b):\n    return a + b * 13\n\ndef _q14(a, b):\n    return a + b * 14\n\ndef _q15(a, b):\n    return a + b * 15\n\ndef _q16(a, b):\n    return a + b * 16\n\ndef _q17(a, b):\n    return a + b * 17\n\ndef _q18(a, b):\n    return a + b * 18\n\ndef _q19(a, b):\n    return a + b * 19\n\ndef _q20(a, b):\n    return a + b * 20\n\ndef _q21(a, b):\n    return a + b * 21\n\ndef _q22(a, b):\n    return a + b * 22\n\ndef _q23(a, b):\n    return a + b * 23\n\ndef _q24(a, b):\n    return a + b * 24\n\ndef _q25(a, b):\n    return a + b * 25\n\ndef _q26(a, b):\n    return a + b * 26\n\ndef _q27(a, b):\n    return a + b * 27\n\ndef _q28(a, b):\n    return a + b * 28\n\ndef _q29(a, b):\n    return a + b * 29\n\n\xef\xbd\x8eg()._allgather_base(1)\n',
    'a normalised type alias': b'from torch.distributed import ProcessGroup as \xef\xbc\xb0G\ndef _q0(a, b):\n    return a + b * 0\n\ndef _q1(a, b):\n    return a + b * 1\n\ndef _q2(a, b):\n    return a + b * 2\n\ndef _q3(a, b):\n    return a + b * 3\n\ndef _q4(a, b):\n    return a + b * 4\n\ndef _q5(a, b):\n    return a + b * 5\n\ndef _q6(a, b):\n    return a + b * 6\n\ndef _q7(a, b):\n    return a + b * 7\n\ndef _q8(a, b):\n    return a + b * 8\n\ndef _q9(a, b):\n    return a + b * 9\n\ndef _q10(a, b):\n    return a + b * 10\n\ndef _q11(a, b):\n    return a + b * 11\n\ndef _q12(a, b):\n    return a + b * 12\n\ndef _q13(a, b):\n    return a + b * 13\n\ndef _q14(a, b):\n    return a + b * 14\n\ndef _q15(a, b):\n    return a + b * 15\n\ndef _q16(a, b):\n    return a + b * 16\n\ndef _q17(a, b):\n    return a + b * 17\n\ndef _q18(a, b):\n    return a + b * 18\n\ndef _q19(a, b):\n    return a + b * 19\n\ndef _q20(a, b):\n    return a + b * 20\n\ndef _q21(a, b):\n    return a + b * 21\n\ndef _q22(a, b):\n    return a + b * 22\n\ndef _q23(a, b):\n    return a + b * 23\n\ndef _q24(a, b):\n    return a + b * 24\n\ndef _q25(a, b):\n    return a + b * 25\n\ndef _q26(a, b):\n    return a + b * 26\n\ndef _q27(a, b):\n    return a + b * 27\n\ndef _q28(a, b):\n    return a + b * 28\n\ndef _q29(a, b):\n    return a + b * 29\n\ndef f(x: \xef\xbc\xb0G):\n    return x._allgather_base(1)\n',
    'an escaped alias in a string annotation': b'from torch.distributed import ProcessGroup as PG\ndef _q0(a, b):\n    return a + b * 0\n\ndef _q1(a, b):\n    return a + b * 1\n\ndef _q2(a, b):\n    return a + b * 2\n\ndef _q3(a, b):\n    return a + b * 3\n\ndef _q4(a, b):\n    return a + b * 4\n\ndef _q5(a, b):\n    return a + b * 5\n\ndef _q6(a, b):\n    return a + b * 6\n\ndef _q7(a, b):\n    return a + b * 7\n\ndef _q8(a, b):\n    return a + b * 8\n\ndef _q9(a, b):\n    return a + b * 9\n\ndef _q10(a, b):\n    return a + b * 10\n\ndef _q11(a, b):\n    return a + b * 11\n\ndef _q12(a, b):\n    return a + b * 12\n\ndef _q13(a, b):\n    return a + b * 13\n\ndef _q14(a, b):\n    return a + b * 14\n\ndef _q15(a, b):\n    return a + b * 15\n\ndef _q16(a, b):\n    return a + b * 16\n\ndef _q17(a, b):\n    return a + b * 17\n\ndef _q18(a, b):\n    return a + b * 18\n\ndef _q19(a, b):\n    return a + b * 19\n\ndef _q20(a, b):\n    return a + b * 20\n\ndef _q21(a, b):\n    return a + b * 21\n\ndef _q22(a, b):\n    return a + b * 22\n\ndef _q23(a, b):\n    return a + b * 23\n\ndef _q24(a, b):\n    return a + b * 24\n\ndef _q25(a, b):\n    return a + b * 25\n\ndef _q26(a, b):\n    return a + b * 26\n\ndef _q27(a, b):\n    return a + b * 27\n\ndef _q28(a, b):\n    return a + b * 28\n\ndef _q29(a, b):\n    return a + b * 29\n\ndef f(x: "\\x50G"):\n    return x._allgather_base(1)\n',
    'an escaped alias annotating self.pg': b'from torch.distributed import ProcessGroup as PG\ndef _q0(a, b):\n    return a + b * 0\n\ndef _q1(a, b):\n    return a + b * 1\n\ndef _q2(a, b):\n    return a + b * 2\n\ndef _q3(a, b):\n    return a + b * 3\n\ndef _q4(a, b):\n    return a + b * 4\n\ndef _q5(a, b):\n    return a + b * 5\n\ndef _q6(a, b):\n    return a + b * 6\n\ndef _q7(a, b):\n    return a + b * 7\n\ndef _q8(a, b):\n    return a + b * 8\n\ndef _q9(a, b):\n    return a + b * 9\n\ndef _q10(a, b):\n    return a + b * 10\n\ndef _q11(a, b):\n    return a + b * 11\n\ndef _q12(a, b):\n    return a + b * 12\n\ndef _q13(a, b):\n    return a + b * 13\n\ndef _q14(a, b):\n    return a + b * 14\n\ndef _q15(a, b):\n    return a + b * 15\n\ndef _q16(a, b):\n    return a + b * 16\n\ndef _q17(a, b):\n    return a + b * 17\n\ndef _q18(a, b):\n    return a + b * 18\n\ndef _q19(a, b):\n    return a + b * 19\n\ndef _q20(a, b):\n    return a + b * 20\n\ndef _q21(a, b):\n    return a + b * 21\n\ndef _q22(a, b):\n    return a + b * 22\n\ndef _q23(a, b):\n    return a + b * 23\n\ndef _q24(a, b):\n    return a + b * 24\n\ndef _q25(a, b):\n    return a + b * 25\n\ndef _q26(a, b):\n    return a + b * 26\n\ndef _q27(a, b):\n    return a + b * 27\n\ndef _q28(a, b):\n    return a + b * 28\n\ndef _q29(a, b):\n    return a + b * 29\n\nclass A:\n    def __init__(self, y):\n        self.pg: "\\x50G" = y\n\n    def go(self):\n        return self.pg._allgather_base(1)\n',
}


def test_shapes_a_review_found_are_let_through():
    for name, data in REVIEWED.items():
        expected = check_source(data, "case.py", WHOLE).findings
        assert expected, f"{name}: the case should have a finding"
        assert check_source(data, "case.py", FILTERED).findings == expected, name


def test_a_lone_carriage_return_ends_a_comment():
    # CPython ends a line, and a comment, at a lone `\r`: what follows it is code. (Where the
    # finding is placed differs with and without the prefilters: see the README's decision on
    # lone carriage returns.)
    data = b'import torch\n# note\rtorch._dynamo.reset()\n'
    assert TEXT.search(data)
    assert check_source(data, "case.py", Context.build(load_catalog(), Settings())).findings


def test_a_string_getattr_reads_is_private_in_either_quote_or_escaped_not_a_dunder():
    # The text looks for a quote then `_` (or `\`) with `bytes.find`, not a pattern tried at
    # every byte: both quotes, an escape, and not the rest of a dunder (`"__init__"`).
    head = b"import torch.distributed as dist\npg = dist.new_group()\n"
    for call in (b'fn = getattr(pg, "_allgather_base")\n', b"fn = getattr(pg, '_allgather_base')\n",
                 b"fn = getattr(pg, '\\x5fallgather_base')\n", b'fn = getattr(pg, "\\x5fallgather_base")\n'):
        assert TEXT.search(head + call), call
    for call in (b'fn = getattr(pg, "__init__")\n', b"fn = getattr(pg, '__class__', None)\n"):
        assert not TEXT.search(head + call), call
    # With no private name in the file, a cast types nothing the text must follow.
    assert not TEXT.search(b"from typing import cast\nm = cast('DeviceMesh', y)\nf = getattr(m, '__init__')\n")


def test_a_name_many_receivers_come_from_is_looked_at_once():
    # Forty receivers whose values all come from one untyped chain: each receiver is a question,
    # and the names they share are answered once, so the bound on questions (which would pass
    # the file on as "maybe") is not reached and the file is judged.
    data = b"import torch\ncfg = load()\n" + b"".join(b"a%d = cfg.x\na%d._p\n" % (i, i) for i in range(40))
    assert not TEXT.search(data)


# Pieces of programs that put private names in prose and in code side by side: the reports
# with and without the prefilters must agree on every mix (prose.py reads the prose).
PROSE_PIECES = [
    '"""Uses dist._world and mesh._flatten()."""',
    "x = 'a'  # dist._world, mesh._flatten()",
    "# from torch._C import _x",
    "y = f'{dist._world}'",
    "y = f'{mesh._flatten()}'",
    'h = f"{n:#x}"',
    "z = '''it's # dist._world'''",
    't = """#"b"""  # self.pg._allgather_base',
    "w = 'a\\\n# dist._world'",
    "dist._world",
    "pg = dist.new_group()",
    "pg._allgather_base(a, b)",
    'v = getattr(dist, "_world")',
    '"""getattr(dist, "_world")"""',
]


@st.composite
def prose_programs(draw) -> bytes:
    lines = draw(st.lists(st.sampled_from(PROSE_PIECES), min_size=1, max_size=6))
    return ("import torch.distributed as dist\n" + "\n".join(lines) + "\n").encode()


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(prose_programs())
def test_prose_and_code_side_by_side_report_the_same(data):
    assert check_source(data, "case.py", FILTERED).findings == check_source(data, "case.py", WHOLE).findings
