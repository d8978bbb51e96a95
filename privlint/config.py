"""Settings: `[tool.privlint]` in the nearest pyproject.toml, or a --config file, plus flags.

Unknown keys and wrong types are errors naming the file and the key, never ignored.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from privlint._toml import TOMLDecodeError, load_toml
from privlint.errors import ConfigError

_LIST_KEYS = ("select", "ignore", "extend-select", "exclude", "extend-rules")
_KNOWN_KEYS = set(_LIST_KEYS) | {"per-file-ignores", "target-torch", "verify"}


@dataclass
class Settings:
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    extend_rules: list[Path] = field(default_factory=list)
    target_torch: str | None = None  # a specifier such as ">=2.6,<2.12"
    target_label: str = ""            # how the user wrote it, for messages
    project_root: Path = field(default_factory=Path.cwd)
    source: Path | None = None
    verify_torch: list[str] = field(default_factory=list)  # [tool.privlint.verify] torch


def _read(path: Path) -> dict[str, Any]:
    try:
        return load_toml(path)
    except TOMLDecodeError as exc:
        raise ConfigError(f"malformed TOML: {exc}", path=str(path)) from None
    except OSError as exc:
        raise ConfigError(f"cannot read config: {exc.strerror or exc}", path=str(path)) from None


def _privlint_table(path: Path, data: dict[str, Any]) -> dict[str, Any] | None:
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        table = tool.get("privlint") if isinstance(tool, dict) else None
        if table is not None and not isinstance(table, dict):
            raise ConfigError("expected a table", path=str(path), key="tool.privlint")
        return table
    return data  # a standalone privlint.toml holds the keys at top level


def _torch_requirement(data: dict[str, Any]) -> str | None:
    from privlint.versions import torch_requirement_specifier

    project = data.get("project")
    if not isinstance(project, dict):
        return None
    requirements = list(project.get("dependencies") or [])
    for extra in (project.get("optional-dependencies") or {}).values():
        requirements.extend(extra or [])
    for requirement in requirements:
        if isinstance(requirement, str):
            spec = torch_requirement_specifier(requirement)
            if spec is not None:
                return spec
    return None


def find_config(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.privlint] table, else the nearest pyproject.toml."""
    start = start.resolve()
    directory = start if start.is_dir() else start.parent
    first = None
    for candidate_dir in (directory, *directory.parents):
        candidate = candidate_dir / "pyproject.toml"
        if candidate.is_file():
            first = first or candidate
            try:
                data = load_toml(candidate)
            except (TOMLDecodeError, OSError):
                return candidate  # let load_settings report it with its name
            if isinstance(data.get("tool"), dict) and "privlint" in data["tool"]:
                return candidate
    return first


def load_settings(config: Path | None, start: Path) -> Settings:
    path = config if config is not None else find_config(start)
    settings = Settings()
    if path is None:
        return settings
    if config is not None and not path.is_file():
        raise ConfigError("config file not found", path=str(path))
    data = _read(path)
    settings.source = path
    settings.project_root = path.resolve().parent
    prefix = "tool.privlint." if path.name == "pyproject.toml" else ""
    table = _privlint_table(path, data) or {}
    for key, value in table.items():
        where = prefix + key
        if key not in _KNOWN_KEYS:
            raise ConfigError(f"unknown key (known: {', '.join(sorted(_KNOWN_KEYS))})",
                              path=str(path), key=where)
        if key in _LIST_KEYS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError("expected a list of strings", path=str(path), key=where)
        elif key == "per-file-ignores":
            if not isinstance(value, dict) or not all(
                    isinstance(v, list) and all(isinstance(c, str) for c in v) for v in value.values()):
                raise ConfigError("expected a table of pattern = [codes]", path=str(path), key=where)
        elif key == "target-torch" and not isinstance(value, str):
            raise ConfigError("expected a version specifier string such as \">=2.6\"",
                              path=str(path), key=where)
    settings.verify_torch = _verify_table(table.get("verify"), path, prefix, settings.project_root)
    settings.select = table.get("select")
    settings.ignore = list(table.get("ignore", []))
    settings.extend_select = list(table.get("extend-select", []))
    settings.exclude = list(table.get("exclude", []))
    settings.per_file_ignores = dict(table.get("per-file-ignores", {}))
    settings.extend_rules = [(settings.project_root / p) for p in table.get("extend-rules", [])]
    if "target-torch" in table:
        settings.target_torch = table["target-torch"]
        settings.target_label = f"torch{table['target-torch']}"
    else:
        requirement = _torch_requirement(data) if path.name == "pyproject.toml" else None
        if requirement is not None:
            settings.target_torch = requirement
            settings.target_label = f"torch{requirement}" if requirement else "torch"
    return settings


