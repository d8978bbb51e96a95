"""`equivalent = true` in the catalog is a claim, checked here against real torch builds: the
installed one, and the old one (torch 2.4.1, see tests/test_fix_oracle.py) where it is there.

On every build that has both the private API and its public twin, their signatures must agree
(parameter names, kinds, defaults; annotations aside), or, where the rule lists
`equivalent-params`, the public one must take exactly those parameters the private one has
among them, with the same kinds and defaults. Every equivalent rule must be checked on at least
one build. Behaviour is checked by the execution oracle.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "oracle"))

import harness  # noqa: E402
from privlint.catalog import load_catalog  # noqa: E402

pytest.importorskip("torch")

_PROBE = r'''
import importlib, inspect, json, sys

MISSING = object()

def resolve(path):
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                return MISSING
            obj = getattr(obj, name)
        return obj
    return MISSING

def describe(obj):
    if obj is MISSING:
        return None
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return "no signature"
    return [[p.name, p.kind.name, repr(p.default)] for p in signature.parameters.values()]

out = {}
for private, public in json.loads(sys.argv[1]):
    out[private] = [describe(resolve(private)), describe(resolve(public))]
print(json.dumps(out))
'''


def _claims():
    return [r for r in load_catalog().rules if r.equivalent and r.replacement]


def _signatures(python: str, pairs: list[tuple[str, str]]) -> dict:
    result = subprocess.run([python, "-c", _PROBE, json.dumps(pairs)], capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def _disagreement(rule, private, public) -> str | None:
    if rule.equivalent_params:
        mine = {p[0]: p for p in private}
        theirs = {p[0]: p for p in public}
        expected = {name for name in rule.equivalent_params if name in mine}
        if set(theirs) != expected:
            return f"public takes {sorted(theirs)}, the claim covers {sorted(expected)}"
        for name in expected:
            if mine[name][1:] != theirs[name][1:]:
                return f"`{name}`: private {mine[name][1:]}, public {theirs[name][1:]}"
        return None
    return None if private == public else f"private {private}, public {public}"


def test_equivalent_claims_match_the_signatures_on_every_build():
    claims = _claims()
    assert claims
    pairs = [(alias, rule.replacement) for rule in claims for alias in (rule.api, *rule.aliases)]
    builds = {"installed": sys.executable}
    old = harness.old_python()
    if old is not None:
        builds["old"] = str(old)
    checked: dict[str, list[str]] = {rule.code: [] for rule in claims}
    problems = []
    for build, python in builds.items():
        signatures = _signatures(python, pairs)
        for rule in claims:
            for alias in (rule.api, *rule.aliases):
                private, public = signatures[alias]
                if private is None or public is None:
                    continue  # this build lacks one of them: nothing to compare here
                checked[rule.code].append(build)
                problem = _disagreement(rule, private, public)
                if problem:
                    problems.append(f"{rule.code} {alias} on {build}: {problem}")
    assert not problems, "\n".join(problems)
    unchecked = [code for code, where in checked.items() if not where]
    assert not unchecked, f"equivalence claimed but never checked (no build has both): {unchecked}"


def test_the_check_goes_red_on_a_false_claim():
    """`torch._dynamo.disable` takes `wrapping=`, `torch.compiler.disable` does not: claiming the
    full signatures equal must fail on the installed torch."""
    rule = next(r for r in _claims() if r.api == "torch._dynamo.disable")
    private, public = _signatures(sys.executable, [(rule.api, rule.replacement)])[rule.api]
    assert _disagreement(rule, private, public) is None
    claimed_whole = type(rule)(**{**rule.__dict__, "equivalent_params": ()})
    assert _disagreement(claimed_whole, private, public) is not None


_NAMES_PROBE = r'''
import importlib, json, sys

out = {}
for private, public, names in json.loads(sys.argv[1]):
    try:
        a, b = importlib.import_module(private), importlib.import_module(public)
    except ImportError:
        out[private] = None
        continue
    out[private] = {n: [hasattr(a, n), hasattr(b, n), getattr(a, n, None) is getattr(b, n, None)]
                    for n in names}
print(json.dumps(out))
'''


def test_public_names_are_the_same_objects_as_the_private_ones():
    """`public-names` lets an import fix be safe: where both modules have a name, on every build,
    it must be the very same object (where only one has it, the import probe decides)."""
    rules = [r for r in load_catalog().rules if r.public_names and r.fix]
    assert rules
    spec = json.dumps([(r.api, r.replacement, list(r.public_names)) for r in rules])
    builds = [sys.executable] + ([str(harness.old_python())] if harness.old_python() else [])
    problems, checked = [], set()
    for python in builds:
        result = subprocess.run([python, "-c", _NAMES_PROBE, spec], capture_output=True, text=True,
                                timeout=600)
        assert result.returncode == 0, result.stderr[-3000:]
        for private, names in json.loads(result.stdout.strip().splitlines()[-1]).items():
            for name, (in_private, in_public, same) in (names or {}).items():
                if in_private and in_public:
                    checked.add(private)
                    if not same:
                        problems.append(f"{private}.{name} is not {name} of the public module ({python})")
    assert not problems, "\n".join(problems)
    assert checked == {r.api for r in rules}, f"never checked: {sorted({r.api for r in rules} - checked)}"
    # The check itself can go red: `__file__` exists in both modules and differs.
    sanity = subprocess.run([sys.executable, "-c", _NAMES_PROBE,
                             json.dumps([(rules[0].api, rules[0].replacement, ["__file__"])])],
                            capture_output=True, text=True, timeout=600)
    assert json.loads(sanity.stdout.strip().splitlines()[-1])[rules[0].api]["__file__"] == [True, True, False]


def test_every_fix_target_is_public_and_exists():
    """A fix (and its message) points only at public paths that exist on the installed torch."""
    from privlint.catalog import is_private

    rules = [r for r in load_catalog().rules if r.fix and r.replacement]
    private = [r.code for r in rules if any(is_private(p) for p in r.replacement.split("."))]
    assert not private, private
    found = _signatures(sys.executable, [(r.replacement, r.replacement) for r in rules])
    missing = [r.replacement for r in rules if found[r.replacement][0] is None]
    assert not missing, missing
    assert _signatures(sys.executable, [("torch.distributed.fsdp.no_such", "torch")])[
        "torch.distributed.fsdp.no_such"][0] is None  # the lookup can say "absent"
