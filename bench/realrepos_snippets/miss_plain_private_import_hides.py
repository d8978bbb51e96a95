# Miss (de-dup): a plain `import torch._x.y` of an uncatalogued module binds `torch`; later
# uncatalogued `torch._other` uses are then dropped.  Seen at 10:40 (run 2): only the import was reported.
# (torchtitan distributed/activation_checkpoint.py:15 hides :49 and :55)
import torch

import torch._functorch.config  # expect: PRV
SAVE = {torch._higher_order_ops.flex_attention}  # expect: PRV
