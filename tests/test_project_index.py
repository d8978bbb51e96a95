"""Receivers and names that come from the project's own modules (read lazily with `ast`)."""

from __future__ import annotations

import pytest
from conftest import run_privlint, write

UTILS = '''
import torch.distributed as dist
from typing import Optional
from torch.distributed.device_mesh import DeviceMesh

__all__ = ["dist", "get_mesh", "maybe_mesh"]


def get_mesh(n) -> DeviceMesh:
    raise NotImplementedError


def maybe_mesh(n) -> "Optional[DeviceMesh]":
    return None


def not_a_mesh(n) -> int:
    return n
'''


def test_names_and_return_types_from_other_modules(project):
    write(project, "pkg/__init__.py", "from .utils import get_mesh\n")
    write(project, "pkg/utils.py", UTILS)
    write(project, "pkg/star.py", '''
from .utils import *

def group():
    return dist.distributed_c10d._get_default_group()
''')
    write(project, "pkg/absolute.py", '''
from pkg.utils import get_mesh, maybe_mesh, not_a_mesh
from pkg import get_mesh as reexported

def layout(n):
    a = get_mesh(n)._flatten("x")
    b = maybe_mesh(n)._layout
    c = not_a_mesh(n)._flatten("y")
    return reexported(n)._flatten("z")
''')
    write(project, "pkg/relative.py", '''
from .utils import dist

def gather(out, inp):
    dist._all_gather_base(out, inp)
''')
    result = run_privlint("check", "--format", "json", cwd=project)
    got = sorted((f["path"], f["line"], f["code"]) for f in result.findings)
    assert got == [
        ("pkg/absolute.py", 5, "PRV102"),
        ("pkg/absolute.py", 6, "PRV111"),
        ("pkg/absolute.py", 8, "PRV102"),
        ("pkg/relative.py", 4, "PRV303"),
        ("pkg/star.py", 4, "PRV301"),
    ], result.stdout


def test_names_the_project_hands_on_survive_both_prefilters(project):
    """`dist` comes from the project's own module by an absolute import, and the file never
    says `torch`: the text prefilter and the `ast` gate must still let it through."""
    write(project, "pkg/__init__.py", "")
    write(project, "pkg/utils.py", "import torch.distributed as dist\n"
                                   "from torch.distributed import ProcessGroup as PG\n")
    write(project, "pkg/gather.py", "from pkg.utils import dist\n\n"
                                    "def gather(out, inp):\n"
                                    "    dist._all_gather_base(out, inp)\n")
    # A base class another module hands on under another name does not type `self`: only a
    # torch type this file names does (what the text prefilter relies on; see detect.py).
    write(project, "pkg/wrapper.py", "from pkg.utils import PG\n\n"
                                     "class Wrapper(PG):\n"
                                     "    def go(self):\n"
                                     "        return self._get_backend_name()\n")
    filtered = run_privlint("check", "--format", "json", "--no-cache", cwd=project)
    unfiltered = run_privlint("check", "--format", "json", "--no-cache", "--no-prefilter",
                              cwd=project)
    got = sorted((f["path"], f["line"], f["code"]) for f in filtered.findings)
    assert got == [("pkg/gather.py", 4, "PRV303")], filtered.stdout
    assert filtered.json == unfiltered.json


