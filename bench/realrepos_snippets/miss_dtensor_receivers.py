# Miss (resolution): DTensor receivers that the final run did not type (the members themselves are
# catalogued since then: PRV342 _spec, PRV343 _local_tensor).  Real sites in the comments.
from typing import cast

import torch
from torch.distributed.tensor import DTensor, Replicate


def conditional_expression(sinks):
    # torchtitan experiments/rl/models/vllm_wrapper.py:426
    return sinks._local_tensor if isinstance(sinks, DTensor) else sinks  # expect: PRV


def assert_narrowing(w):
    # torchtitan models/utils.py:265
    assert isinstance(w, DTensor), "expected a DTensor"
    return w._local_tensor  # expect: PRV


def and_narrowing_with_cast(param):
    # megatron megatron_fsdp/param_and_grad_buffer.py:4945
    if isinstance(param, DTensor) and cast(DTensor, param)._spec.num_shards > 1:  # expect: PRV
        return True
    return False


def cast_in_one_branch(obj):
    # verl third_party/torch/distributed/_state_dict_utils.py:512
    if obj.device != torch.device("cpu"):
        ret = cast(DTensor, obj.to(device="cpu"))
    else:
        ret = obj
    return ret._local_tensor  # expect: PRV


def flag_variable(tensor):
    # megatron core/utils.py:1065
    is_fsdp2 = hasattr(tensor, "is_torch_fsdp2_param") and isinstance(tensor, DTensor)
    if is_fsdp2:
        return tensor._local_tensor  # expect: PRV
    return tensor


def method_result(d: DTensor):
    # megatron transformer/fsdp_dtensor_checkpoint.py:1053
    full = d.redistribute(placements=[Replicate()])
    return full._local_tensor  # expect: PRV
