# FP: a branch no supported torch (>=2.6) can take is still reported.
# Expected: nothing.  Seen: PRV001 (megatron multi_token_prediction.py:52).
import torch

from helpers import is_torch_min_version

if is_torch_min_version("1.13.0"):
    gather = torch.distributed.all_gather_into_tensor
else:
    gather = torch.distributed._all_gather_base  # expect: none
