# FP (severity/code): a test gated by a version decorator only runs where the API exists, yet the
# use is judged against the whole range (error).  lightning tests/tests_fabric/strategies/
# test_model_parallel.py:123 (`@RunIf(min_torch="2.4")`, PRV210 error "absent before 2.3");
# also megatron tests/unit_tests/test_optimizer.py:1189 (`@pytest.mark.skipif(not is_torch_min_version(...))`).
# Expected: treated like `if torch >= 2.10:` (PRV001), not PRV101 error.
import pytest
import torch
from packaging.version import Version
from torch.distributed.device_mesh import init_device_mesh


@pytest.mark.skipif(Version(torch.__version__) < Version("2.10"), reason="needs DeviceMesh._unflatten")
def test_unflatten():
    mesh = init_device_mesh("cpu", (4,), mesh_dim_names=("w",))
    mesh._unflatten(0, (2, 2), ("a", "b"))  # expect: PRV001
