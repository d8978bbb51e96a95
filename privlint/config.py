"""Settings: `[tool.privlint]` in the nearest pyproject.toml, or a --config file, plus flags.

Unknown keys and values that cannot be used are warnings naming the file and the key, and
are left out; a file that is not valid TOML stops the run (exit 2) naming the file.
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
    target_source: str = ""           # where the range was read, e.g. "pyproject.toml [project.dependencies]"
    project_root: Path = field(default_factory=Path.cwd)
    source: Path | None = None
    warnings: list[str] = field(default_factory=list)  # settings read but not understood
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


def _valid(key: str, value: Any) -> str | None:
    """Why a value of a known key cannot be used, or None when it can."""
    if key in _LIST_KEYS:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            return "expected a list of strings"
    elif key == "per-file-ignores":
        if not isinstance(value, dict) or not all(
                isinstance(v, list) and all(isinstance(c, str) for c in v) for v in value.values()):
            return "expected a table of pattern = [codes]"
    elif key == "target-torch":
        from privlint.versions import parse_specifier

        if not isinstance(value, str):
            return "expected a version specifier string such as \">=2.6\""
        try:
            parse_specifier(value, [])
        except ValueError as exc:
            return str(exc)
    return None


def load_settings(config: Path | None, start: Path, torch_range: bool = True) -> Settings:
    """Settings from a config file. A key or value privlint does not understand is a warning
    (the run goes on without it); only a file that cannot be read at all stops the run.
    `torch_range=False` skips reading the project's torch requirement (only `check` needs it,
    and `probe` must run where privlint's own dependencies are not installed)."""
    path = config if config is not None else find_config(start)
    settings = Settings()
    if path is None:
        if torch_range:
            _read_torch_range(settings, start.resolve() if start.is_dir() else
                              start.resolve().parent, None)
        return settings
    if config is not None and not path.is_file():
        raise ConfigError("config file not found", path=str(path))
    data = _read(path)
    settings.source = path
    settings.project_root = path.resolve().parent
    prefix = "tool.privlint." if path.name == "pyproject.toml" else ""
    table = dict(_privlint_table(path, data) or {})
    for key, value in list(table.items()):
        where = f"{path}: key `{prefix}{key}`"
        if key not in _KNOWN_KEYS:
            settings.warnings.append(f"{where}: unknown key, ignored "
                                     f"(known: {', '.join(sorted(_KNOWN_KEYS))})")
            del table[key]
            continue
        problem = _valid(key, value)
        if problem is not None:
            settings.warnings.append(f"{where}: {problem}; ignored")
            del table[key]
    settings.verify_torch = _verify_table(table.get("verify"), path, prefix, settings.project_root,
                                          settings.warnings)
    settings.select = table.get("select")
    settings.ignore = list(table.get("ignore", []))
    settings.extend_select = list(table.get("extend-select", []))
    settings.exclude = list(table.get("exclude", []))
    settings.per_file_ignores = dict(table.get("per-file-ignores", {}))
    settings.extend_rules = [(settings.project_root / p) for p in table.get("extend-rules", [])]
    if "target-torch" in table:
        settings.target_torch = table["target-torch"]
        settings.target_label = f"torch{table['target-torch']}"
        settings.target_source = f"{path.name} [{prefix}target-torch]" if prefix \
            else f"{path.name} target-torch"
    elif torch_range:
        _read_torch_range(settings, settings.project_root,
                          data if path.name == "pyproject.toml" else None)
    return settings


def _read_torch_range(settings: Settings, root: Path, pyproject: dict[str, Any] | None) -> None:
    from privlint.requirements import find_torch_range

    if pyproject is None and (root / "pyproject.toml").is_file():
        try:
            pyproject = load_toml(root / "pyproject.toml")
        except (TOMLDecodeError, OSError):
            pyproject = None
    found = find_torch_range(root, pyproject)
    settings.warnings.extend(found.warnings)
    if found.range is not None:
        settings.target_torch = found.range.specifier
        settings.target_label = f"torch{found.range.specifier}" if found.range.specifier \
            else "torch (no version range)"
        settings.target_source = found.range.source


def _verify_table(value: Any, path: Path, prefix: str, root: Path,
                  warnings: list[str]) -> list[str]:
    """[tool.privlint.verify]: `torch = ["2.4.1", "2.13.0"]`, the builds `privlint verify` runs
    on; an entry that is a path (an environment) is relative to the config's directory. What
    cannot be read is a warning, like every other setting."""
    if value is None:
        return []
    where = f"{path}: key `{prefix}verify"
    if not isinstance(value, dict):
        warnings.append(f"{where}`: expected a table; ignored")
        return []
    for key in value:
        if key != "torch":
            warnings.append(f"{where}.{key}`: unknown key, ignored (known: torch)")
    builds = value.get("torch", [])
    if not isinstance(builds, list) or not all(isinstance(b, str) for b in builds):
        warnings.append(f'{where}.torch`: expected a list of torch versions or environments, '
                        f'e.g. ["2.4.1"]; ignored')
        return []
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


def _unknown(selector: str, codes: set[str]) -> bool:
    return selector != "ALL" and not any(code.startswith(selector) for code in codes)


def drop_unknown_selectors(settings: Settings, codes: set[str]) -> None:
    """A selector in a config file that names no rule is a warning, and is left out."""
    where = str(settings.source) if settings.source else "config"
    prefix = "tool.privlint." if settings.source and settings.source.name == "pyproject.toml" else ""
    lists = {"select": settings.select, "ignore": settings.ignore,
             "extend-select": settings.extend_select}
    lists.update({f"per-file-ignores.{k}": v for k, v in settings.per_file_ignores.items()})
    for key, selectors in lists.items():
        for selector in list(selectors or []):
            if _unknown(selector, codes):
                settings.warnings.append(f"{where}: key `{prefix}{key}`: unknown rule selector "
                                         f"{selector!r}, ignored")
                selectors.remove(selector)


def validate_flag_selectors(flags: dict[str, list[str]], codes: set[str]) -> None:
    """A selector typed on the command line that names no rule: exit 2, naming the flag."""
    for flag, selectors in flags.items():
        for selector in selectors:
            if _unknown(selector, codes):
                raise ConfigError(f"{flag}: unknown rule selector {selector!r} "
                                  f"(see `privlint rules`)")


def per_file_ignores(settings: Settings, relative: str) -> list[str]:
    name = relative.rsplit("/", 1)[-1]
    ignored: list[str] = []
    for pattern, codes in settings.per_file_ignores.items():
        if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(name, pattern) \
                or fnmatch.fnmatch(relative, pattern.rstrip("/") + "/*"):
            ignored.extend(codes)
    return ignored
