# FP in run 1 (fixed in run 2): a write to a torch private attribute cannot raise, and the
# one-line wrap was reported twice (target and value).  megatron core/__init__.py:58,
# miles utils/reloadable_process_group.py:81, slime utils/reloadable_process_group.py:255.
import torch
import torch.distributed as dist


def safe_load_from_bytes(b):
    return torch.load(b, weights_only=True)


torch.storage._load_from_bytes = safe_load_from_bytes  # expect: none
dist._coalescing_manager = staticmethod(dist._coalescing_manager)  # expect: PRV x1
