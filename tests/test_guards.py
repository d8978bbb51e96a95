"""The specification of guard reading, receiver annotations and catalog matching, in process."""

from __future__ import annotations

import libcst as cst
import pytest

from privlint.catalog import load_catalog
from privlint.guards import ATTRIBUTE, CALL, IMPORT, Facts, caught_kinds, condition_facts
from privlint.resolve import CAPFLAG, ELEMENTS, FUNCTION, INSTANCE, PATH, Binding, Resolver

CATALOG = load_catalog()
MESH = "torch.distributed.device_mesh.DeviceMesh"
NAMES = {
    "torch": Binding(PATH, "torch"),
    "tensordict": Binding(PATH, "tensordict"),
    "HAS_FLAT": Binding(CAPFLAG, members=frozenset({"_flatten"})),
    "self.has_root": Binding(CAPFLAG, members=frozenset({"_get_root_mesh"})),
    "has_unflatten": Binding(FUNCTION, members=frozenset({"_unflatten"})),
}


def facts(text: str) -> Facts:
    return condition_facts(cst.parse_expression(text), NAMES.get)


@pytest.mark.parametrize("condition,when_true,when_false", [
    ('hasattr(m, "_unflatten")', {"_unflatten"}, set()),
    ('not hasattr(m, "_unflatten")', set(), {"_unflatten"}),
    ('getattr(m, "_x", None) is not None', {"_x"}, set()),
    ('getattr(m, "_x", None) is None', set(), {"_x"}),
    ('hasattr(m, "_a") and hasattr(m, "_b")', {"_a", "_b"}, set()),
    ('hasattr(m, "_a") or hasattr(m, "_b")', set(), set()),
    ('not (hasattr(m, "_a") and hasattr(m, "_b"))', set(), {"_a", "_b"}),
    ('not (hasattr(m, "_a") or hasattr(m, "_b"))', set(), set()),
    ('"_x" in dir(m)', {"_x"}, set()),
    ('"_x" not in dir(dist)', set(), {"_x"}),
    ("HAS_FLAT", {"_flatten"}, set()),
    ("self.has_root", {"_get_root_mesh"}, set()),
    ("has_unflatten(mesh)", {"_unflatten"}, set()),
    ("callable(getattr(m, '_x', None))", {"_x"}, set()),
    ("m.ready", set(), set()),
    ("'_x' in names", set(), set()),  # membership in anything but dir() proves nothing
])
def test_what_a_condition_proves(condition, when_true, when_false):
    result = facts(condition)
    assert (set(result.when_true), set(result.when_false)) == (when_true, when_false)
    assert not result.version


@pytest.mark.parametrize("condition,is_version", [
    ("version.parse(torch.__version__) >= version.parse('2.10')", True),
    ("is_torch_version('>=', '2.5')", True),
    ("_TORCH_GREATER_EQUAL_2_5", True),
    ("parse(tensordict.__version__) < parse('0.10')", False),  # another package's version
    ("sys.version_info >= (3, 11)", False),
])
def test_which_conditions_are_torch_version_checks(condition, is_version):
    assert facts(condition).version is is_version


@pytest.mark.parametrize("handler,kinds", [
    ("ImportError", {IMPORT}),
    ("ModuleNotFoundError", {IMPORT}),
    ("AttributeError", {ATTRIBUTE}),
    ("(ImportError, AttributeError)", {IMPORT, ATTRIBUTE}),
    ("Exception", {IMPORT, ATTRIBUTE, CALL}),
    ("TypeError", {CALL}),  # a keyword the installed release does not take yet
    ("ValueError", set()),
    ("(ValueError, RuntimeError)", set()),
])
def test_what_a_handler_catches(handler, kinds):
    assert caught_kinds(cst.parse_expression(handler)) == kinds


@pytest.mark.parametrize("annotation,expected", [
    ("DeviceMesh", Binding(INSTANCE, MESH)),
    ("Optional[DeviceMesh]", Binding(INSTANCE, MESH)),
    ("DeviceMesh | None", Binding(INSTANCE, MESH)),
    ("'DeviceMesh'", Binding(INSTANCE, MESH)),
    ("list[DeviceMesh]", Binding(ELEMENTS, MESH)),
    ("dict[str, DeviceMesh]", Binding(ELEMENTS, MESH)),
    ("Mapping[str, DeviceMesh]", Binding(ELEMENTS, MESH)),
    ("dict[DeviceMesh, int]", None),  # keys are not what a subscript gives
    ("Any", None),
])
def test_annotations_type_receivers(annotation, expected):
    resolver = Resolver(CATALOG)
    resolver.bind("DeviceMesh", Binding(PATH, MESH))
    assert resolver.annotation(cst.parse_expression(annotation)) == expected


@pytest.mark.parametrize("path,code", [
    ("torch.distributed.device_mesh.DeviceMesh._unflatten", "PRV101"),
    ("torch.distributed.DeviceMesh._flatten", "PRV102"),  # a re-export reports its home
    ("torch.distributed._tensor", "PRV201"),
    ("torch.distributed._tensor.DTensor", "PRV201"),
    ("torch._C._cpu._is_vnni_supported", "PRV401"),
    ("torch.nn.init._calculate_fan_in_and_fan_out", "PRV900"),  # known only to be private
    ("torch.ops.mylib._op", None),      # a project's operator namespace
    ("torch.npu._lazy_init", None),     # a vendor's namespace
    ("torch.supa._lazy_call", None),    # another (deepspeed's SUPA accelerator)
    ("torch.distributed.all_reduce", None),
])
def test_catalog_match(path, code):
    matched = CATALOG.match(path)
    assert (matched[0].code if matched else None) == code


def test_a_bound_of_too_many_comparisons_is_not_read():
    """An `and` of 33 version checks bounds nothing (still a version check): a flag built from
    itself would double its bound with each step."""
    check = 'Version(torch.__version__) >= Version("2.0")'
    readable = facts(" and ".join([check] * 32))
    assert readable.version and readable.bound is not None
    unread = facts(" and ".join([check] * 33))
    assert unread.version and unread.bound is None
    assert facts(" < ".join(['"2.0"', "torch.__version__"] * 16 + ['"2.0"'])).bound is not None  # 32 links
    chained = facts(" < ".join(['"2.0"', "torch.__version__"] * 17))  # 33 links
    assert chained.version and chained.bound is None