def test_the_text_prefilter_asks_the_project_what_an_import_hands_on(project):
    """A name from another module types a receiver only when that module binds it to torch
    (or to a function returning a tracked type): the text prefilter asks the project index
    as the gate does, and lets through exactly the files whose imports may be typed."""
    from privlint.catalog import load_catalog
    from privlint.checker import Context, origin_of
    from privlint.config import Settings

    write(project, "pkg/__init__.py", "")
    write(project, "pkg/utils.py", "import torch.distributed as dist\n")
    write(project, "pkg/plain.py", "dist = object()\n")
    files = {
        "pkg/alias.py": "from .utils import dist as d\n\nd._all_gather_base(o, i)\n",
        "pkg/listed.py": "from .utils import (\n    dist,  # the group\n)\n\ndist._all_gather_base(o, i)\n",
        "pkg/absolute.py": "from pkg.utils import dist\n\ndist._all_gather_base(o, i)\n",
        "pkg/plain_use.py": "from .plain import dist\n\ndist._all_gather_base(o, i)\n",
        "pkg/elsewhere.py": "from transformers import logging\n\nlogging._get_library_root_logger()\n",
        "pkg/renamed.py": "from .plain import dist as utils\n\nutils._all_gather_base(o, i)\n",
        # A relative import in a module outside any package names no module (a real repository
        # crashed the text prefilter with it).
        "loose.py": "from . import dist\n\ndist._all_gather_base(o, i)\n",
    }
    for name, text in files.items():
        write(project, name, text)
    ctx = Context.build(load_catalog(), Settings(project_root=project))
    passed = {name for name in files
              if ctx.relevant.search((project / name).read_bytes(), origin_of(ctx, str(project / name)))}
    assert passed == {"pkg/alias.py", "pkg/listed.py", "pkg/absolute.py"}
    # Without the project (a file on its own), any imported name may be typed.
    assert all(ctx.relevant.search((project / name).read_bytes()) for name in files)
    filtered = run_privlint("check", "--format", "json", "--no-cache", cwd=project)
    unfiltered = run_privlint("check", "--format", "json", "--no-cache", "--no-prefilter",
                              cwd=project)
    got = sorted((f["path"], f["line"]) for f in filtered.findings)
    assert got == [("pkg/absolute.py", 3), ("pkg/alias.py", 3), ("pkg/listed.py", 5)], filtered.stdout
    assert filtered.json == unfiltered.json


def test_calls_through_a_project_module_survive_both_prefilters(project):
    """`utils.make_pg()` where `utils` is the project's module: the resolver asks the project
    what `pkg.utils.make_pg` returns, however the name was bound (a module, a package, a
    re-export). Both prefilters once rejected every such file."""
    write(project, "pkg/__init__.py", "from .utils import make_pg\n")
    make = ("import torch.distributed as dist\nfrom torch.distributed import ProcessGroup\n\n"
            "def make_pg() -> ProcessGroup:\n    return dist.new_group()\n")
    write(project, "pkg/utils.py", make)
    write(project, "pkg/sub/__init__.py", "")
    write(project, "pkg/sub/deep.py", make)
    write(project, "pkg/ns/deep.py", make)
    write(project, "pkg/torch.py", make)  # a module of the project's own named `torch`
    write(project, "pkg/plain.py", "def make_pg():\n    return None\n")
    use = "._allgather_base(a, b)\n"
    files = {
        "pkg/from_package.py": "from pkg import utils\nutils.make_pg()" + use,
        "pkg/relative.py": "from . import utils\nutils.make_pg()" + use,
        "pkg/plain_import.py": "import pkg.utils\npkg.utils.make_pg()" + use,
        "pkg/renamed_import.py": "import pkg.utils as u\nu.make_pg()" + use,
        "pkg/assigned.py": "from pkg import utils\npg = utils.make_pg()\npg" + use,
        "pkg/reexported.py": "from pkg import make_pg\nmake_pg()" + use,
        "pkg/subpackage.py": "from pkg import sub\nsub.deep.make_pg()" + use,
        # A name assigned the module is bound to its path as well (found by a review).
        "pkg/aliased.py": "from pkg import utils\nu = utils\nu.make_pg()" + use,
        "pkg/chosen.py": "from pkg import sub, utils\ndef f(fast, a, b):\n    if fast:\n"
                         "        helpers = sub.deep\n    else:\n        helpers = utils\n"
                         "    helpers.make_pg()" + use,
        # A folder without `__init__.py` is a package too (found by the second review).
        "pkg/namespace.py": "from pkg import ns\nns.deep.make_pg()" + use,
        "pkg/namespace_import.py": "import pkg.ns as n\nn.deep.make_pg()" + use,
        # A value that starts with a call through a name an import of the project binds,
        # however written, or an alias of one: the text prefilter reads it as typed.
        "pkg/assigned_renamed.py": "import pkg.utils as u\npg = u.make_pg()\npg" + use,
        "pkg/assigned_alias.py": "from pkg import utils\nu = utils\npg = u.make_pg()\npg" + use,
        "pkg/assigned_bracketed_alias.py": "from pkg import utils\nu = (utils)\npg = u.make_pg()\npg" + use,
        "pkg/assigned_after_torch.py": "import torch; import pkg.utils as u\npg = u.make_pg()\npg" + use,
        "pkg/assigned_continued.py": "from pkg \\\n    import torch as u\npg = u.make_pg()\npg" + use,
        "pkg/assigned_after_from_torch.py": "from torch import nn; from pkg import utils\n"
                                            "pg = utils.make_pg()\npg" + use,
        "pkg/assigned_self.py": "import pkg.utils as self\npg = self.make_pg()\npg" + use,
        "pkg/self_module.py": "import pkg.utils as self\nself.make_pg()" + use,
        "pkg/cls_module.py": "import pkg.utils as cls\ncls.make_pg()" + use,
        "pkg/assigned_module_named_torch.py": "from pkg import torch as u\npg = u.make_pg()\npg" + use,
        "pkg/untyped_assigned.py": "import torch.nn as nn\npg = nn.Linear(1, 1)\npg" + use,
        "pkg/untyped.py": "from pkg import plain\nplain.make_pg()" + use,
        "pkg/untyped_import.py": "import pkg.plain as p\np.make_pg()" + use,
    }
    for name, text in files.items():
        write(project, name, text)
    filtered = run_privlint("check", "--format", "json", "--no-cache", cwd=project)
    unfiltered = run_privlint("check", "--format", "json", "--no-cache", "--no-prefilter",
                              cwd=project)
    got = sorted(f["path"] for f in filtered.findings)
    assert got == sorted(name for name in files if "untyped" not in name), filtered.stdout
    assert filtered.json == unfiltered.json


