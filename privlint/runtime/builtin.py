"""`privlint verify --builtin`: the catalog's own runtime recipes, one function per case.

For every fix template with a fallback, each factorisation of the world size into two
and three dims becomes a function that builds a 1-D world mesh and runs exactly the code
`--fix` would write for it. All cases run in one launch.
"""

from __future__ import annotations

import itertools
import textwrap

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
    lines = ["from torch.distributed.device_mesh import init_device_mesh", ""]
    calls: list[str] = []
    hide: list[str] = []
    for template in catalog.templates.values():
        data = template.data
        if "fallback-callee" not in data:
            continue
        rules = [r for r in catalog.rules if r.fix == template.id]
        hide.extend(r.api for r in rules)
        member = rules[0].member if rules else ""
        for dims in (2, 3):
            for sizes in factorisations(world_size, dims):
                names = tuple(f"d{i}" for i in range(dims))
                name = f"{template.id.replace('-', '_')}_{'x'.join(map(str, sizes))}"
                fallback_args = ", ".join(
                    a.replace("{device}", "device_type").replace("{sizes}", repr(sizes))
                    .replace("{names}", repr(names)) for a in data["fallback-args"])
                callee = data["fallback-callee"].rsplit(".", 1)[-1]
                statement = data["statement"].strip("\n").format(
                    receiver="world",
                    private=f"return world.{member}(0, {sizes!r}, {names!r})",
                    fallback=f"return {callee}({fallback_args})")
                lines.append(f"def {name}(device_type, world_size):")
                lines.append('    world = init_device_mesh(device_type, (world_size,), '
                             'mesh_dim_names=("world",))')
                lines.append(textwrap.indent(statement, "    "))
                lines.append("")
                calls.append(f"{name}(device_type, world_size)")
    return "\n".join(lines) + "\n", calls, sorted(set(hide))
