"""Reading guards: which private members a condition proves present, and what it is.

A guard is the code around a private use that keeps it from running on a build that
lacks the API. The detector asks this module two things about conditions (`if` tests,
`and` operands, `assert`s, flags assigned from them) and exception handlers:

* `condition_facts`: the members proven present when the condition is true, and when it
  is false, and whether it reads the torch version (a version gate, reported separately);
* `caught_kinds`: whether an `except` clause catches what a missing API raises
  (`AttributeError` for members, `ImportError` for imports).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import libcst as cst

from privlint.catalog import is_private
from privlint.reading import bound_names
from privlint.slicing import ENDING_CALLS
from privlint.walk import children
from privlint.resolve import (CAPFLAG, PATH, VERFLAG, Binding, dotted_parts, predicate_key, property_key,
                              string_value)

# What a missing API raises: a missing member, a missing module, or (for a keyword the
# installed release does not take yet) a TypeError from the call.
ATTRIBUTE, IMPORT, CALL = "attribute", "import", "call"

_CATCHES = {
    "AttributeError": {ATTRIBUTE},
    "ImportError": {IMPORT},
    "ModuleNotFoundError": {IMPORT},
    "TypeError": {CALL},
    "Exception": {ATTRIBUTE, IMPORT, CALL},
    "BaseException": {ATTRIBUTE, IMPORT, CALL},
}

# Names of helpers and flags that compare the torch version: is_torch_version(">=", "2.5"),
# is_torch_min_version("2.10"), TORCH_VERSION, _TORCH_GREATER_EQUAL_2_5, torch_version_at_least...
_VERSION_WORDS = re.compile(
    r"version|_ver(\b|_)|greater|less|newer|older|at_?least|_ge(\b|_)|_gt(\b|_)|_le(\b|_)|_lt(\b|_)"
    r"|\d+_\d+", re.IGNORECASE)

Lookup = Callable[[str], "Binding | None"]
# The torch releases a branch may run on: one comparison, (">=", (2, 10)), judged at minor
# precision, its operator marked "~" (">~") where some patch releases of the edge's minor pass
# it and others fail (`v > 2.4` holds on 2.4.1, not on 2.4.0): that minor is then in both
# branches; an "and" or an "or"
# of two bounds (`v >= (2, 4) and v < (2, 6)`, `lo <= v < hi`); or ANY, for a condition that is
# no version check (`x and v >= 2.10` runs only on 2.10+, `x or v >= 2.10` anywhere).
Bound = tuple
ANY: Bound = ("any", ())
_NEGATED = {">=": "<", "<": ">=", ">": "<=", "<=": ">", "==": "!=", "!=": "=="}
_FLIPPED = {">=": "<=", "<=": ">=", ">": "<", "<": ">", "==": "==", "!=": "!="}
_OPERATORS = {cst.GreaterThanEqual: ">=", cst.GreaterThan: ">", cst.LessThan: "<",
              cst.LessThanEqual: "<=", cst.Equal: "==", cst.NotEqual: "!="}
_AT_LEAST = re.compile(r"min_version|at_?least|greater|_ge(\b|_)|newer|_gte?(\b|_)", re.IGNORECASE)
_BELOW = re.compile(r"less|_lt(\b|_)|older|before|max_version", re.IGNORECASE)
# What makes a name's bound exact at minor precision: `>=` said plainly (`greater_equal`,
# `at_least`, `min`, `ge`); `greater` alone or `newer` may be `>`, and `less_equal`, `le` or
# `max` `<=`, where a patch release of the edge's minor may take either branch.
_PLAINLY_AT_LEAST = re.compile(r"equal|at_?least|min|_ge(\b|_)|_gte(\b|_)", re.IGNORECASE)
_BELOW_OR_AT = re.compile(r"equal|_le(\b|_)|_lte(\b|_)|max", re.IGNORECASE)
# The words of a name, split at `_`, digits and camelCase humps (`isTorchVersionAtLeast`: is,
# Torch, Version, At, Least; `TORCHVISION_GE`: TORCHVISION, GE).
_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _names_torch(name: str) -> bool:
    """Whether a name speaks of torch itself: a word of it is `torch` or `pytorch`, not a
    sibling package's name (`torchvision`, `torchrl`, `torchcodec`, `TORCHX`)."""
    return "torch" in name.lower() \
        and any(word.lower() in ("torch", "pytorch") for word in _NAME_WORDS.findall(name))
