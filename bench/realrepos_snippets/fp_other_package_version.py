# FP in run 1 (fixed in run 2): a version check of ANOTHER package was read as a torch version
# check, giving PRV001 instead of the API's own rule.  verl/__init__.py:94.
import tensordict
from packaging.version import parse

if parse(tensordict.__version__) < parse("0.10.0"):
    from torch._utils import _get_device_module  # expect: PRV420
