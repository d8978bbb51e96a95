# Miss (catalog gap): private members of ProcessGroup objects; receivers are an untyped `group`
# parameter, an attribute set from a `dist.ProcessGroup`-annotated parameter, or `self` in a
# ProcessGroup subclass.  megatron nccl_allocator.py:168 (+7), miles utils/test_utils/det_process_group.py:71-282.
import torch
import torch.distributed as dist


def register(pool, group):
    return group._get_backend(torch.device("cuda"))  # expect: PRV


class Wrapper(dist.ProcessGroup):
    def __init__(self, inner: dist.ProcessGroup) -> None:
        super().__init__(inner.rank(), inner.size())
        self._inner = inner
        self._set_default_backend(dist.ProcessGroup.BackendType.CUSTOM)  # expect: PRV

    def gather(self, out, inp, opts):
        return self._inner._allgather_base(out, inp, opts)  # expect: PRV
