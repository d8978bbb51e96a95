"""The rule catalog: TOML files under rules/ (and user files), validated into Rule objects.

Rules are data. This module reads and checks them, and answers one question for the
detector: which rule, if any, covers a resolved dotted path such as
`torch.distributed.device_mesh.DeviceMesh._unflatten`.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from privlint._toml import TOMLDecodeError, load_toml, load_toml_memo
from privlint.errors import RuleError
from privlint.versions import Minor, Window, minor_range, parse_minor

API_KINDS = ("module", "attribute", "member")
KINDS = API_KINDS + ("generic", "engine")
CODE_PATTERN = re.compile(r"^PRV\d{3}$")
DOTTED = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*(\*)?$")


def is_private(component: str) -> bool:
    """`_name` is private; dunders such as `__version__` are not."""
    return component.startswith("_") and not (component.startswith("__") and component.endswith("__"))


def has_private_part(path: str) -> bool:
    """`torch._C.foo` has one; `torch.distributed.all_reduce` has none."""
    return any(is_private(part) for part in path.split("."))


def bundled_rules_dir() -> Path:
    """rules/ inside an installed wheel, or at the top of a source checkout."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "rules", here.parent / "rules"):
        if candidate.is_dir():
            return candidate
    raise RuleError("the bundled rule catalog is missing (reinstall privlint)", path=str(here / "rules"))


# What a container annotated with a tracked type gives back by these calls (`meshes.get("dp")`).
ELEMENT_GETTERS = frozenset({"get", "pop", "setdefault", "__getitem__"})

@dataclass(frozen=True)
class Rule:
    code: str
    kind: str
    name: str
    message: str
    source: str  # the file the rule came from
    api: str = ""
    aliases: tuple[str, ...] = ()
    since: Minor | None = None
    until: Minor | None = None
    replacement: str = ""
    equivalent: bool = False
    distinctive: bool = False
    fix: str = ""
    default: bool = True
    returns: str = ""
    valid: tuple[str, ...] = ()
    invalid: tuple[str, ...] = ()
    replacement_since: Minor | None = None
    replacement_form: str = "callee"  # "callee": swap the name; "value": `x()` becomes `public`
    public_names: tuple[str, ...] = ()  # names the public home has (import-probe safety)
    # Arguments that work later than the API itself: name -> first minor. `name:str` is that
    # argument given as a string literal (`_unflatten("dp", ...)` works from 2.12).
    keywords: tuple[tuple[str, Minor], ...] = ()
    params: tuple[str, ...] = ()  # the positional parameters' names, to judge positional args

    def window_for(self, keywords: tuple[str, ...] = ()) -> Window:
        """The releases where a call passing `keywords` works: the API's window, narrowed."""
        since = self.since
        for name, first in self.keywords:
            if name in keywords and (since is None or first > since):
                since = first
        return Window(since, self.until)
    # `equivalent` holds for calls that pass only these parameters (the public one takes fewer);
    # empty: the two signatures are the same. Checked against real torch by the test suite.
    equivalent_params: tuple[str, ...] = ()
    # "alias": the public API is the same thing; "subclass": the private one is a subclass of
    # the public one, so `isinstance` and `except` against them differ.
    replacement_relation: str = "alias"

    @property
    def window(self) -> Window:
        return Window(self.since, self.until)

    @property
    def member(self) -> str:
        return self.api.rsplit(".", 1)[-1]

    @property
    def owner(self) -> str:
        return self.api.rsplit(".", 1)[0]


@dataclass(frozen=True)
class TypeInfo:
    """A torch type the detector tracks through assignments (e.g. DeviceMesh)."""

    name: str
    aliases: tuple[str, ...]
    constructors: tuple[str, ...]
    same_type_members: tuple[str, ...]
    subscript_same_type: bool
    # Attributes that hold another tracked type: `DTensorSpec.mesh` is a DeviceMesh.
    attributes: tuple[tuple[str, str], ...] = ()
    # Torch classes every value of this type also is (`torch.Tensor` for a DTensor): an
    # annotation naming one may hold this type, so it types nothing away.
    bases: tuple[str, ...] = ()