# A flag whose name says the comparison and one release, and nothing else: `_TORCH_GREATER_EQUAL_2_5`,
# `TORCH_LT_2_6`, `is_torch_version_at_least_2_4`. A name that says more (`_GE_2_4_LT_2_6`,
# `PY_3_10_AND_TORCH_GE_2_6`, `TORCH_GE_2_6_1`, `NOT_LESS_THAN`, `2_6_OR_OLDER`) is not read.
_FLAG_NAME = re.compile(
    r"_*(?:is_|has_)?(?:py)?torch_(?:version_|ver_)?(?:is_)?"
    r"(?:(?P<at_least>ge|gte|greater_equal|greater_or_equal|greater_than_or_equal|greater_or_equal_than"
    r"|at_?least|min)"
    r"|(?P<above>gt|greater|greater_than|newer|newer_than|after)"
    r"|(?P<below>lt|less|less_than|older|older_than|before|below)"
    r"|(?P<at_most>le|lte|less_equal|less_or_equal|less_than_or_equal|max))"
    r"_v?(?P<major>\d{1,3})_(?P<minor>\d{1,3})", re.IGNORECASE)
# The release first, then the comparison: `IS_TORCH_V2_5_OR_NEWER`, `TORCH_2_6_OR_OLDER`.
_FLAG_NAME_RELEASE_FIRST = re.compile(
    r"_*(?:is_|has_)?(?:py)?torch_(?:version_|ver_)?v?(?P<major>\d{1,3})_(?P<minor>\d{1,3})_or_"
    r"(?:(?P<at_least>newer|later|above|greater|up)|(?P<at_most>older|earlier|below|less|lower))",
    re.IGNORECASE)
# A bound with more comparisons than this is not read (`F2 = F1 and F1`, `F3 = F2 and F2`...
# doubles it).
_MOST_COMPARISONS = 32
_MINOR = re.compile(r"^\s*v?(\d{1,9})[._](\d{1,9})")  # (a longer number is no release: not read)
_NO_PATCH = re.compile(r"(?:[._]0)*\s*$")  # what may follow "2.4" in "2.4.0": nothing but zeros


def negate(bound: Bound) -> Bound:
    op, operand = bound
    if op == "any":
        return bound  # what is no version check may be false anywhere, as it may be true
    if op in ("and", "or"):
        return ("or" if op == "and" else "and"), tuple(negate(part) for part in operand)
    if op.endswith("~"):
        return _NEGATED[op[:-1]] + "~", operand
    return _NEGATED[op], operand


def admits(bound: Bound, minor: tuple[int, int]) -> bool:
    """Whether a minor release satisfies a bound (at minor precision: `>= 2.4.1` admits 2.4)."""
    op, edge = bound
    if op == "any":
        return True
    if op == "and":
        return all(admits(part, minor) for part in edge)
    if op == "or":
        return any(admits(part, minor) for part in edge)
    if op.endswith("~"):
        if minor == edge:
            return True  # some patch release of the edge's own minor takes either branch
        op = op[:-1]
    return {">=": minor >= edge, ">": minor > edge, "<": minor < edge, "<=": minor <= edge,
            "==": minor == edge, "!=": minor != edge}[op]


def _edge_of(node: cst.BaseExpression) -> tuple[tuple[int, int], bool] | None:
    """The minor release a version literal names (`"2.4"`, `Version("2.4.0")`, `parse("2.4")`,
    `(2, 4)`), and whether it is exactly that minor's first release (`"2.4"`, `"2.4.0"`; not
    `"2.4.1"`, `"2.6.0a"`, nor a tuple, which may be compared with a longer one)."""
    text = string_value(node)
    if text is None and isinstance(node, cst.Call) and len(node.args) == 1:
        text = string_value(node.args[0].value)
    if text is not None:
        match = _MINOR.match(text)
        if match is None:
            return None
        return (int(match.group(1)), int(match.group(2))), _NO_PATCH.match(text, match.end()) is not None
    if isinstance(node, cst.Tuple) and len(node.elements) >= 2 and all(
            isinstance(e.value, cst.Integer) and len(e.value.value) <= 12 for e in node.elements[:2]):
        # Any integer literal (`0x2`, `1_0`), as Python reads it.
        major, minor = (int(e.value.value, 0) if e.value.value.strip("0_") else 0
                        for e in node.elements[:2])
        return (major, minor), False
    return None


