# Wrong code (seen at 10:40 on megatron training/initialize.py:503-515): an API used in 2 of 3
# branches of a version chain IS chosen by the version check (the first branch does not use it),
# but was reported as plain PRV401.  All three branches are reachable under torch>=2.6.
import torch

from helpers import is_torch_min_version


def set_jit_fusion_options():
    if is_torch_min_version("2.10"):
        pass
    elif is_torch_min_version("2.8"):
        torch._C._jit_set_profiling_executor(True)  # expect: PRV001
    else:
        torch._C._jit_set_profiling_executor(False)  # expect: PRV001
