# Classes from the earlier audit, kept as regression checks (all passed at 10:44).
try:
    from torch.distributed._tensor import DTensor
except ImportError:
    DTensor = None


def later_unguarded_import():
    from torch.distributed._tensor import DTensor  # expect: PRV201

    return DTensor