# -- validation helpers ---------------------------------------------------------------

_RULE_KEYS = {
    "code": str, "kind": str, "name": str, "message": str, "api": str, "aliases": list,
    "since": str, "until": str, "replacement": str, "equivalent": bool, "distinctive": bool,
    "fix": str, "default": bool, "returns": str, "valid": list, "invalid": list,
    "replacement-since": str, "replacement-form": str, "public-names": list, "keywords": dict,
    "params": list, "equivalent-params": list, "replacement-relation": str,
}
_TYPE_KEYS = {"name": str, "aliases": list, "constructors": list, "same-type-members": list,
              "subscript-same-type": bool, "attributes": dict, "bases": list}
_TOP_KEYS = {"catalog", "rule", "type"}


def _check_table(table: Any, schema: dict[str, type], where: str, path: str,
                 extra_ok: bool = False) -> None:
    if not isinstance(table, dict):
        raise RuleError(f"expected a table, got {type(table).__name__}", path=path, key=where)
    for key, value in table.items():
        expected = schema.get(key)
        if expected is None:
            if extra_ok:
                continue
            raise RuleError("unknown key", path=path, key=f"{where}.{key}")
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise RuleError(f"expected {expected.__name__}, got {type(value).__name__}",
                            path=path, key=f"{where}.{key}")
        if expected is list and not all(isinstance(item, str) for item in value):
            raise RuleError("expected a list of strings", path=path, key=f"{where}.{key}")


def _minor(value: str | None, path: str, key: str) -> Minor | None:
    if not value:
        return None
    try:
        return parse_minor(value)
    except ValueError as exc:
        raise RuleError(str(exc), path=path, key=key) from None


def _rule_from_table(table: dict[str, Any], index: int, path: str) -> Rule:
    where = f"rule[{index}]"
    _check_table(table, _RULE_KEYS, where, path)
    for required in ("code", "kind", "message"):
        if required not in table:
            raise RuleError("missing required key", path=path, key=f"{where}.{required}")
    code = table["code"]
    if not CODE_PATTERN.match(code):
        raise RuleError(f"code {code!r} must be PRV followed by three digits", path=path, key=f"{where}.code")
    kind = table["kind"]
    if kind not in KINDS:
        raise RuleError(f"kind {kind!r} is not one of {', '.join(KINDS)}", path=path, key=f"{where}.kind")
    api = table.get("api", "")
    if kind in API_KINDS + ("generic",):
        if not api or not DOTTED.match(api):
            raise RuleError(f"api {api!r} is not a dotted path", path=path, key=f"{where}.api")
        if kind != "generic" and not any(is_private(part) for part in api.rstrip("*").split(".")):
            raise RuleError(f"api {api!r} has no private component", path=path, key=f"{where}.api")
    for alias in table.get("aliases", []):
        if not DOTTED.match(alias):
            raise RuleError(f"alias {alias!r} is not a dotted path", path=path, key=f"{where}.aliases")
    if kind == "member" and "*" in api:
        raise RuleError("member rules cannot use wildcards", path=path, key=f"{where}.api")
    if kind != "engine" and not table.get("invalid"):
        raise RuleError("every rule needs at least one `invalid` example", path=path, key=f"{where}.invalid")
    form = table.get("replacement-form", "callee")
    if form not in ("callee", "value"):
        raise RuleError("replacement-form must be \"callee\" or \"value\"", path=path,
                        key=f"{where}.replacement-form")
    relation = table.get("replacement-relation", "alias")
    if relation not in ("alias", "subclass"):
        raise RuleError("replacement-relation must be \"alias\" or \"subclass\"", path=path,
                        key=f"{where}.replacement-relation")
    since = _minor(table.get("since"), path, f"{where}.since")
    until = _minor(table.get("until"), path, f"{where}.until")
    if since and until and since > until:
        raise RuleError("`since` is after `until`", path=path, key=f"{where}.until")
    keywords = []
    for name, first in table.get("keywords", {}).items():
        if not isinstance(first, str):
            raise RuleError("expected a release such as \"2.9\"", path=path,
                            key=f"{where}.keywords.{name}")
        keywords.append((name, _minor(first, path, f"{where}.keywords.{name}")))
    return Rule(
        keywords=tuple(keywords), params=tuple(table.get("params", ())),
        code=code, kind=kind, name=table.get("name") or code, message=table["message"].strip(),
        source=path, api=api, aliases=tuple(table.get("aliases", ())), since=since, until=until,
        replacement=table.get("replacement", ""), equivalent=table.get("equivalent", False),
        distinctive=table.get("distinctive", False), fix=table.get("fix", ""),
        default=table.get("default", True), returns=table.get("returns", ""),
        valid=tuple(table.get("valid", ())), invalid=tuple(table.get("invalid", ())),
        replacement_since=_minor(table.get("replacement-since"), path, f"{where}.replacement-since"),
        replacement_form=form, public_names=tuple(table.get("public-names", ())),
        equivalent_params=tuple(table.get("equivalent-params", ())), replacement_relation=relation,
    )