TORCH_PACKAGE = {"torch/__init__.py": "", "torch/distributed/__init__.py": ""}
COMPAT = {"pkg/__init__.py": "", "pkg/compat.py": "from torch.distributed import ProcessGroup as PG\n"
                                                  "import torch.distributed as dist\n"}
HELPERS = {"pkg/__init__.py": "", "pkg/helpers.py": "import torch.distributed as dist\n"
                                                   "def make() -> dist.ProcessGroup:\n"
                                                   "    return dist.new_group()\n"}
# Each found in review: what another module binds, or a module of torch's own, types a
# receiver the file itself never names: both prefilters must let the use through.
HANDED_ON_TYPES = {
    "a star import's renamed type, annotating": {
        **COMPAT, "pkg/case.py": "from .compat import *\ndef f(pg: PG):\n    return pg._allgather_base(a, b)\n"},
    "a star import's renamed type, narrowing": {
        **COMPAT, "pkg/case.py": "from .compat import *\ndef f(pg):\n    if isinstance(pg, PG):\n"
                                 "        return pg._allgather_base(a, b)\n"},
    "a star import's renamed type as a base": {
        **COMPAT, "pkg/case.py": "from .compat import *\nclass W(PG):\n    def go(self):\n"
                                 "        return self._allgather_base(a, b)\n"},
    "a star import after other imports": {
        **COMPAT, "pkg/case.py": "import os\nimport sys as importer\nfrom .compat import *\ndef f(pg: PG):\n"
                                 "    return pg._allgather_base(a, b)\n"},
    "a star import's name in getattr": {
        **COMPAT, "pkg/case.py": "from .compat import *\ngather = getattr(dist, '_all_gather_base')\n"},
    "a relative import with spaces": {
        **COMPAT, "pkg/case.py": "from . compat import dist\ndist._all_gather_base(a, b)\n"},
    "a module and a name that are not ASCII": {
        "pkg/__init__.py": "", "pkg/données.py": "import torch.distributed as réseau\n",
        "pkg/case.py": "from .données import réseau\nréseau._all_gather_base(a, b)\n"},
    "inside torch, a renamed type by a relative import": {
        **TORCH_PACKAGE, "torch/distributed/case.py": "from .distributed_c10d import ProcessGroup as PG\n"
                                                      "def f(pg: PG):\n    return pg._allgather_base(a, b)\n"},
    "inside torch, a renamed base by a relative import": {
        **TORCH_PACKAGE, "torch/distributed/case.py": "from .distributed_c10d import ProcessGroup as PG\n"
                                                      "class W(PG):\n    def go(self):\n"
                                                      "        return self._allgather_base(a, b)\n"},
    "inside torch, a relative star import": {
        **TORCH_PACKAGE, "torch/distributed/distributed_c10d.py": "def new_group(ranks=None):\n    pass\n",
        "torch/distributed/case.py": "from .distributed_c10d import *\ndef f(a, b):\n"
                                     "    return new_group()._allgather_base(a, b)\n"},
    # A name a torch import binds to a callee whose call is untyped (`FSDP`), bound again by
    # the project: the call is then as typed as the project's function.
    "a torch callee's name imported again from the project": {
        **HELPERS, "pkg/case.py": "from torch.distributed.fsdp import FullyShardedDataParallel as make\n"
                                  "from .helpers import make\nmake()._allgather_base(a, b)\n"},
    "a torch callee's name a project star import binds again": {
        **HELPERS, "pkg/case.py": "from torch.distributed.fsdp import FullyShardedDataParallel as make\n"
                                  "from .helpers import *\nmake()._allgather_base(a, b)\n"},
}


