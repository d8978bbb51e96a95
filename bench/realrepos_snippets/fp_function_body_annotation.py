# FP in run 1 (fixed in run 2): an annotation inside a function body is never evaluated
# (no __future__ import needed).  lightning callbacks/stochastic_weight_avg.py:132.
import torch.nn as nn


class SWA:
    def __init__(self):
        self.momenta: dict[nn.modules.batchnorm._BatchNorm, float] = {}  # expect: none
