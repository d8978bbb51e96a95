# Classes from the earlier audit, kept as regression checks (all passed at 10:44).
from unittest.mock import MagicMock, Mock

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import DeviceMesh

torch.nn.Module._privlint_tag = "set by the project"


def own_attribute(m: torch.nn.Module):
    return m._privlint_tag  # expect: none


def mocks():
    mesh = Mock()
    mesh._flatten("a")  # expect: none
    m2 = MagicMock(spec=DeviceMesh)
    return m2._unflatten(0, (2, 4), ("a", "b"))  # expect: none


def created_when_absent():
    if not hasattr(dist, "_pg_map_for_tests"):
        dist._pg_map_for_tests = {}
    return dist._pg_map_for_tests  # expect: none


HAS = "_coalescing_manager" in dir(dist)


def dir_probe():
    if HAS:
        return dist._coalescing_manager  # expect: none


class FlagOnSelf:
    def __init__(self, mesh):
        self.has_unflatten = hasattr(mesh, "_unflatten")
        self.mesh = mesh

    def g(self):
        if self.has_unflatten:
            return self.mesh._unflatten(0, (2, 2), ("a", "b"))  # expect: none


def supports(mesh):
    return hasattr(mesh, "_unflatten")


def predicate_helper(mesh):
    if supports(mesh):
        return mesh._unflatten(0, (2, 2), ("a", "b"))  # expect: none