def _leaf(op: str, node: cst.BaseExpression, exact: bool = True) -> Bound | None:
    """A comparison of torch's release with the literal `node` at minor precision: exact only
    for `>=` and `<` against a minor's first release; otherwise the edge's minor may take
    either branch (`> 2.4` holds on 2.4.1; `>= 2.4.1` fails on 2.4.0; `== 2.4` fails on 2.4.1).
    `exact`: whether what compares says its operator plainly (a helper's name may not)."""
    edge = _edge_of(node)
    if edge is None:
        return None
    minor, first_release = edge
    return _edge_bound(op, minor, exact and first_release)


def _edge_bound(op: str, minor: tuple[int, int], exact: bool) -> Bound:
    return (op, minor) if exact and op in (">=", "<") else (op + "~", minor)


def _named(name: str) -> tuple[str, bool] | None:
    """The comparison a helper's or flag's name says (`is_torch_min_version`: `>=`), and
    whether it says it plainly."""
    if _AT_LEAST.search(name):
        return ">=", _PLAINLY_AT_LEAST.search(name) is not None
    if _BELOW.search(name):
        return "<", _BELOW_OR_AT.search(name) is None
    return None


def _size(bound: Bound) -> int:
    """How many comparisons a bound holds."""
    return sum(_size(part) for part in bound[1]) if bound[0] in ("and", "or") else 1


def version_bound(node: cst.BaseExpression, lookup: Lookup) -> Bound | None:
    """The torch releases a version check admits when true, where it can be read:
    `is_torch_min_version("2.4")`, `is_torch_version("<", "2.5")`, `Version(torch.__version__)
    >= Version("2.10")`, `TORCH_VERSION >= (2, 4)`, `_TORCH_GREATER_EQUAL_2_5`, a flag set
    from one of those."""
    if isinstance(node, (cst.Name, cst.Attribute)):
        parts = dotted_parts(node)
        binding = lookup(parts[0]) if parts and len(parts) == 1 else None
        if binding is not None and binding.kind == VERFLAG:
            return binding.origin  # what the file gave it (None: not read), not what its name says
        if binding is not None and binding.kind != PATH:
            return None  # bound here to something else (`= False`, a parameter): the name may lie
        # Unbound here, or imported (`from .utils import _TORCH_GREATER_EQUAL_2_5`): its name.
        named = (_FLAG_NAME.fullmatch(parts[-1]) or _FLAG_NAME_RELEASE_FIRST.fullmatch(parts[-1])) \
            if parts else None
        if named is None:
            return None
        edge = (int(named.group("major")), int(named.group("minor")))  # a minor's first release
        if named.group("at_least"):
            return ">=", edge
        if named.groupdict().get("below"):
            return "<", edge
        return (">~" if named.groupdict().get("above") else "<=~"), edge
    if isinstance(node, cst.Call):
        name = "_".join(dotted_parts(node.func) or ())
        if not _names_torch(name):
            return None
        if len(node.args) == 1 and node.args[0].keyword is not None \
                and node.args[0].keyword.value == "min_version":
            # deepspeed's `required_torch_version(min_version=2.5)`: a number is read as the
            # helper does, through `str` (`2.10` is 2.1 there).
            value = node.args[0].value
            if type(value) is cst.Float:
                value = cst.SimpleString(repr(repr(float(value.value))))
            return _leaf(">=", value)
        strings = [string_value(a.value) for a in node.args if a.keyword is None]
        if len(strings) == 2 and strings[0] in _NEGATED and strings[1] is not None:
            return _leaf(strings[0], node.args[1].value)
        named = _named(name) if len(node.args) == 1 else None
        return _leaf(named[0], node.args[0].value, named[1]) if named is not None else None
    if isinstance(node, cst.Comparison):
        # `lo <= v < hi` is `lo <= v and v < hi`: each link read on its own.
        bounds: list[Bound] = []
        left = node.left
        for target in node.comparisons:
            bound = _compared(left, target.operator, target.comparator, lookup)
            if bound is None:
                return None
            bounds.append(bound)
            left = target.comparator
        if all(bound is ANY for bound in bounds) or len(bounds) > _MOST_COMPARISONS:
            return None
        whole = bounds[0]
        for bound in bounds[1:]:
            whole = ("and", (whole, bound))
        return whole
    return None


