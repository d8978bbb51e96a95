# Classes from the earlier audit, kept as regression checks (all passed at 10:44).
from __future__ import annotations

import torch

x = torch.ops.myproj._fused_thing  # expect: none
torch.npu._lazy_init()  # expect: none


def f(m: torch.distributed.device_mesh._MeshEnv) -> torch._C._distributed_c10d.ProcessGroup:  # expect: none
    ...
