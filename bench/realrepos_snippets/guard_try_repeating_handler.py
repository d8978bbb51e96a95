# Guard bug: a try whose handler repeats the same private access is taken as a guard for the
# version-chosen use in its body: in run 1 neither line was reported, in run 2 only the handler.
# (megatron timers.py:28, utils.py:1277, layers.py:88, ...; there the branch is dead, torch<1.13)
import torch

from helpers import is_torch_min_version

try:
    if is_torch_min_version("2.7"):
        gather = torch.distributed.all_gather_into_tensor
    else:
        gather = torch.distributed._all_gather_base  # expect: PRV001
except Exception:
    gather = torch.distributed._all_gather_base  # expect: PRV303