@pytest.mark.parametrize("name", sorted(HANDED_ON_TYPES))
def test_types_other_modules_hand_on_pass_both_prefilters(name, tmp_path):
    import dataclasses

    from privlint.catalog import load_catalog
    from privlint.checker import Context, check_source
    from privlint.config import Settings

    files = HANDED_ON_TYPES[name]
    for relative, text in files.items():
        write(tmp_path, relative, text)
    case = next(relative for relative in files if relative.endswith("case.py"))
    data = (tmp_path / case).read_bytes()
    catalog = load_catalog()
    # Sliced even where a fix may be planned, as the gate's own tests do.
    filtered = dataclasses.replace(Context.build(catalog, Settings(project_root=tmp_path)), fixable=())
    unfiltered = Context.build(catalog, Settings(project_root=tmp_path), use_prefilter=False)
    expected = check_source(data, str(tmp_path / case), unfiltered).findings
    assert expected, "the case should have a finding"
    assert check_source(data, str(tmp_path / case), filtered).findings == expected


def test_module_names_follow_packages_and_links(tmp_path):
    from privlint.project import module_name

    for relative in ("pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/mod.py", "loose.py"):
        write(tmp_path, relative, "")
    (tmp_path / "link.py").symlink_to(tmp_path / "pkg" / "sub" / "mod.py")
    (tmp_path / "alias").symlink_to(tmp_path / "pkg", target_is_directory=True)
    assert module_name(tmp_path / "pkg" / "sub" / "mod.py") == ("pkg.sub.mod", False)
    assert module_name(tmp_path / "pkg" / "sub" / "__init__.py") == ("pkg.sub", True)
    assert module_name(tmp_path / "loose.py") == ("loose", False)
    # A link is named from where it points, a linked folder from the folder it is.
    assert module_name(tmp_path / "link.py") == ("pkg.sub.mod", False)
    assert module_name(tmp_path / "alias" / "sub" / "mod.py") == ("pkg.sub.mod", False)