def _compared(left: cst.BaseExpression, operator: cst.BaseCompOp, right: cst.BaseExpression,
              lookup: Lookup) -> Bound | None:
    """One link of a comparison: the bound it puts on torch's release, ANY when it reads no
    version (`0 < n` in `0 < n and ...`), None when it reads one the text does not say."""
    left_reads, right_reads = mentions_torch_version(left, lookup), mentions_torch_version(right, lookup)
    if not left_reads and not right_reads:
        return ANY
    op = _OPERATORS.get(type(operator))
    if op is None or left_reads == right_reads:
        return None
    version, literal = (left, right) if left_reads else (right, left)
    if string_value(literal) is not None and not _is_torch_version(version, lookup):
        return None  # `str(torch.__version__) < "2.4"` compares letters: "2.10" < "2.4"
    return _leaf(op if left_reads else _FLIPPED[op], literal)


def _is_torch_version(node: cst.BaseExpression, lookup: Lookup) -> bool:
    """Whether `node` is `torch.__version__` itself, which compares with a string as a release
    (a TorchVersion), where a plain string (`torch.version.__version__`, `str(...)`, a slice)
    compares letter by letter."""
    parts = dotted_parts(node) if type(node) in (cst.Name, cst.Attribute) else None
    if not parts or parts[-1] != "__version__" or len(parts) > 2:
        return False
    if len(parts) == 1:  # `from torch import __version__`
        binding = lookup(parts[0])
        return binding is not None and binding.kind == PATH and binding.value == "torch.__version__"
    root = lookup(parts[0])
    return parts[0] == "torch" if root is None else (root.kind == PATH and root.value == "torch")


@dataclass(frozen=True)
class Facts:
    when_true: frozenset[str] = frozenset()
    when_false: frozenset[str] = frozenset()
    version: bool = False
    # When the condition is a readable torch version comparison: what holds when it is true,
    # as (operator, minor release), e.g. (">=", (2, 10)). None when unreadable or not one.
    bound: Bound | None = None
    # Whether the torch version decides that the true branch runs, and the false one: both,
    # for a version check; under `x or <check>` the true branch runs on any torch when `x`
    # holds, and under `x and <check>` the false one does. None: both are `version`.
    decides: tuple[bool, bool] | None = None
    # The paths probed (`torch.distributed.distributed_c10d.get_global_rank` for
    # `hasattr(c10d, "get_global_rank")`): in a branch where the member is absent, what a
    # public twin's fallback stands in for. Never what a branch proves present.
    probed: frozenset[str] = frozenset()
    # What each branch proves absent, where that is not what the other proves present (under
    # `hasattr(x, "m") and c` the false branch runs with `m` present when `c` is false).
    absent: tuple[frozenset[str], frozenset[str]] | None = None
    # The probes as written (`torch.compiler.allow_in_graph` for `hasattr(torch.compiler,
    # "allow_in_graph")`), when the condition is a probe or an `and` of them: a chain.
    chain: frozenset[str] = frozenset()

    def negated(self) -> "Facts":
        return Facts(self.when_false, self.when_true, self.version,
                     negate(self.bound) if self.bound else None,
                     (self.decides[1], self.decides[0]) if self.decides else None, self.probed,
                     (self.absent[1], self.absent[0]) if self.absent else None)

    def absent_in(self, taken: bool) -> frozenset[str]:
        """What is known absent in this branch (a single probe: absent where it failed)."""
        if self.absent is not None:
            return self.absent[0 if taken else 1]
        return self.when_false if taken else self.when_true

    def decided(self, taken: bool) -> bool:
        """Whether the torch version decides that this branch runs."""
        return (self.decides or (self.version, self.version))[0 if taken else 1]