def _verify_table(value: Any, path: Path, prefix: str, root: Path) -> list[str]:
    """[tool.privlint.verify]: `torch = ["2.4.1", "2.13.0"]`, the builds `privlint verify` runs
    on; an entry that is a path (an environment) is relative to the config's directory."""
    if value is None:
        return []
    where = prefix + "verify"
    if not isinstance(value, dict):
        raise ConfigError("expected a table", path=str(path), key=where)
    for key in value:
        if key != "torch":
            raise ConfigError("unknown key (known: torch)", path=str(path), key=f"{where}.{key}")
    builds = value.get("torch", [])
    if not isinstance(builds, list) or not all(isinstance(b, str) for b in builds):
        raise ConfigError('expected a list of torch versions or environments, e.g. ["2.4.1"]',
                          path=str(path), key=f"{where}.torch")
    return [str(root / b) if b.startswith(".") or "/" in b else b for b in builds]


# -- rule selection (ruff's semantics: the most specific selector wins, ignore wins ties) ---

def selector_matches(selector: str, code: str) -> bool:
    return selector == "ALL" or code.startswith(selector)


def _specificity(selector: str) -> int:
    return 0 if selector == "ALL" else len(selector)


@dataclass
class Selection:
    positive: list[str]
    negative: list[str]

    @classmethod
    def from_settings(cls, settings: Settings) -> "Selection":
        return cls((settings.select if settings.select is not None else ["ALL"])
                   + settings.extend_select, list(settings.ignore))

    def enabled(self, code: str, on_by_default: bool, extra_ignores: list[str] = ()) -> bool:
        best, verdict = -1, False
        for selector in self.positive:
            if selector_matches(selector, code) and _specificity(selector) > best:
                best, verdict = _specificity(selector), True
        for selector in [*self.negative, *extra_ignores]:
            if selector_matches(selector, code) and _specificity(selector) >= best:
                best, verdict = _specificity(selector), False
        # Off-by-default rules need a selector more specific than `PRV`/`ALL`: `PRV8`, `PRV801`.
        return verdict and (on_by_default or best > len("PRV"))


def validate_selectors(settings: Settings, codes: set[str], flags: dict[str, list[str]]) -> None:
    """Every selector must name a rule or a prefix of one; otherwise exit 2 naming it."""
    where = str(settings.source) if settings.source else "command line"
    groups = {"select": settings.select or [], "ignore": settings.ignore,
              "extend-select": settings.extend_select}
    groups.update({f"per-file-ignores.{k}": v for k, v in settings.per_file_ignores.items()})
    groups.update(flags)
    for key, selectors in groups.items():
        for selector in selectors:
            if selector != "ALL" and not any(code.startswith(selector) for code in codes):
                raise ConfigError(f"unknown rule selector {selector!r}", path=where, key=key)


def per_file_ignores(settings: Settings, relative: str) -> list[str]:
    name = relative.rsplit("/", 1)[-1]
    ignored: list[str] = []
    for pattern, codes in settings.per_file_ignores.items():
        if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(name, pattern) \
                or fnmatch.fnmatch(relative, pattern.rstrip("/") + "/*"):
            ignored.extend(codes)
    return ignored