# -- the catalog ------------------------------------------------------------------------

@dataclass
class Catalog:
    rules: list[Rule]
    types: dict[str, TypeInfo]
    known_releases: list[Minor]
    files: list[str]
    # torch.ops namespaces that are torch's own; `torch.ops.mylib._op` belongs to mylib.
    op_namespaces: frozenset[str] = frozenset()
    # Names vendor extensions attach to torch (`torch.npu`): not PyTorch's API.
    foreign_namespaces: tuple[str, ...] = ()
    # Callees that make test doubles (`Mock()`): their values are never torch objects.
    test_doubles: frozenset[str] = frozenset()
    _paths: dict[str, Rule] = field(default_factory=dict, repr=False)
    _wildcards: list[tuple[str, Rule]] = field(default_factory=list, repr=False)
    _members: dict[str, list[Rule]] = field(default_factory=dict, repr=False)
    _type_alias: dict[str, str] = field(default_factory=dict, repr=False)
    _constructors: dict[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for rule in self.rules:
            if rule.kind not in API_KINDS:
                continue
            for api in (rule.api,) + rule.aliases:
                if api.endswith("*"):
                    self._wildcards.append((api[:-1], rule))
                else:
                    self._paths[api] = rule
            if rule.kind == "member":
                self._members.setdefault(rule.member, []).append(rule)
        self._wildcards.sort(key=lambda item: -len(item[0]))
        for info in self.types.values():
            for alias in info.aliases:
                self._type_alias[alias] = info.name
            self._constructors[info.name] = info.name
            for constructor in info.constructors:
                self._constructors[constructor] = info.name

    @property
    def by_code(self) -> dict[str, Rule]:
        return {rule.code: rule for rule in self.rules}

    def engine_rule(self, name: str) -> Rule:
        for rule in self.rules:
            if rule.kind == "engine" and rule.name == name:
                return rule
        raise RuleError(f"the catalog lacks the engine rule {name!r}")

    @property
    def generic_rule(self) -> Rule | None:
        return next((rule for rule in self.rules if rule.kind == "generic"), None)

    def canonical(self, path: str) -> str:
        """Rewrite a re-exported type path to its home: torch.distributed.tensor.DeviceMesh -> ..."""
        parts = path.split(".")
        for cut in range(len(parts), 0, -1):
            head = ".".join(parts[:cut])
            if head in self._type_alias:
                return ".".join([self._type_alias[head]] + parts[cut:])
        return path

    def constructed_type(self, callee_path: str) -> str | None:
        """The tracked type a call to `callee_path` returns, if the catalog knows one."""
        canonical = self.canonical(callee_path)
        if canonical in self._constructors:
            return self._constructors[canonical]
        rule = self._paths.get(canonical) or self._paths.get(callee_path)
        if rule is not None and rule.returns:
            return self.canonical(rule.returns)
        return None

    def match(self, path: str) -> tuple[Rule, str] | None:
        """The most specific rule covering a resolved path, and the path to report.

        The path as written is tried before its canonical form, so that a re-export from a
        private module (`torch.distributed._tensor.DeviceMesh`) is reported as that module;
        a canonical match (`torch.distributed.tensor.DeviceMesh._flatten`) reports the home.
        """
        if self.is_foreign(path):
            return None
        canonical = self.canonical(path)
        for candidate in [path] if canonical == path else [path, canonical]:
            best: tuple[int, Rule] | None = None
            parts = candidate.split(".")
            for cut in range(len(parts), 0, -1):
                head = ".".join(parts[:cut])
                rule = self._paths.get(head)
                if rule is not None:
                    best = (len(head), rule)
                    break
            for prefix, rule in self._wildcards:
                if candidate.startswith(prefix) and (best is None or len(prefix) > best[0]):
                    best = (len(prefix), rule)
                    break
            if best is not None:
                return best[1], candidate
        generic = self.generic_rule
        parts = path.split(".")
        if generic is not None and parts[0] == generic.api and any(is_private(p) for p in parts[1:]):
            return generic, path
        return None

    def reports_nothing_under(self, path: str, enabled: "Callable[[Rule], bool]") -> bool:
        """Whether no rule that `enabled` lets through can report `path` or a path below it
        (`path.x.y`): the path is foreign, or a rule of the catalog's own matches it (so every
        path below matches one too, and the generic rule none) and each rule that may match it
        or a path below it is off. A path through a re-exported type's name (`canonical`) is
        never silent: its home may match other rules."""
        if self.is_foreign(path):
            return True
        below = path + "."
        matched = self.match(path)
        if matched is None or matched[0].kind == "generic" or any(
                alias == path or path.startswith(alias + ".") or alias.startswith(below)
                for alias in self._type_alias):
            return False
        return not any(enabled(rule) for api, rule in self._paths.items()
                       if api == path or path.startswith(api + ".") or api.startswith(below)) \
            and not any(enabled(rule) for prefix, rule in self._wildcards
                        if path.startswith(prefix) or prefix.startswith(path))

    def is_foreign(self, path: str) -> bool:
        """A path under torch that is not PyTorch's: a vendor namespace, a project's operators."""
        parts = path.split(".")
        if len(parts) > 2 and parts[:2] == ["torch", "ops"] and parts[2] not in self.op_namespaces:
            return True
        return any(path == ns or path.startswith(ns + ".") for ns in self.foreign_namespaces)

    def member_rules(self, member: str) -> list[Rule]:
        return self._members.get(member, [])

    @property
    def member_names(self) -> frozenset[str]:
        """Every member name a member rule covers (`_unflatten`, `_flatten`, ...)."""
        return frozenset(self._members)

    @property
    def call_result_names(self) -> frozenset[str]:
        """The last name of every callee whose call the resolver may type: a tracked type or
        one of its constructors, an API whose rule says what it returns, a type's same-type
        members, a container's element getters, a distinctive member that returns a type, and
        `cast`. A call through an attribute named otherwise (`torch.compile(m)`) gives nothing
        the detector tracks (resolve.py's `_infer_call`)."""
        names = {"cast", *ELEMENT_GETTERS}
        names.update(path.rsplit(".", 1)[-1] for path in [*self._constructors, *self._type_alias])
        names.update(path.rsplit(".", 1)[-1] for path, rule in self._paths.items() if rule.returns)
        for info in self.types.values():
            names.update(info.same_type_members)
        names.update(member for member, rules in self._members.items()
                     if any(rule.distinctive and rule.returns for rule in rules))
        return frozenset(names)

    @functools.cached_property
    def base_types(self) -> frozenset[str]:
        """The torch classes a tracked type's values also are (TypeInfo.bases)."""
        return frozenset(base for info in self.types.values() for base in info.bases)

    @property
    def type_names(self) -> frozenset[str]:
        """Every dotted name a tracked type goes by: its own and its aliases'."""
        return frozenset([*self.types, *self._type_alias])

    @property
    def roots(self) -> frozenset[str]:
        """The first segment of every path a rule or tracked type names: {"torch"}."""
        paths = [*self._paths, *(prefix for prefix, _ in self._wildcards), *self._type_alias,
                 *self.types]
        return frozenset(path.split(".", 1)[0] for path in paths)

    def type_info(self, name: str) -> TypeInfo | None:
        return self.types.get(self.canonical(name))


def _load_file(path: Path, rules: list[Rule], types: dict[str, TypeInfo],
               meta: dict[str, Any], bundled: bool = False) -> None:
    label = str(path)
    try:
        data = load_toml_memo(path) if bundled else load_toml(path)
    except TOMLDecodeError as exc:
        raise RuleError(f"malformed TOML: {exc}", path=label) from None
    except OSError as exc:
        raise RuleError(f"cannot read rule file: {exc.strerror or exc}", path=label) from None
    for key in data:
        if key not in _TOP_KEYS:
            raise RuleError("unknown key (expected [[rule]], [[type]] or [catalog]; fix templates "
                            "are modules in privlint/fix/templates/)",
                            path=label, key=key)
    for key in ("rule", "type"):
        if key in data and not isinstance(data[key], list):
            raise RuleError(f"`{key}` must be an array of tables ([[{key}]])", path=label, key=key)
    if "catalog" in data:
        _check_table(data["catalog"], {"torch-releases": list, "torch-op-namespaces": list,
                                        "foreign-namespaces": list, "test-doubles": list},
                     "catalog", label)
        meta.update(data["catalog"])
    for index, table in enumerate(data.get("rule", [])):
        rules.append(_rule_from_table(table, index, label))
    for index, table in enumerate(data.get("type", [])):
        where = f"type[{index}]"
        _check_table(table, _TYPE_KEYS, where, label)
        if "name" not in table:
            raise RuleError("missing required key", path=label, key=f"{where}.name")
        types[table["name"]] = TypeInfo(
            name=table["name"], aliases=tuple(table.get("aliases", ())),
            constructors=tuple(table.get("constructors", ())),
            same_type_members=tuple(table.get("same-type-members", ())),
            subscript_same_type=table.get("subscript-same-type", False),
            attributes=tuple((k, v) for k, v in table.get("attributes", {}).items()
                             if isinstance(v, str)),
            bases=tuple(table.get("bases", ())),
        )


def load_catalog(extra_files: list[Path] | tuple[Path, ...] = ()) -> Catalog:
    """Load the bundled catalog plus user rule files; raise RuleError on any defect."""
    bundled = sorted(bundled_rules_dir().glob("*.toml"))
    files = bundled + list(extra_files)
    rules: list[Rule] = []
    types: dict[str, TypeInfo] = {}
    meta: dict[str, Any] = {}
    for index, path in enumerate(files):
        _load_file(path, rules, types, meta, bundled=index < len(bundled))
    from privlint.fix import template_ids  # light: lists privlint/fix/templates/ without importing it

    templates = template_ids()
    seen: dict[str, str] = {}
    for rule in rules:
        if rule.code in seen:
            raise RuleError(f"duplicate rule code {rule.code} (also in {seen[rule.code]})",
                            path=rule.source, key="code")
        seen[rule.code] = rule.source
        if rule.fix and rule.fix not in templates:
            raise RuleError(f"rule {rule.code} names unknown fix template {rule.fix!r}",
                            path=rule.source, key="fix")
    releases = meta.get("torch-releases", ["2.0", "2.14"])
    try:
        known = minor_range(releases[0], releases[-1])
    except (ValueError, IndexError):
        raise RuleError(f"bad torch-releases {releases!r}", key="catalog.torch-releases") from None
    return Catalog(rules, types, known, [str(f) for f in files],
                   op_namespaces=frozenset(meta.get("torch-op-namespaces", ())),
                   foreign_namespaces=tuple(meta.get("foreign-namespaces", ())),
                   test_doubles=frozenset(meta.get("test-doubles", ())))