NO_FACTS = Facts()


def _probe_member(node: cst.Call) -> str | None:
    """`hasattr(x, "_m")`, or `getattr(x, "_m", <default>)`: the member probed, else None."""
    if not isinstance(node.func, cst.Name) or len(node.args) < 2:
        return None
    name = node.func.value
    if name == "hasattr" or (name == "getattr" and len(node.args) >= 3):
        return string_value(node.args[1].value)
    return None


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def is_type_checking(node: cst.BaseExpression) -> bool:
    parts = dotted_parts(node)
    return bool(parts) and parts[-1] == "TYPE_CHECKING"


def mentions_torch_version(node: cst.BaseExpression, lookup: Lookup) -> bool:
    """True if the expression reads torch's version (directly, by a helper, or by a flag)."""
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)  # (exact types: libcst's node classes are ABCs, slow in isinstance)
        parts = dotted_parts(current) if kind is cst.Name or kind is cst.Attribute else None
        if parts:
            if "__version__" in parts:
                root = lookup(parts[0])
                if parts[0] == "torch" or (root is not None and root.kind == PATH
                                           and root.value.split(".")[0] == "torch"):
                    return True
                continue  # another package's version (`tensordict.__version__`) is no torch gate
            if parts[0] != "torch" or len(parts) == 1:
                binding = lookup(parts[0])
                if binding is not None and binding.kind == VERFLAG:
                    return True
            elif "torch_version" not in parts:
                # torch's own attributes name its release only as `__version__` (above) or
                # in `torch.torch_version`: `torch.version.cuda`, `torch.backends.cudnn.version()`
                # are the CUDA toolkit's and cuDNN's.
                continue
            joined = "_".join(parts)
            if _names_torch(joined) and _VERSION_WORDS.search(joined):
                return True
            continue
        stack.extend(children(current))
    return False


def _joined(operator: cst.BaseBooleanOp, left: Facts, right: Facts) -> Bound | None:
    """The bound of `left and right` (or `or`) when true: a side that is no version check
    bounds nothing (ANY); a version check the text cannot read leaves the whole unread."""
    sides = []
    for side in (left, right):
        if side.version and side.bound is None:
            return None
        sides.append(side.bound if side.version else ANY)
    if _size(sides[0]) + _size(sides[1]) > _MOST_COMPARISONS:
        return None
    return ("and" if isinstance(operator, cst.And) else "or"), tuple(sides)


