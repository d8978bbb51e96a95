# Miss (synthetic; no instance in the six repositories): the project's own later assignment of a
# torch private attribute hides the earlier read, which raises where the attribute is absent.
# Seen at 10:40: nothing reported.  (`dist._x = wrap(dist._x)` on one line IS reported.)
import torch.distributed as dist

orig = dist._coalescing_manager  # expect: PRV
dist._coalescing_manager = orig
