# Wrong code: a version gate that every supported torch (>=2.6) passes does not choose anything,
# so the use should be judged as a plain private use (PRV900 here), not PRV001.
# megatron training/initialize.py:353 (`assert is_torch_min_version("2.3.0")` under torch>=2.6).
from helpers import is_torch_min_version


def fake_store():
    assert is_torch_min_version("2.3.0"), "needs torch 2.3"
    from torch.testing._internal.distributed.fake_pg import FakeStore  # expect: PRV900

    return FakeStore()