def condition_facts(node: cst.BaseExpression, lookup: Lookup) -> Facts:
    """What holds in each branch of a condition (conservative: unknown proves nothing)."""
    kind = type(node)  # (exact types: libcst's node classes are ABCs, slow in isinstance)
    if kind is cst.UnaryOperation and type(node.operator) is cst.Not:
        return condition_facts(node.expression, lookup).negated()
    if kind is cst.BooleanOperation:
        left = condition_facts(node.left, lookup)
        right = condition_facts(node.right, lookup)
        version = left.version or right.version
        probed = left.probed | right.probed
        bound = _joined(node.operator, left, right) if version else None
        if isinstance(node.operator, cst.And):
            # `hasattr(torch, "compiler") and hasattr(torch.compiler, "x")` is false where either
            # fails, and `torch.compiler.x` is missing either way.
            chained = frozenset(path.rpartition(".")[2] for path in right.chain
                                if path.rpartition(".")[0] in left.chain)
            return Facts(left.when_true | right.when_true, left.when_false & right.when_false, version,
                         decides=(left.decided(True) or right.decided(True),
                                  left.decided(False) and right.decided(False)), probed=probed,
                         absent=(left.absent_in(True) | right.absent_in(True),
                                 (left.absent_in(False) & right.absent_in(False)) | chained),
                         chain=left.chain | right.chain, bound=bound)
        return Facts(left.when_true & right.when_true, left.when_false | right.when_false, version,
                     decides=(left.decided(True) and right.decided(True),
                              left.decided(False) or right.decided(False)), probed=probed,
                     absent=(left.absent_in(True) & right.absent_in(True),
                             left.absent_in(False) | right.absent_in(False)), bound=bound)
    if kind is cst.Call:
        member = _probe_member(node)
        if member:
            # The probed object's path too, where it resolves (`hasattr(c10d, "get_global_rank")`:
            # `torch.distributed.distributed_c10d.get_global_rank`), for a public twin's fallback.
            parts = dotted_parts(node.args[0].value)
            chain = frozenset({".".join([*parts, member])}) if parts else frozenset()
            root = lookup(parts[0]) if parts else None
            if root is not None and root.kind == PATH:
                return Facts(frozenset({member}), chain=chain,
                             probed=frozenset({".".join([root.value, *parts[1:], member])}))
            if root is None and parts and parts[0] == "torch":  # (bound where the text does not show)
                return Facts(frozenset({member}), chain=chain, probed=chain)
            return Facts(frozenset({member}), chain=chain)
        if isinstance(node.func, cst.Name):  # a predicate helper: `def has_x(): return hasattr(...)`
            binding = lookup(node.func.value)
            if binding is not None and binding.members:
                return Facts(binding.members)
        func = node.func
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value in ("self", "cls"):
            binding = lookup(f"self.{predicate_key(func.attr.value)}")  # the same, as a method
            if binding is not None and binding.members:
                return Facts(binding.members)
        if isinstance(node.func, cst.Name) and node.func.value in ("callable", "bool") and node.args:
            return condition_facts(node.args[0].value, lookup)
    if kind is cst.Comparison and len(node.comparisons) == 1:
        target = node.comparisons[0]
        member = string_value(node.left)
        if member and isinstance(target.operator, (cst.In, cst.NotIn)) \
                and isinstance(target.comparator, cst.Call) \
                and isinstance(target.comparator.func, cst.Name) \
                and target.comparator.func.value == "dir" and len(target.comparator.args) == 1:
            facts = Facts(frozenset({member}))  # `"_x" in dir(obj)`
            return facts if isinstance(target.operator, cst.In) else facts.negated()
        if isinstance(node.left, cst.Call) and _is_none(target.comparator):
            member = _probe_member(node.left)
            if member and isinstance(target.operator, cst.IsNot):
                return Facts(frozenset({member}))
            if member and isinstance(target.operator, cst.Is):
                return Facts(frozenset(), frozenset({member}))
    if kind is cst.Name or (kind is cst.Attribute and type(node.value) is cst.Name
                            and node.value.value in ("self", "cls")):
        # A flag: `HAS_X = hasattr(...)`, or `self.has_x = hasattr(...)` set in `__init__`.
        key = node.value if kind is cst.Name else f"self.{node.attr.value}"
        binding = lookup(key)
        if (binding is None or binding.kind != CAPFLAG) and kind is cst.Attribute \
                and node.value.value == "self":  # a property runs on an instance, not on `cls`
            binding = lookup(f"self.{property_key(node.attr.value)}")
        if binding is not None and binding.kind == CAPFLAG:
            return Facts(binding.members)
    if mentions_torch_version(node, lookup):
        return Facts(version=True, bound=version_bound(node, lookup))
    return NO_FACTS


def catches_every_import_error(handler_type: cst.BaseExpression | None) -> bool:
    """Whether an `except` clause catches every ImportError (not only ModuleNotFoundError)."""
    if handler_type is None:
        return True
    if isinstance(handler_type, cst.Tuple):
        return any(catches_every_import_error(element.value) for element in handler_type.elements)
    parts = dotted_parts(handler_type)
    return bool(parts) and parts[-1] in ("ImportError", "Exception", "BaseException")


def caught_kinds(handler_type: cst.BaseExpression | None) -> frozenset[str]:
    """What a missing API raises that this `except` clause catches."""
    if handler_type is None:
        return frozenset({ATTRIBUTE, IMPORT, CALL})
    if isinstance(handler_type, cst.Tuple):
        kinds: set[str] = set()
        for element in handler_type.elements:
            kinds |= caught_kinds(element.value)
        return frozenset(kinds)
    parts = dotted_parts(handler_type)
    return frozenset(_CATCHES.get(parts[-1], ())) if parts else frozenset()


