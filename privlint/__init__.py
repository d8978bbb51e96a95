"""privlint: find unguarded uses of private PyTorch APIs."""

__version__ = "0.1.0"
