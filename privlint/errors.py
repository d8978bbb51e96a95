"""Errors that stop a run with exit code 2 (usage, config and rule errors)."""

from __future__ import annotations


class PrivlintError(Exception):
    """A user-facing error: printed as one line, exit code 2."""

    def __init__(self, message: str, *, path: str | None = None, key: str | None = None) -> None:
        self.path = path
        self.key = key
        where = ""
        if path:
            where = f"{path}: "
        if key:
            where += f"key `{key}`: "
        super().__init__(f"{where}{message}")


class ConfigError(PrivlintError):
    """A malformed configuration (pyproject.toml `[tool.privlint]` or --config file)."""


class RuleError(PrivlintError):
    """A malformed rule file in the catalog."""