def last_statement(body: cst.BaseSuite) -> cst.CSTNode | None:
    """A block's last statement, a small one where its last line holds several."""
    last = body.body[-1] if body.body else None
    if type(last) is cst.SimpleStatementLine:
        last = last.body[-1]
    return last


def ends_in_exit(body: cst.BaseSuite) -> bool:
    """True if a block always leaves its enclosing block: return, raise, continue, break."""
    return isinstance(last_statement(body), (cst.Return, cst.Raise, cst.Continue, cst.Break))


def _small_statements(body: cst.BaseSuite):
    """A block's own small statements, not those nested in its compound ones (a block written
    on its header's line, `except ImportError: HAS = False`, holds them directly)."""
    if type(body) is cst.SimpleStatementSuite:
        yield from body.body
        return
    for statement in body.body:
        if type(statement) is cst.SimpleStatementLine:
            yield from statement.body


def literal_set(small: cst.BaseSmallStatement) -> tuple[str, str] | None:
    """(name, "True" or "False") for `name = True` and `name: bool = False`."""
    if type(small) is cst.Assign and len(small.targets) == 1:
        target, value = small.targets[0].target, small.value
    elif type(small) is cst.AnnAssign and small.value is not None:
        target, value = small.target, small.value
    else:
        return None
    if type(target) is cst.Name and type(value) is cst.Name and value.value in ("True", "False"):
        return target.value, value.value
    return None


def _sets(body: cst.BaseSuite, value: str) -> set[str]:
    """The names a block's own statements set to True (or False)."""
    return {found[0] for small in _small_statements(body)
            if (found := literal_set(small)) is not None and found[1] == value}


def _bound_besides(body: cst.BaseSuite, value: str) -> frozenset[str]:
    """The names a block binds other than by its own `name = <value>` statements."""
    found: set[str] = set()
    statements = body.body if type(body) is not cst.SimpleStatementSuite else [body]
    for statement in statements:
        if type(statement) is cst.IndentedBlock or type(statement) not in (
                cst.SimpleStatementLine, cst.SimpleStatementSuite):
            found |= bound_names(statement)
            continue
        for small in statement.body:
            setting = literal_set(small)
            if setting is None or setting[1] != value:
                found |= bound_names(small)
    return frozenset(found)


def leaves(body: cst.BaseSuite, branches: bool = True) -> bool:
    """Whether a block never goes on to what follows it (nor to the code after a loop around
    it): it ends in `raise` or `return`, a call that ends the process or the test module
    (`sys.exit(1)`, `pytest.skip(...)`), or (with `branches`) an `if` whose every branch
    leaves."""
    last = last_statement(body)
    kind = type(last)
    if kind is cst.Raise or kind is cst.Return:
        return True
    if kind is cst.Expr and type(last.value) is cst.Call:
        parts = dotted_parts(last.value.func)
        return parts is not None and ".".join(parts) in ENDING_CALLS
    if kind is cst.If and branches:
        branch = last
        while type(branch) is cst.If:
            if not leaves(branch.body) or branch.orelse is None:
                return False
            branch = branch.orelse
        return leaves(branch.body)
    return False


def _imported_private_paths(imports: list[cst.Import | cst.ImportFrom]) -> frozenset[str]:
    """The private torch paths the imports import (`torch._dynamo` for `import torch._dynamo`,
    `torch.distributed._composable.fsdp.fully_shard` for `from torch.distributed._composable.fsdp
    import fully_shard`): what a flag true only after they worked proves present, with what
    they hold (Guard.present: a dotted entry is a path, a plain one a member's name)."""
    found: set[str] = set()
    for small in imports:
        if type(small) is cst.Import:
            paths = [dotted_parts(alias.name) or [] for alias in small.names]
        elif small.module is None or small.relative or isinstance(small.names, cst.ImportStar):
            continue
        else:
            module = dotted_parts(small.module) or []
            paths = [module + (dotted_parts(alias.name) or [])[:1] for alias in small.names]
        found.update(".".join(path) for path in paths
                     if path[:1] == ["torch"] and len(path) > 1 and any(is_private(p) for p in path))
    return frozenset(found)


