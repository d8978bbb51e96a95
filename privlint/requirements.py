"""Where a project says which torch it supports: its own requirement files, read, never run.

The torch range decides a finding's severity (does a release the project supports lack the
API?). Real projects state it in many places, so they are read in this order, and the first
one that names the distribution `torch` wins:

1. `[project]` dependencies in `pyproject.toml`; torch named only in optional-dependencies
   (extras) gives the union of what the extras allow, since one extra's pin is not the range;
2. `[tool.poetry.dependencies]` in `pyproject.toml` (caret and tilde ranges);
3. `requirements*.txt` at the project root, and `requirements/*.txt` (`-r` includes followed);
4. `setup.cfg`: `[options] install_requires` and `[options.extras_require]`;
5. `setup.py`: literal `install_requires=[...]` / `extras_require={...}` (parsed with `ast`;
   a name bound at module level to a literal list is followed; nothing is executed).

Requirements are read with `packaging` (PEP 508: names canonicalised, so `torch_checkpointing`,
`torchvision` and `torch-optimizer` are other distributions). A torch requirement privlint
cannot read is a warning naming the file and the entry, never a stopped run.
"""

from __future__ import annotations

import ast
import configparser
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

_TORCH = "torch"


@dataclass(frozen=True)
class TorchRange:
    """A torch specifier (`">=2.2,<2.12"`; `""` admits every release) and where it was read."""

    specifier: str
    source: str  # e.g. "pyproject.toml [project.dependencies]"


@dataclass
class Found:
    range: TorchRange | None = None
    warnings: list[str] = field(default_factory=list)


def canonicalize_name(name: str) -> str:
    """PEP 503's normal form of a distribution name."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _entry(text: str, where: str, found: Found) -> str | None:
    """The specifier of a torch requirement line, None if the line is not about torch."""
    line = text.strip()
    if not line or line.startswith(("#", "-")):
        return None
    line = re.split(r"\s+#", line, maxsplit=1)[0].strip()
    # A requirement's name is its leading run of name characters: a line whose head is not
    # torch is not about torch, and is not handed to packaging (which compiles a hundred
    # regular expressions on import, a tenth of a pre-commit run).
    head = re.match(r"[A-Za-z0-9._-]+", line)
    if not head or canonicalize_name(head.group(0)) != _TORCH:
        return None
    plain = _plain_specifier(line)
    return plain if plain is not None else _read_requirement(line, text, where, found)


# `torch`, `torch>=2.4,<2.12`: a name and version clauses, without extras, markers or a URL.
# Spaces and tabs only: PEP 508 allows no other whitespace there (`\s` would take a no-break space).
_CLAUSE = r"(?:~=|===|==|!=|<=|>=|<|>)[ \t]*[A-Za-z0-9.*+!_-]+"
_PLAIN = re.compile(r"[A-Za-z0-9._-]+[ \t]*((?:" + _CLAUSE + r"(?:[ \t]*,[ \t]*" + _CLAUSE + r")*)?)")


def _plain_specifier(line: str) -> str | None:
    """The specifier of a requirement that is only a name and version clauses, read by
    packaging's specifier grammar alone: its requirement grammar (markers, extras, URLs) costs
    a third of a pre-commit run's imports. None when the line needs that grammar or is not
    a valid specifier (then `_read_requirement` says why)."""
    match = _PLAIN.fullmatch(line)
    if match is None:
        return None
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    text = match.group(1).strip()
    try:
        SpecifierSet(text)
    except InvalidSpecifier:
        return None
    return text


def _read_requirement(line: str, text: str, where: str, found: Found) -> str | None:
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        requirement = Requirement(line)
    except InvalidRequirement as exc:
        found.warnings.append(f"{where}: cannot read torch requirement {text.strip()!r} ({exc})")
        return None
    # Keep the user's own words ("torch>=2.6,<2.12") where they mean what packaging read.
    written = re.match(r"\s*[A-Za-z0-9._-]+\s*(?:\[[^\]]*\])?\s*\(?([^;@)]*)", line)
    text = written.group(1).strip() if written else ""
    try:
        if SpecifierSet(text) == requirement.specifier:
            return text
    except InvalidSpecifier:
        pass
    return str(requirement.specifier)


def _first_torch(entries: Iterable[Any], where: str, found: Found) -> TorchRange | None:
    """The first torch requirement with a version range; else an unversioned one (`torch`,
    `torch @ URL`), which admits every release."""
    return _first_torch_placed(((entry, where, where) for entry in entries), found)


def _first_torch_placed(entries: Iterable[tuple[Any, str, str]], found: Found) -> TorchRange | None:
    """_first_torch over entries that each say where they were read (a requirements file's
    lines, some from the files it includes), and the file that holds them (what a warning
    about the entry names)."""
    unversioned = None
    for entry, where, holder in entries:
        if not isinstance(entry, str):
            continue
        spec = _entry(entry, holder, found)
        if spec:
            return TorchRange(spec, where)
        if spec is not None and unversioned is None:
            unversioned = TorchRange("", where)
    return unversioned


def _union(ranges: list[TorchRange | None]) -> TorchRange | None:
    """Torch named only in extras: the project supports every range an extra allows.

    One extra's pin (`sglang = ["torch==2.9.1"]`) is not the project's range, so the ranges
    are joined with `||` (any of them), which `versions.parse_specifier` reads as a union.
    An extra that names torch without a range, or only one extra naming torch, says nothing
    of the project's range: then there is none (a one-extra pin is that backend's, not the
    project's), and the caller says so.
    """
    hits = [r for r in ranges if r is not None]
    if len(hits) < 2 or any(not r.specifier for r in hits):
        return None
    unique = list(dict.fromkeys(r.specifier for r in hits))
    return TorchRange(" || ".join(unique), "the union of " + ", ".join(r.source for r in hits))


def _poetry_spec(value: Any) -> str | None:
    """Poetry's `^2.1` / `~2.1` / `>=2.1` / `{version = "..."}` as a PEP 440 specifier."""
    if isinstance(value, dict):
        value = value.get("version")
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text in ("*", ""):
        return ""
    match = re.fullmatch(r"([\^~])\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?", text)
    if match:
        major, minor = int(match.group(2)), int(match.group(3) or 0)
        lower = ".".join(p for p in match.group(2, 3, 4) if p is not None)
        upper = f"{major + 1}.0" if match.group(1) == "^" and major > 0 else f"{major}.{minor + 1}"
        return f">={lower},<{upper}"
    return text


