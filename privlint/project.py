"""The project's own modules, as far as the detector needs them: read lazily, cached.

A receiver often comes from the project itself: `mesh = get_mesh(...)` where `get_mesh` lives
in another module, annotated `-> DeviceMesh`; or `dist` arrives through `from .utils import *`.
This index answers two questions about a dotted name of the project, reading each module once
with CPython's `ast` (top-level statements only, nothing executed):

* `returns("pkg.distributed.utils.get_mesh")`: the tracked torch type a top-level function's
  return annotation names, if any (`DeviceMesh`, `Optional[DeviceMesh]`, `"DeviceMesh"`);
* `star_names("pkg.utils")`: the names `from pkg.utils import *` brings in that matter here,
  each with the torch path it is bound to (`dist` -> `torch.distributed`) or the type a
  function returns.

Modules are found under the project root and its `src/` folder, as `a/b.py` or
`a/b/__init__.py`. Re-exports (`from .mesh import get_mesh` in a package's `__init__`) are
followed a few levels.
"""

from __future__ import annotations

import ast
import functools
import os
from dataclasses import dataclass, field
from pathlib import Path

from privlint.catalog import Catalog

_MAX_HOPS = 4


@dataclass
class ModuleFacts:
    """What one module's top level binds: torch paths, project names, function return types."""

    name: str
    imports: dict[str, str] = field(default_factory=dict)       # local name -> dotted path
    functions: dict[str, ast.expr | None] = field(default_factory=dict)  # name -> returns
    public: list[str] | None = None                              # __all__, when a literal


def absolute(module: str, level: int, current: str, is_package: bool) -> str:
    """`from ..x import y` inside `current` -> the absolute module it names."""
    if level == 0:
        return module
    parts = current.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)]
    return ".".join([*parts, module] if module else parts)


@functools.lru_cache(maxsize=8192)  # the text prefilter and the checker both ask, per file
def module_name(path: Path) -> tuple[str, bool] | None:
    """The dotted module a file is, found by walking up `__init__.py` folders; and is it a package."""
    from privlint.discover import real_directory

    # Thousands of files share a few hundred folders: each folder is resolved and walked up
    # once. A file that is itself a link is named from where it points.
    path = path.resolve() if os.path.islink(path) else real_directory(str(path.parent) or ".") / path.name
    is_package = path.name == "__init__.py"
    parts = [*_package(str(path.parent)), *([] if is_package else [path.stem])]
    return (".".join(parts), is_package) if parts else None


@functools.lru_cache(maxsize=4096)
def _package(directory: str) -> tuple[str, ...]:
    """The dotted package a resolved folder is (`a/b/` with `__init__.py` in each: a.b), or ()."""
    folder = Path(directory)
    if not (folder / "__init__.py").is_file():
        return ()
    return (*_package(str(folder.parent)), folder.name) if folder.parent != folder else (folder.name,)


