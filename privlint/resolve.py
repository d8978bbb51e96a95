"""Light name resolution: what a name or expression refers to, without libcst metadata.

libcst's QualifiedNameProvider and ScopeProvider cost several times the parse itself
(see the anchors reference), so privlint keeps its own small model instead: a stack of
scopes mapping names to what they were last bound to, updated in source order by the
detector as it walks the tree. It knows exactly what the detector needs:

* imports and their aliases, as dotted paths (`dist` -> `torch.distributed`);
* values of tracked torch types (a `DeviceMesh` from `init_device_mesh(...)`, a subscript
  of a mesh, an annotated parameter, an element of `list[DeviceMesh]`);
* values known to be something else (literals, instances of classes defined here),
  which are never flagged for a same-named member.
"""

from __future__ import annotations

import builtins
import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import libcst as cst

from privlint.catalog import ELEMENT_GETTERS, Catalog
from privlint.walk import walk

if TYPE_CHECKING:
    from privlint.project import ProjectIndex

PATH, INSTANCE, ELEMENTS, FOREIGN, FUNCTION, CAPFLAG, VERFLAG, UNKNOWN = (
    "path", "instance", "elements", "foreign", "function", "capflag", "verflag", "unknown")

_CONTAINERS = {"list", "List", "Sequence", "MutableSequence", "Iterable", "Iterator", "Collection",
               "tuple", "Tuple", "set", "Set", "frozenset", "FrozenSet", "AbstractSet", "Generator"}
# Annotated mappings hold their values' type: `meshes: dict[str, DeviceMesh]`, `meshes["dp"]`.
_MAPPINGS = {"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "DefaultDict",
             "defaultdict"}
_OPTIONAL = {"Optional", "Union", "Annotated", "Final", "ClassVar"}
_UNTYPED = {"Any", "object"}
_LITERALS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer, cst.Float,
             cst.Imaginary, cst.List, cst.Dict, cst.Set, cst.Tuple, cst.ListComp, cst.DictComp,
             cst.SetComp, cst.GeneratorExp)


@dataclass(frozen=True)
class Binding:
    kind: str
    value: str = ""  # a dotted path (PATH), a type name (INSTANCE, ELEMENTS, FOREIGN, FUNCTION)
    members: frozenset[str] = frozenset()  # CAPFLAG: the members proven present when true
    # The constructor call that made an INSTANCE, for fixes that must prove what it is; for a
    # VERFLAG, the releases it holds true on (guards.Bound), None where they are not read.
    origin: object = field(default=None, compare=False, hash=False)


UNKNOWN_BINDING = Binding(UNKNOWN)
HANDED_ON = "handed on"  # the origin of a PATH binding another project module made
_BUILTINS = frozenset(dir(builtins))


def property_key(name: str) -> str:
    """Where a class's predicate property is kept among its attributes: read as `self.<name>`
    (its body runs on an instance), never as `cls.<name>` (the property object, always true)."""
    return f"{name}@property"


def predicate_key(method: str) -> str:
    """Where a class's predicate method is kept among its attributes (`ClassInfo.attr_types`):
    `supported()`, a key no attribute's name can be, so `self.supported` itself (a bound
    method, always true) is never read as the flag its call is."""
    return f"{method}()"


@dataclass
class ClassInfo:
    name: str
    defined: set[str]
    base_type: str | None
    attr_types: dict[str, Binding] = field(default_factory=dict)


@dataclass
class Scope:
    kind: str  # "module", "class", "function", "comprehension"
    names: dict[str, Binding] = field(default_factory=dict)


def dotted_parts(node: cst.BaseExpression) -> list[str] | None:
    """['torch', 'distributed', '_tensor'] for `torch.distributed._tensor`; None otherwise."""
    parts: list[str] = []
    while type(node) is cst.Attribute:  # (exact types: libcst's node classes are ABCs, slow in isinstance)
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name:
        return None
    parts.append(node.value)
    parts.reverse()
    return parts