def _from_pyproject(data: dict[str, Any], label: str, found: Found) -> TorchRange | None:
    project = data.get("project")
    if isinstance(project, dict):
        hit = _first_torch(project.get("dependencies") or [], f"{label} [project.dependencies]", found)
        if hit:
            return hit
        extras = project.get("optional-dependencies") or {}
        if isinstance(extras, dict):
            hit = _union([_first_torch(entries or [], f"{label} [project.optional-dependencies.{extra}]",
                                       found) for extra, entries in extras.items()])
            if hit:
                return hit
    poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
    dependencies = poetry.get("dependencies") if isinstance(poetry, dict) else None
    if isinstance(dependencies, dict):
        for name, value in dependencies.items():
            if canonicalize_name(name) == _TORCH:
                where = f"{label} [tool.poetry.dependencies]"
                spec = _poetry_spec(value)
                if spec is None:
                    found.warnings.append(f"{where}: cannot read torch requirement {value!r}")
                    return None
                return _checked(spec, where, found)
    return None


def _checked(spec: str, where: str, found: Found) -> TorchRange | None:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        SpecifierSet(spec)
    except InvalidSpecifier:
        found.warnings.append(f"{where}: cannot read torch requirement {spec!r}")
        return None
    return TorchRange(spec, where)


def _requirement_lines(path: Path, seen: set[Path], root: Path, where: str) -> Iterable[tuple[str, str, str]]:
    """Each line of a requirements file and of the files it includes (`-r`), with where it was
    read (the file that holds it, and the `-r` steps that reached it: a message names the line's
    own file, so that the user finds the torch line where it is) and the file alone."""
    if path in seen or not path.is_file():
        return
    seen.add(path)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    for line in text.splitlines():
        stripped = line.strip()
        include = re.match(r"-(?:r|-requirement)\s*=?\s*(\S+)", stripped)
        if include:
            included = (path.parent / include.group(1)).resolve()
            yield from _requirement_lines(included, seen, root,
                                          f"{_shown(included, root)}, through `-r` from {where}")
        else:
            yield line, where, _shown(path, root)


