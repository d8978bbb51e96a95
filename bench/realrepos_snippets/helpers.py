import torch
from packaging.version import Version


def is_torch_min_version(version):
    return Version(torch.__version__) >= Version(version)