class ProjectIndex:
    def __init__(self, root: Path, catalog: Catalog) -> None:
        self.root = root.resolve()
        self.catalog = catalog
        self._roots = [self.root] + ([self.root / "src"] if (self.root / "src").is_dir() else [])
        self._modules: dict[str, ModuleFacts | None] = {}
        self._typed_calls: dict[str, bool] = {}

    # -- finding and reading modules ---------------------------------------------------------
    def add_root(self, directory: Path) -> None:
        """A folder that holds top-level packages (the parent of a checked file's package)."""
        directory = directory.resolve()
        if directory not in self._roots:
            self._roots.append(directory)

    def _file(self, module: str) -> Path | None:
        relative = _relative(module)
        if relative is None:
            return None
        for root in self._roots:  # (text, not `Path`s: thousands of names are asked about)
            base = os.path.join(root, relative)
            for candidate in (base + ".py", os.path.join(base, "__init__.py")):
                if os.path.isfile(candidate):
                    return Path(candidate)
        return None

    def facts(self, module: str) -> ModuleFacts | None:
        if module in self._modules:
            return self._modules[module]
        self._modules[module] = None  # also stops import cycles
        path = self._file(module)
        if path is None:
            return None
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError, OSError, RecursionError, MemoryError):
            return None
        facts = ModuleFacts(module)
        is_package = path.name == "__init__.py"
        for statement in tree.body:
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    if alias.asname:
                        facts.imports[alias.asname] = alias.name
                    else:
                        head = alias.name.split(".")[0]
                        facts.imports[head] = head
            elif isinstance(statement, ast.ImportFrom) and statement.names[0].name != "*":
                source = absolute(statement.module or "", statement.level, module, is_package)
                for alias in statement.names:
                    facts.imports[alias.asname or alias.name] = f"{source}.{alias.name}"
            elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                facts.functions[statement.name] = statement.returns
            elif isinstance(statement, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "__all__" for t in statement.targets):
                if isinstance(statement.value, (ast.List, ast.Tuple)):
                    facts.public = [e.value for e in statement.value.elts
                                    if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        self._modules[module] = facts
        return facts

    # -- questions ------------------------------------------------------------------------------
    def _split(self, dotted: str) -> tuple[ModuleFacts, str] | None:
        module, _, name = dotted.rpartition(".")
        facts = self.facts(module) if module else None
        return (facts, name) if facts is not None else None

    def returns(self, dotted: str, hops: int = 0) -> str | None:
        """The tracked torch type the project function `dotted` is annotated to return."""
        found = self._split(dotted)
        if found is None or hops > _MAX_HOPS:
            return None
        facts, name = found
        if name in facts.functions:
            return self._annotation_type(facts, facts.functions[name])
        source = facts.imports.get(name)
        if source and source.split(".")[0] != "torch":
            return self.returns(source, hops + 1)  # a re-export: follow it
        return None

    def _annotation_type(self, facts: ModuleFacts, node: ast.expr | None) -> str | None:
        if node is None:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            sides = [s for s in (node.left, node.right)
                     if not (isinstance(s, ast.Constant) and s.value is None)]
            return self._annotation_type(facts, sides[0]) if len(sides) == 1 else None
        if isinstance(node, ast.Subscript) and dotted_name(node.value) \
                and dotted_name(node.value).split(".")[-1] == "Optional":
            return self._annotation_type(facts, node.slice)
        dotted = dotted_name(node)
        if not dotted:
            return None
        head, _, rest = dotted.partition(".")
        path = facts.imports.get(head, head)
        path = f"{path}.{rest}" if rest else path
        canonical = self.catalog.canonical(path)
        return canonical if canonical in self.catalog.types else None

    def _handed_on(self, facts: ModuleFacts) -> dict[str, tuple[str, str]]:
        names: dict[str, tuple[str, str]] = {}
        for name, path in facts.imports.items():
            if path.split(".")[0] == "torch":
                names[name] = ("path", path)
        for name, returns in facts.functions.items():
            made = self._annotation_type(facts, returns)
            if made:
                names[name] = ("returns", made)
        return names

    def import_may_type(self, module: str, name: str) -> bool:
        """Whether `from module import name` may give `name` a typed value, or type a call
        through it: the text prefilter and the gate ask this one question."""
        return self.exported(module, name) is not None or self.calls_may_be_typed(f"{module}.{name}")

    def calls_may_be_typed(self, dotted: str) -> bool:
        """Whether a call through a name bound to the project's `dotted` (`make()`, `utils.make()`,
        `pkg.utils.make()`) may be typed by what a project function is annotated to return: the
        resolver asks `returns` of the call's whole path. So `dotted` is such a function (a
        re-export followed), a module with one, or a package, through which any of its modules
        may be named."""
        if dotted not in self._typed_calls:
            self._typed_calls[dotted] = self.returns(dotted) is not None or self._module_types(dotted)
        return self._typed_calls[dotted]

    def _module_types(self, module: str) -> bool:
        path = self._file(module)
        if path is None:  # a folder without `__init__.py` is a package too (a namespace package)
            relative = _relative(module)
            return relative is not None and any(os.path.isdir(os.path.join(root, relative))
                                                for root in self._roots)
        if path.name == "__init__.py":
            return True
        facts = self.facts(module)
        return facts is not None and any(self.returns(f"{module}.{name}") is not None
                                         for name in (*facts.functions, *facts.imports))

    def exported(self, module: str, name: str) -> tuple[str, str] | None:
        """`from module import name`: ("path", torch path) or ("returns", tracked type), if either."""
        facts = self.facts(module)
        return self._handed_on(facts).get(name) if facts is not None else None

    def star_names(self, module: str) -> dict[str, tuple[str, str]]:
        """`from module import *`: name -> ("path", torch path) or ("returns", tracked type)."""
        facts = self.facts(module)
        if facts is None:
            return {}
        names = self._handed_on(facts)
        visible = facts.public if facts.public is not None else [n for n in names
                                                                 if not n.startswith("_")]
        return {n: names[n] for n in visible if n in names}


def _relative(module: str) -> str | None:
    """A module's path below a root, without its suffix; None for what names no module (`from
    . import x` above the top package gives an empty part)."""
    if not module or "" in module.split("."):
        return None
    return module.replace(".", os.sep)


def dotted_name(node: ast.expr) -> str | None:
    """`a.b.c` for that chain of attributes on a name; None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