def _shown(path: Path, root: Path) -> str:
    """A file as messages name it: from the project root where it is under it."""
    try:
        return path.relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _from_requirements_txt(root: Path, found: Found) -> TorchRange | None:
    """The first torch requirement of the requirements files, `requirements.txt` first (another
    file's pin, `requirements/typing.txt`, is not the project's range), each file with the files
    it includes; the file named is the one that holds the line."""
    candidates = sorted(root.glob("requirements*.txt"), key=lambda path: (path.name != "requirements.txt",
                                                                          path.name))
    candidates += sorted(root.glob("requirements/*.txt"))
    read = Found()  # a file included by several is read more than once: each warning said once
    hit = None
    for path in candidates:
        hit = _first_torch_placed(_requirement_lines(path.resolve(), set(), root,
                                                     path.relative_to(root).as_posix()), read)
        if hit:
            break
    found.warnings.extend(dict.fromkeys(read.warnings))
    return hit


def _from_setup_cfg(root: Path, found: Found) -> TorchRange | None:
    path = root / "setup.cfg"
    if not path.is_file():
        return None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeError, OSError) as exc:
        found.warnings.append(f"setup.cfg: cannot read ({exc.__class__.__name__}); its torch "
                              f"requirement, if any, is not used")
        return None
    if parser.has_option("options", "install_requires"):
        hit = _first_torch(parser.get("options", "install_requires").splitlines(),
                           "setup.cfg [options] install_requires", found)
        if hit:
            return hit
    if not parser.has_section("options.extras_require"):
        return None
    return _union([_first_torch(parser.get("options.extras_require", key).splitlines(),
                                f"setup.cfg [options.extras_require] {key}", found)
                   for key in parser["options.extras_require"]])


def _literal_strings(node: ast.expr, names: dict[str, ast.expr]) -> list[str]:
    if isinstance(node, ast.Name) and node.id in names:
        node = names[node.id]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _literal_strings(node.left, names) + _literal_strings(node.right, names)
    return []


def _from_setup_py(root: Path, found: Found) -> TorchRange | None:
    path = root / "setup.py"
    if not path.is_file():
        return None
    try:
        tree = ast.parse(path.read_bytes())
    except (SyntaxError, ValueError, OSError, RecursionError, MemoryError):
        return None
    names: dict[str, ast.expr] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name):
            names[statement.targets[0].id] = statement.value
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", ""))
                == "setup"):
            continue
        for keyword in node.keywords:
            if keyword.arg == "install_requires":
                entries = _literal_strings(keyword.value, names)
                hit = _first_torch(entries, "setup.py install_requires", found)
                if hit:
                    return hit
        for keyword in node.keywords:
            if keyword.arg == "extras_require":
                value = names.get(keyword.value.id, keyword.value) \
                    if isinstance(keyword.value, ast.Name) else keyword.value
                if isinstance(value, ast.Dict):
                    hit = _union([_first_torch(_literal_strings(extra, names),
                                               f"setup.py extras_require[{_key(key)}]", found)
                                  for key, extra in zip(value.keys, value.values)])
                    if hit:
                        return hit
    return None


def _key(node: ast.expr | None) -> str:
    return repr(node.value) if isinstance(node, ast.Constant) else "..."


def find_torch_range(root: Path, pyproject: dict[str, Any] | None) -> Found:
    """The project's torch range from its requirement files under `root`, and any warnings."""
    found = Found()
    if pyproject is not None:
        found.range = _from_pyproject(pyproject, "pyproject.toml", found)
    for reader in (_from_requirements_txt, _from_setup_cfg, _from_setup_py):
        if found.range is not None:
            break
        found.range = reader(root, found)
    return found