def test_calls_through_another_root_are_typed_by_the_project(project):
    # A catalog root of the project's own (extend-rules): a call of a path under it is typed
    # by what the project's function returns, by its name or through its module.
    write(project, "myrules.toml", '[[rule]]\ncode = "PRV991"\nname = "mylib-private"\nkind = "module"\n'
                                   'api = "mylib._impl"\nmessage = "A private module of mylib."\n'
                                   "invalid = ['import mylib._impl  # expect: PRV991']\n")
    (project / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["torch>=2.4"]\n'
                                            '[tool.privlint]\nextend-rules = ["myrules.toml"]\n')
    write(project, "mylib/__init__.py", "")
    write(project, "mylib/core.py", "from torch.distributed.device_mesh import DeviceMesh\n\n"
                                    "def make() -> DeviceMesh:\n    ...\n")
    write(project, "by_name.py", "from mylib.core import make\n\nmesh = make()\nmesh._foo()\n")
    write(project, "by_module.py", "from mylib import core\n\nmesh = core.make()\nmesh._foo()\n")
    filtered = run_privlint("check", "--format", "json", "--no-cache", cwd=project)
    unfiltered = run_privlint("check", "--format", "json", "--no-cache", "--no-prefilter", cwd=project)
    assert sorted((f["path"], f["line"]) for f in unfiltered.findings) == [("by_module.py", 4), ("by_name.py", 4)]
    assert filtered.json == unfiltered.json


def _three_ways(project, *paths: str):
    """`check` with the speed-ups on, with `--no-prefilter` and with `--no-slicing`."""
    return [run_privlint("check", *paths, "--format", "json", "--no-cache", *extra, cwd=project)
            for extra in ((), ("--no-prefilter",), ("--no-slicing",))]


def test_a_private_name_another_module_hands_on_is_a_use_site(project):
    """`_C.foo()` writes a private name, not a private attribute: the detector reports it when
    `_C` is a private torch path another module of the project hands on (or a star import, by
    its `__all__`). The text prefilter, the `ast` gate and the slicer must all keep it."""
    from privlint.catalog import load_catalog
    from privlint.checker import Context, origin_of
    from privlint.config import Settings

    write(project, "pkg/__init__.py", "")
    write(project, "pkg/compat.py", "from torch import _C\n"
                                    "from torch import _C as C\n"
                                    "from torch._C import _foo as _ops\n"
                                    "import torch.distributed as dist\n"
                                    "__all__ = ['_C']\n")
    files = {
        "pkg/direct.py": "from pkg.compat import _C\n_C.foo()\n",
        "pkg/relative.py": "from .compat import _ops\n_ops.bar\n",
        "pkg/renamed.py": "from .compat import C as _C\n_C.foo()\n",
        "pkg/star.py": "from .compat import *\n_C.foo()\n",
        "pkg/aliased.py": "from .compat import _C\n_D = _C\n_D.foo()\n",
        # Found by the second review: a bracket around the head; a public name handed on,
        # then given to a private one (an assignment, a walrus, an annotation, in a function).
        "pkg/bracketed.py": "from .compat import _C\n(_C).foo()\n",
        "pkg/given.py": "from .compat import C\n_D = C\n_D.foo()\n",
        "pkg/walrus.py": "from .compat import C\nif (_D := C):\n    _D.foo()\n",
        "pkg/annotated.py": "from .compat import C\n_D: object = C\n_D.foo()\n",
        "pkg/in_function.py": "from .compat import C\n\ndef f():\n    _D = C\n    return _D.foo()\n",
        # Found by the third review: `from.compat` (no space), for any name it hands on.
        "pkg/unspaced.py": "from.compat import C\n_D = C\n_D.foo()\n",
        "pkg/unspaced_dist.py": "from.compat import dist\ndist._foo_bar()\n",
        # The other candidate lets the file through; `h`, far below, must stay in the slice.
        "pkg/sliced.py": "import torch.distributed as dist\nfrom .compat import _C\n\n"
                         + "".join(f"def helper_{i}(x):\n    return x + {i}\n\n" for i in range(30))
                         + "def g(o, i):\n    dist._all_gather_base(o, i)\n\n"
                           "def h():\n    return _C.foo()\n",
        # Not reported: a public name (`C.foo` writes nothing private), a public path.
        "pkg/public.py": "from .compat import C\nC.foo()\n",
        "pkg/public_path.py": "from .compat import dist as _dist\n_dist.all_reduce(t)\n",
    }
    for name, text in files.items():
        write(project, name, text)
    ctx = Context.build(load_catalog(), Settings(project_root=project))
    passed = {name for name in files
              if ctx.relevant.search((project / name).read_bytes(), origin_of(ctx, str(project / name)))}
    assert passed == set(files) - {"pkg/public.py", "pkg/public_path.py"}
    runs = _three_ways(project)
    got = sorted((f["path"], f["line"], f["api"]) for f in runs[0].findings if f["path"] != "pkg/compat.py")
    assert got == [
        ("pkg/aliased.py", 3, "torch._C.foo"),
        ("pkg/annotated.py", 3, "torch._C.foo"),
        ("pkg/bracketed.py", 2, "torch._C.foo"),
        ("pkg/direct.py", 2, "torch._C.foo"),
        ("pkg/given.py", 3, "torch._C.foo"),
        ("pkg/in_function.py", 5, "torch._C.foo"),
        ("pkg/relative.py", 2, "torch._C._foo.bar"),
        ("pkg/renamed.py", 2, "torch._C.foo"),
        ("pkg/sliced.py", 95, "torch.distributed._all_gather_base"),
        ("pkg/sliced.py", 98, "torch._C.foo"),
        ("pkg/star.py", 2, "torch._C.foo"),
        ("pkg/unspaced.py", 3, "torch._C.foo"),
        ("pkg/unspaced_dist.py", 2, "torch.distributed._foo_bar"),
        ("pkg/walrus.py", 3, "torch._C.foo"),
    ], runs[0].stdout
    assert runs[0].json == runs[1].json == runs[2].json