def string_value(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        try:
            value = node.evaluated_value
        except Exception:  # noqa: BLE001 - odd prefixes; not a plain string
            return None
        return value if isinstance(value, str) else None
    return None


@functools.lru_cache(maxsize=1024)
def _parse_annotation(text: str) -> cst.BaseExpression | None:
    try:
        return cst.parse_expression(text)
    except Exception:  # noqa: BLE001 - an unparsable string annotation says nothing
        return None


class _ClassMembers:
    """Names a class defines: methods, class attributes, and `self.x = ...` targets.

    Walks statements only: no expression holds an assignment statement, and skipping them
    makes this pre-pass over every class body a small part of the detector's own walk."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        kind = type(node)
        if kind is cst.FunctionDef:
            self.names.add(node.name.value)
            return True
        if kind is cst.ClassDef:
            self.names.add(node.name.value)
            return False  # a nested class's members are its own
        if kind is cst.Assign:
            for target in node.targets:
                self._target(target.target)
            return False
        if kind is cst.AnnAssign:
            self._target(node.target)
            return False
        return not _is_leaf_for_members(kind)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        pass

    def _target(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.names.add(target.value)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
                and target.value.value in ("self", "cls"):
            self.names.add(target.attr.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._target(element.value)


_LEAVES: dict[type, bool] = {}


def _is_leaf_for_members(kind: type) -> bool:
    """An expression or a simple statement other than an assignment: nothing in it binds a
    class member."""
    known = _LEAVES.get(kind)
    if known is None:
        known = _LEAVES[kind] = issubclass(kind, (cst.BaseExpression, cst.BaseSmallStatement))
    return known


class Resolver:
    """The scope stack and the questions asked of it."""

    def __init__(self, catalog: Catalog, project: "ProjectIndex | None" = None,
                 module: tuple[str, bool] | None = None) -> None:
        self.catalog = catalog
        self.project = project  # the project's own modules' signatures, read on demand
        self.module = module    # this file's dotted name, and whether it is a package
        self.star_roots: list[str] = []  # torch modules star-imported here
        self.defined: frozenset[str] = frozenset()  # names this module binds anywhere
        self.scopes: list[Scope] = [Scope("module")]
        self.classes: list[ClassInfo] = []
        self._short_types = {name.rsplit(".", 1)[-1]: name for name in catalog.types}

    # -- scopes --------------------------------------------------------------------------
    def push(self, kind: str) -> None:
        self.scopes.append(Scope(kind))

    def pop(self) -> None:
        self.scopes.pop()

    def bind(self, name: str, binding: Binding | None) -> None:
        # A fresh object per assignment: `lookup(name) is earlier` means "not reassigned since".
        binding = binding or UNKNOWN_BINDING
        self.scopes[-1].names[name] = Binding(binding.kind, binding.value, binding.members,
                                              binding.origin)

    def lookup_local(self, name: str) -> Binding | None:
        """The binding of `name` in the innermost function (or module) scope only."""
        for scope in reversed(self.scopes):
            if scope.kind == "comprehension":
                if name in scope.names:
                    return scope.names[name]
                continue
            return scope.names.get(name) if scope.kind != "class" else None
        return None

    def lookup(self, name: str) -> Binding | None:
        if name.startswith("self."):  # an attribute set on `self` in this class (a flag, a mesh)
            info = self.current_class()
            return info.attr_types.get(name[len("self."):]) if info else None
        innermost = self.scopes[-1]
        for scope in reversed(self.scopes):
            if scope.kind == "class" and scope is not innermost:
                continue  # class bodies are not visible from their methods
            if name in scope.names:
                return scope.names[name]
        return None

    # -- classes -------------------------------------------------------------------------
    def enter_class(self, node: cst.ClassDef) -> None:
        collector = _ClassMembers()
        walk(node.body, collector)
        base_type = None
        for arg in node.bases:
            if self._renamed_elsewhere(arg.value):
                continue
            path = self.resolve_path(arg.value)
            if path and self.catalog.type_info(path):
                base_type = self.catalog.canonical(path)
        self.classes.append(ClassInfo(node.name.value, collector.names, base_type))
        self.push("class")

    def leave_class(self) -> None:
        self.classes.pop()
        self.pop()

    def current_class(self) -> ClassInfo | None:
        return self.classes[-1] if self.classes else None

    # -- resolution ----------------------------------------------------------------------
    def absolute_module(self, node: cst.ImportFrom) -> str | None:
        """The module a `from ... import` names, relative imports made absolute when known."""
        from privlint.project import absolute

        parts = dotted_parts(node.module) if node.module is not None else []
        if parts is None:
            return None
        level = len(node.relative)
        if level and self.module is None:
            return None
        current, is_package = self.module or ("", False)
        return absolute(".".join(parts), level, current, is_package) or None

    def root(self, name: str) -> Binding | None:
        """What the head of an attribute chain is bound to, star imports of torch included."""
        binding = self.lookup(name)
        if binding is None and self.star_roots and name not in self.defined \
                and name not in _BUILTINS and not name.startswith("_"):
            # Only a star import can have bound it; torch's are the ones that matter here. A
            # star import binds no `_` name: torch's modules list none in `__all__`.
            return Binding(PATH, f"{self.star_roots[-1]}.{name}")
        return binding

    def resolve_path(self, node: cst.BaseExpression) -> str | None:
        """The dotted path an import-rooted chain names: `dist.group` -> `torch.distributed.group`."""
        parts = dotted_parts(node)
        if not parts:
            return None
        binding = self.root(parts[0])
        if binding is None or binding.kind != PATH:
            return None
        return ".".join([binding.value] + parts[1:])

    def _renamed_elsewhere(self, node: cst.BaseExpression) -> bool:
        """A tracked type is known by its own name, or through this file's imports: an alias
        another project module hands on (`from .compat import PG`, where compat renames
        ProcessGroup) is that module's business, so the file's text always names the type
        wherever privlint types something from it (which the prefilters rely on)."""
        parts = dotted_parts(node)
        if not parts or parts[-1] in self._short_types:
            return False
        root = self.root(parts[0])
        return root is not None and root.origin == HANDED_ON

    def self_member(self, receiver: cst.BaseExpression, member: str) -> Binding | None:
        """What `self.<member>` is inside a class body: its own member, or a tracked base."""
        info = self.current_class()
        if info is None or not (isinstance(receiver, cst.Name) and receiver.value in ("self", "cls")):
            return None
        if member in info.defined:
            return Binding(FOREIGN, info.name)
        if info.base_type:
            return Binding(INSTANCE, info.base_type)
        return UNKNOWN_BINDING

    def infer(self, node: cst.BaseExpression) -> Binding | None:
        """What an expression evaluates to, as far as the detector cares; None if unknown."""
        if isinstance(node, cst.Name):
            binding = self.lookup(node.value)
            return None if binding is None or binding.kind == UNKNOWN else binding
        if isinstance(node, _LITERALS):
            return Binding(FOREIGN, type(node).__name__)
        if isinstance(node, cst.Attribute):
            info = self.current_class()
            if info and isinstance(node.value, cst.Name) and node.value.value in ("self", "cls"):
                return info.attr_types.get(node.attr.value)
            path = self.resolve_path(node)
            if path:
                return Binding(PATH, path)
            return self._attribute_of(node)
        if isinstance(node, cst.Call):
            return self._infer_call(node)
        if isinstance(node, cst.Subscript):
            receiver = self.infer(node.value)
            if receiver and receiver.kind == ELEMENTS:
                return Binding(INSTANCE, receiver.value)
            if receiver and receiver.kind == INSTANCE:
                info = self.catalog.type_info(receiver.value)
                if info and info.subscript_same_type:
                    return Binding(INSTANCE, receiver.value)  # a slice: not the mesh that was made
            return None
        return None

    def _attribute_of(self, node: cst.Attribute) -> Binding | None:
        """`spec.mesh`, `dtensor._spec`: an attribute the catalog says holds a tracked type."""
        receiver = self.infer(node.value)
        if receiver is None or receiver.kind != INSTANCE:
            return None
        info = self.catalog.type_info(receiver.value)
        attribute = node.attr.value
        made = dict(info.attributes).get(attribute) if info else None
        if made is None:
            matched = self.catalog.match(f"{receiver.value}.{attribute}")
            made = matched[0].returns if matched and matched[0].kind == "member" else None
        return Binding(INSTANCE, self.catalog.canonical(made)) if made else None

    def _infer_call(self, node: cst.Call) -> Binding | None:
        func = node.func
        parts = dotted_parts(func)
        if parts and parts[-1] == "cast" and len(node.args) == 2:  # typing.cast(DTensor, p)
            return self.annotation(node.args[0].value)
        if parts and parts[-1] in self.catalog.test_doubles:
            return Binding(FOREIGN, "test double")  # unittest.mock objects are not torch's
        path = self.resolve_path(func)
        if path:
            made = self.catalog.constructed_type(path)
            if made:
                return Binding(INSTANCE, made)
            if self.project is not None and path.split(".")[0] != "torch":
                made = self.project.returns(path)
                return Binding(INSTANCE, made) if made else None
            return None
        if isinstance(func, cst.Name):
            binding = self.lookup(func.value)
            if binding and binding.kind == FUNCTION and binding.value:
                return Binding(INSTANCE, binding.value)
            if binding and binding.kind == FOREIGN and binding.value.startswith("class "):
                return Binding(FOREIGN, binding.value[len("class "):])
            return None
        if isinstance(func, cst.Attribute):
            receiver = self.infer(func.value)
            if receiver and receiver.kind == ELEMENTS and func.attr.value in ELEMENT_GETTERS:
                return Binding(INSTANCE, receiver.value)
            if receiver is None:
                # A distinctive member is taken to be its type's (that is why it is flagged on
                # any receiver), so its result has the type the rule says it returns.
                made = {r.returns for r in self.catalog.member_rules(func.attr.value)
                        if r.distinctive and r.returns}
                if len(made) == 1:
                    return Binding(INSTANCE, self.catalog.canonical(made.pop()))
            if receiver and receiver.kind == INSTANCE:
                info = self.catalog.type_info(receiver.value)
                if info and func.attr.value in info.same_type_members:
                    return Binding(INSTANCE, receiver.value)
                made = self.catalog.constructed_type(f"{receiver.value}.{func.attr.value}")
                return Binding(INSTANCE, made) if made else None
            if receiver and receiver.kind == PATH:
                made = self.catalog.constructed_type(f"{receiver.value}.{func.attr.value}")
                return Binding(INSTANCE, made) if made else None
        return None

    def annotation(self, node: cst.BaseExpression | None) -> Binding | None:
        """The binding an annotation implies: DeviceMesh, Optional[DeviceMesh], list[DeviceMesh]..."""
        if node is None:
            return None
        text = string_value(node)
        if text is not None:
            node = _parse_annotation(text.strip())
            if node is None:
                return None
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            sides = [self.annotation(side) for side in (node.left, node.right)
                     if not (isinstance(side, cst.Name) and side.value == "None")]
            return sides[0] if len(sides) == 1 or (sides and sides[0] == sides[-1]) else None
        if isinstance(node, cst.Subscript):
            head = dotted_parts(node.value)
            args = [el.slice.value for el in node.slice if isinstance(el.slice, cst.Index)]
            if not head or not args:
                return None
            base = head[-1]
            if base in _OPTIONAL:
                inner = [self.annotation(a) for a in args
                         if not (isinstance(a, cst.Name) and a.value == "None")]
                inner = [i for i in inner if i is not None] if base == "Union" else inner[:1]
                return inner[0] if len(inner) == 1 else None
            if base in _CONTAINERS or (base in _MAPPINGS and len(args) == 2):
                element = self.annotation(args[-1] if base in _MAPPINGS else args[0])
                if element and element.kind == INSTANCE:
                    return Binding(ELEMENTS, element.value)
            return None
        parts = dotted_parts(node)
        if not parts or parts[-1] in _UNTYPED or parts == ["None"]:
            return None
        if self._renamed_elsewhere(node):
            return Binding(FOREIGN, ".".join(parts))
        path = self.resolve_path(node)
        if path:
            canonical = self.catalog.canonical(path)
            if canonical in self.catalog.types:
                return Binding(INSTANCE, canonical)
            if canonical in self.catalog.base_types:
                return None  # `t: torch.Tensor` may be a DTensor: its members read as on any value
            return Binding(FOREIGN, canonical)
        if len(parts) == 1 and parts[0] in self._short_types:
            # An unresolved `DeviceMesh` (a stub import or a forward reference): take the name.
            return Binding(INSTANCE, self._short_types[parts[0]])
        return Binding(FOREIGN, ".".join(parts))
