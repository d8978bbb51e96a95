"""The fix path, in one package.

Detection hands over a typed `Site` (privlint.detect) for each finding. Then:

- `templates/<id>.py`: one planner per fix template, registered with `@register("<id>")`, beside
  its template text (`TEMPLATE`); its golden before/after cases are tests/fixtures/fix/. A rule
  names its template with `fix = "<id>"`. Adding a template is adding one module there.
- `facts.py`, `scopes.py`: what planners prove things with (bindings, parents, imports);
  `render.py`: template text with `{slots}` into libcst nodes; `model.py`: Fix, Plan, the registry.
- `passes.py`: applying fixes and re-running until nothing changes (the loop `check --fix` runs);
  writing files is privlint.writer's.

This module stays light (no libcst): the catalog asks it which template ids exist.
"""

from __future__ import annotations

import pkgutil
from pathlib import Path


def template_ids() -> tuple[str, ...]:
    """Every fix template: one per module in privlint/fix/templates/ (`unflatten_probe` ->
    "unflatten-probe")."""
    here = Path(__file__).resolve().parent / "templates"
    return tuple(sorted(m.name.replace("_", "-") for m in pkgutil.iter_modules([str(here)])))