def try_flag(node: cst.Try | cst.TryStar, before: Callable[[str], "str | None"],
             swallowed: bool = False) -> tuple[frozenset[str], frozenset[str]] | None:
    """The flags a `try` sets for the private torch imports its body makes: (their names, what
    they prove present, _imported_private_paths). After the `try`, such a flag is true only
    where every import of the body worked. `before`: the literal (`"True"`, `"False"`) a name
    held when the `try` began, if it was one. A name is such a flag when
    - every handler that does not leave (`raise`, `return`, `sys.exit(...)`: `leaves`) sets it
      to False and binds it no other way, or, when it was False before the `try`, binds it
      not at all while it is set True only after the body's last import or in the `else`,
      and the body binds it no other way (`before` says nothing in a loop: the default holds
      on the first pass only);
    - inside a `try` or `suppress` that catches what an import raises (`swallowed`), a handler
      catches every ImportError (one for `ModuleNotFoundError` alone lets the others by, and
      the one around swallows them); outside any, an ImportError it lets by ends the module;
    - no `finally` binds it (a handler that leaves by `break` or `continue` does not leave:
      the code after the loop runs with the flag as it was);
    - it is set True in the body or the `else`, or set False in a handler."""
    statements = list(_small_statements(node.body))
    at_imports = [at for at, small in enumerate(statements)
                  if type(small) is cst.Import or type(small) is cst.ImportFrom]
    members = _imported_private_paths([statements[at] for at in at_imports])
    if not members:
        return None
    last_import = at_imports[-1]
    # Set True only once every import worked: after the last one, or in the `else`.
    proven = {found[0] for small in statements[last_import + 1:]
              if (found := literal_set(small)) is not None and found[1] == "True"}
    if node.orelse is not None:
        proven |= _sets(node.orelse.body, "True")
    # What the body binds any other way: a flag it sets so may be true when an import failed.
    otherwise = _bound_besides(node.body, "True") | {
        found[0] for small in statements[:last_import + 1] if (found := literal_set(small)) is not None}
    if swallowed and not any(catches_every_import_error(handler.type) for handler in node.handlers):
        return None  # an ImportError the handlers let by may be swallowed further out
    names = _sets(node.body, "True") | proven
    falling = [handler for handler in node.handlers if not leaves(handler.body)]
    for handler in falling:
        names |= _sets(handler.body, "False")
    for handler in falling:
        cleared = _sets(handler.body, "False") - _bound_besides(handler.body, "False")
        untouched = {name for name in names - bound_names(handler.body)
                     if before(name) == "False" and name in proven and name not in otherwise}
        names &= cleared | untouched
    if node.finalbody is not None:
        names -= bound_names(node.finalbody)
    return (frozenset(names), members) if names else None


@dataclass(frozen=True)
class Guard:
    """What is known to hold in a region of code."""

    present: frozenset[str] = frozenset()     # members proven present (hasattr & co.)
    probed_public: frozenset[str] = frozenset()  # public members proven absent: a fallback branch
    # An `except` handler is a fallback only for APIs its try body did not use: a handler that
    # repeats the body's private access fails the same way.
    repeats: frozenset[str] = frozenset()
    catches: frozenset[str] = frozenset()     # ATTRIBUTE / IMPORT failures caught around it
    depth: int = 0                            # the def/lambda nesting the `catches` hold in
    version: bool = False                     # a torch version comparison decides it
    gate: tuple[int, bool] | None = None      # (id of the version check, which branch)
    bound: Bound | None = None                # the torch releases that reach this branch
    exempt: bool = False                      # never runs (`if TYPE_CHECKING:`)
    before: tuple[int, int] | None = None     # runs only on releases older than this minor
    within: int | None = None                 # id of the `try` whose body or `else` this is

    @classmethod
    def branch(cls, facts: Facts, taken: bool, gate: int | None = None) -> "Guard":
        present = facts.when_true if taken else facts.when_false
        absent = facts.absent_in(taken)
        absent |= {path for path in facts.probed if path.rsplit(".", 1)[-1] in absent}
        bound = facts.bound if taken or facts.bound is None else negate(facts.bound)
        version = facts.decided(taken)
        return cls(present=present, probed_public=absent, version=version,
                   gate=(gate, taken) if gate is not None and version else None,
                   bound=bound if version else None)
