"""Receivers and names that come from the project's own modules (read lazily with `ast`)."""

from __future__ import annotations

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
