"""`privlint verify --builtin`: the catalog's own runtime recipes, one function per case.

For every rule whose fix has a runtime fallback (a member rule: `_unflatten` and the like), each
factorisation of the world size into two and three dims becomes a function that builds a named
1-D world mesh and calls the private member on it; that module is then fixed by the very code
`check --fix` runs (privlint.fix), so what is verified is exactly what `--fix` writes. Every
recipe must come out with a safe fix. All cases run in one launch.
"""

from __future__ import annotations

import itertools

from privlint.catalog import Catalog


def factorisations(n: int, dims: int) -> list[tuple[int, ...]]:
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    return [combo for combo in itertools.product(divisors, repeat=dims)
            if _product(combo) == n]


def _product(values: tuple[int, ...]) -> int:
    result = 1
    for value in values:
        result *= value
    return result


def recipe_module(catalog: Catalog, world_size: int) -> tuple[str, list[str], list[str]]:
    """(module source, call expressions, APIs to hide) for the builtin recipes."""
    from privlint.checker import Context, check_source
    from privlint.config import Settings

    lines = ["from torch.distributed.device_mesh import init_device_mesh", ""]
    calls: list[str] = []
    hide: list[str] = []
    for rule in catalog.rules:
        if not rule.fix or rule.kind != "member":
            continue
        hide.append(rule.api)
        for dims in (2, 3):
            for sizes in factorisations(world_size, dims):
                names = tuple(f"d{i}" for i in range(dims))
                name = f"{rule.fix.replace('-', '_')}_{'x'.join(map(str, sizes))}"
                lines.append(f"def {name}(device_type, world_size):")
                lines.append('    world = init_device_mesh(device_type, (world_size,), '
                             'mesh_dim_names=("world",))')
                lines.append(f"    return world.{rule.member}(0, {sizes!r}, {names!r})")
                lines.append("")
                calls.append(f"{name}(device_type, world_size)")
    source = "\n".join(lines) + "\n"
    result = check_source(source.encode(), "builtin_recipes.py",
                          Context.build(catalog, Settings(), use_prefilter=False), fix="safe")
    if result.fixed is None or len(result.applied) != len(calls) or result.findings:
        raise RuntimeError("the builtin recipes did not all get a safe fix: "
                           + "; ".join(f.message for f in result.findings))
    return result.fixed.decode(), calls, sorted(set(hide))
