"""Fix planners, one module per template; each registers itself (privlint.fix.model.register)."""
