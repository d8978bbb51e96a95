"""The runtime companion: `privlint probe` and `privlint verify`. Needs torch (`privlint[runtime]`)."""

from privlint.errors import PrivlintError


def require_torch():
    """Import torch or stop with a message that names the extra to install (exit 2)."""
    try:
        import torch
    except ImportError:
        raise PrivlintError("this command needs PyTorch: pip install 'privlint[runtime]' "
                            "(or pin a build first, e.g. pip install torch==2.13.0)") from None
    return torch
