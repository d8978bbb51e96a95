# Miss (resolution): isinstance narrowing to a torch class other than DeviceMesh.
# Expected: both lines.  (torchtitan distributed/cudagraph.py:51, :87, :118)
from torch.nn.attention.flex_attention import BlockMask


def split(leaf):
    if not isinstance(leaf, BlockMask):
        return None
    leaves, ctx = leaf._flatten()  # expect: PRV
    return BlockMask._unflatten(leaves, ctx)  # expect: PRV
