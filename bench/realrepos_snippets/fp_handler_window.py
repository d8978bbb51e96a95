# FP: the handler runs only where the try body's 2.10+ API is missing, i.e. on 2.6-2.9 here,
# and child_to_root_mapping exists on 2.5-2.9.  Expected: nothing (or a warning).  Seen: PRV133
# error (megatron_fsdp/utils.py:158).
def flattened_names(device_mesh):
    try:
        return list(device_mesh._get_root_mesh()._flatten_mapping)
    except AttributeError:
        from torch.distributed.device_mesh import _mesh_resources

        return [
            child.mesh_dim_names[0]
            for child, root in _mesh_resources.child_to_root_mapping.items()  # expect: none
            if root == device_mesh
        ]
