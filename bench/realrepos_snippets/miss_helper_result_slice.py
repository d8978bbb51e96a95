# Miss: `_flatten` on a slice of a mesh returned by an unannotated helper.
# torchtitan distributed/parallel_dims.py:292 (single-return form): missed in run 1, found in
# run 2, missed again by the tree of 10:50.  The guarded two-return form (the repair privlint
# recommends, moved into a helper) was missed at 10:50 as well.
from torch.distributed.device_mesh import init_device_mesh


def unflatten_mesh(world, names, sizes):
    return world._unflatten(0, sizes, names)  # expect: PRV101


def unflatten_mesh_guarded(world, names, sizes):
    if hasattr(world, "_unflatten"):
        return world._unflatten(0, sizes, names)
    return init_device_mesh("cuda", sizes, mesh_dim_names=names)


def build():
    world = init_device_mesh("cuda", (8,), mesh_dim_names=("world",))
    mesh = unflatten_mesh(world, ("dp", "tp"), (2, 4))
    guarded = unflatten_mesh_guarded(world, ("dp", "tp"), (2, 4))
    a = mesh["dp", "tp"]._flatten("loss_mesh")  # expect: PRV102
    b = guarded["dp", "tp"]._flatten("loss_mesh")  # expect: PRV102
    return a, b