def test_a_relative_import_inside_torch_hands_on_its_private_module(project):
    """Inside torch's own tree, `from . import _functional_collectives as _fc` binds a private
    torch path no root import names: `_fc.all_reduce(t)` is reported, with the prefilters too."""
    write(project, "torch/__init__.py", "")
    write(project, "torch/distributed/__init__.py", "")
    write(project, "torch/distributed/case.py", "from . import _functional_collectives as _fc\n\n"
                                                "def f(t):\n    return _fc.all_reduce(t)\n")
    write(project, "torch/distributed/given.py", "from . import _functional_collectives as fc\n"
                                                 "_g = fc\n_g.all_reduce(t)\n")
    runs = _three_ways(project, "torch/distributed/case.py", "torch/distributed/given.py")
    assert [(f["path"], f["line"], f["api"]) for f in runs[0].findings] == [
        ("torch/distributed/case.py", 4, "torch.distributed._functional_collectives.all_reduce"),
        ("torch/distributed/given.py", 3, "torch.distributed._functional_collectives.all_reduce"),
    ], runs[0].stdout
    assert runs[0].json == runs[1].json == runs[2].json


def test_a_module_under_another_root_of_the_catalog_is_the_projects(project):
    """A rule file may add a root (`mylib`); the resolver still asks the project what a module
    under it hands on (only torch's own modules are torch's), so the prefilters must too."""
    write(project, "pyproject.toml", '[tool.privlint]\nextend-rules = ["rules.toml"]\n')
    write(project, "rules.toml", '''
        [[rule]]
        code = "PRV991"
        kind = "module"
        api = "mylib._impl"
        message = "A private module of mylib."
        invalid = ['import mylib._impl  # expect: PRV991']
    ''')
    write(project, "mylib/__init__.py", "")
    write(project, "mylib/compat.py", "from torch import _C as C\n")
    write(project, "mylib/absolute.py", "from mylib.compat import C\n_D = C\n_D.foo()\n")
    write(project, "mylib/relative.py", "from .compat import C\n_D = C\n_D.foo()\n")
    write(project, "mylib/star.py", "from mylib.compat import *\n_D = C\n_D.foo()\n")
    runs = _three_ways(project, "mylib/absolute.py", "mylib/relative.py", "mylib/star.py")
    assert [(f["path"], f["line"], f["api"]) for f in runs[0].findings] == [
        ("mylib/absolute.py", 3, "torch._C.foo"), ("mylib/relative.py", 3, "torch._C.foo"),
        ("mylib/star.py", 3, "torch._C.foo")], runs[0].stdout
    assert runs[0].json == runs[1].json == runs[2].json
