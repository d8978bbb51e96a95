"""Judge a verify run from every rank's results: the private path (A) against the fallback (B),
and each against the values its own mesh layout implies."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PASS, FAIL, WARN, SKIP = "ok", "FAIL", "warn", "skip"
_IDENTITY = ("device_type", "dim_names", "shape", "mesh", "coordinate")


@dataclass
class Row:
    mesh: str
    dim: str
    check: str
    a: Any
    b: Any
    expected: Any
    verdict: str
    rank: int | None = None


@dataclass
class CallVerdict:
    expr: str
    rows: list[Row] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures


def _add(rows: dict, key: tuple, rank: int, a: Any, b: Any, expected: Any, ok: bool,
         verdict_if_bad: str = FAIL) -> None:
    """Merge one rank's result into a row: a failing rank replaces the rank-0 sample."""
    current = rows.get(key)
    verdict = PASS if ok else verdict_if_bad
    if current is None or (verdict != PASS and current.verdict == PASS):
        rows[key] = Row(key[0], key[1], key[2], a, b, expected, verdict, rank)


def crossed_groups(label: str, per_rank_meshes: dict[int, dict]) -> list[str]:
    """Groups one name stands for with different members on different ranks.

    `new_group` names a group by a counter that every rank advances together, and gloo and
    NCCL meet under that name in the store. When ranks pass different rank lists to the same
    call (a mesh tensor built per rank), one name covers several member lists and the
    collectives are cross-wired: they may hang, return wrong values, or by luck the right
    ones. The names give it away on every run, whatever the collectives did.
    """
    members: dict[str, dict[tuple, list[int]]] = {}
    for rank, meshes in sorted(per_rank_meshes.items()):
        for mesh in meshes.values():
            for dim in mesh.get("dims", []):
                name = dim.get("group_name")
                if name:
                    claimed = members.setdefault(name, {}).setdefault(tuple(dim["group_ranks"]), [])
                    if rank not in claimed:
                        claimed.append(rank)
    problems = []
    for name, lists in members.items():
        if len(lists) > 1 and any(len(ranks) > 1 for ranks in lists):
            shown = "; ".join(f"{list(ranks)} on rank{'s' if len(by) > 1 else ''} "
                              f"{', '.join(map(str, by))}" for ranks, by in lists.items())
            problems.append(
                f"{label}: process group {name!r} has different members on different ranks "
                f"({shown}): the ranks created it from different rank lists, so its collectives "
                f"are cross-wired; build every group on every rank in the same order "
                f"(new_group over each row, or DeviceMesh.from_group)")
    return problems


def _ranks(ranks: list[int]) -> str:
    return f"rank{'s' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))}"


def split_hang(index: int, per_rank: list[dict], progress: dict[int, str],
               world_size: int) -> list[str]:
    """Ranks stuck inside a call while other ranks returned from it.

    When ranks build one group from different rank lists, which side gets through the
    rendezvous is a race: sometimes every rank returns and `crossed_groups` names the group,
    sometimes one side hangs before it can report its groups. The split is the evidence then.
    """
    problems = []
    for label in ("A", "B"):
        evaluating = f"call {index + 1} {label}: evaluating"
        stuck = [rank for rank in range(world_size) if progress.get(rank) == evaluating]
        returned = []
        for result in per_rank:
            calls = result.get("calls", [])
            outcome = calls[index].get(label, {}) if index < len(calls) else {}
            if outcome.get("ran"):
                returned.append(result["rank"])
        if stuck and returned:
            problems.append(
                f"{label}: {_ranks(stuck)} hung inside the call while {_ranks(sorted(returned))} "
                f"returned from it: the call runs a collective or builds a group that not every "
                f"rank joins the same way (a mesh tensor built per rank does this)")
    return problems


def judge_call(index: int, expr: str, per_rank: list[dict], progress: dict[int, str],
               world_size: int) -> CallVerdict:
    verdict = CallVerdict(expr)
    rows: dict[tuple, Row] = {}
    meshes_by_label: dict[str, dict[int, dict]] = {"A": {}, "B": {}}
    for rank in range(world_size):
        result = next((r for r in per_rank if r.get("rank") == rank), None)
        failed_import = (result or {}).get("import_error")
        if failed_import:
            where = f" at {failed_import['where']}" if failed_import.get("where") else ""
            verdict.failures.append(f"rank {rank} could not import the target: "
                                    f"{failed_import['error']}{where}")
            continue
        calls = (result or {}).get("calls", [])
        call = calls[index] if index < len(calls) else {}
        for label in ("A", "B"):  # groups built before a hang still count
            meshes_by_label[label][rank] = call.get(label, {}).get("meshes", {})
        if not call.get("B", {}).get("finished"):
            where = progress.get(rank, "not started")
            verdict.failures.append(f"rank {rank} did not finish (last step: {where})")
            continue
        a, b = calls[index].get("A", {}), calls[index]["B"]
        if a.get("skipped") and rank == 0:
            verdict.notes.append(f"A not run: {a['skipped']}; B checked against its own layout")
        for label, outcome in (("A", a), ("B", b)):
            if outcome.get("error"):
                verdict.failures.append(f"{label} raised on rank {rank}: {outcome['error']}")
        if rank == 0 and b.get("hidden"):
            verdict.notes.append("hidden in B: " + ", ".join(b["hidden"]))
        a_ran = a.get("ran", False)
        a_meshes, b_meshes = a.get("meshes", {}), b.get("meshes", {})
        if a_ran and b.get("ran") and set(a_meshes) != set(b_meshes):
            verdict.failures.append(f"rank {rank}: A returned meshes {sorted(a_meshes)}, "
                                    f"B returned {sorted(b_meshes)}")
        for path in sorted(set(a_meshes) | set(b_meshes)):
            ma, mb = a_meshes.get(path), b_meshes.get(path)
            if ma is not None and mb is not None:
                for name in _IDENTITY:
                    _add(rows, (path, "-", name), rank, ma[name], mb[name], ma[name],
                         ma[name] == mb[name])
                own_a, own_b = ma.get("own_root"), mb.get("own_root")
                if own_a is False and own_b is True and rank == 0:
                    verdict.warnings.append(
                        f"{path}: the fallback mesh is its own root, while the private path kept "
                        f"its parent (code that slices the root or compares roots sees a difference)")
            for label, mesh in (("A", ma), ("B", mb)):
                if mesh is None:
                    continue
                for dim in mesh["dims"]:
                    key = (path, dim["dim"], "group ranks")
                    other = (mb if label == "A" else ma)
                    other_dim = next((d for d in (other or {}).get("dims", [])
                                      if d["dim"] == dim["dim"]), None)
                    _add(rows, key, rank,
                         dim["group_ranks"] if label == "A" else (other_dim or {}).get("group_ranks"),
                         dim["group_ranks"] if label == "B" else (other_dim or {}).get("group_ranks"),
                         dim["layout_ranks"], dim["group_ranks"] == dim["layout_ranks"])
                    if other_dim is not None and label == "B":
                        _add(rows, (path, dim["dim"], "local rank"), rank, other_dim["local_rank"],
                             dim["local_rank"], other_dim["local_rank"],
                             other_dim["local_rank"] == dim["local_rank"])
                    for check, values in dim["checks"].items():
                        row_key = (path, dim["dim"], check)
                        paired = (other_dim or {}).get("checks", {}).get(check, {}).get("got")
                        a_value = values["got"] if label == "A" else paired
                        b_value = values["got"] if label == "B" else paired
                        _add(rows, row_key, rank, a_value, b_value, values["expected"],
                             values["got"] == values["expected"])
        created = b.get("groups_created")
        if rank == 0 and created:
            verdict.warnings.append(f"B created {created} process group(s) in this call; calling it "
                                    f"again creates more (on GPUs: more NCCL communicators)")
    for label, per_rank_meshes in meshes_by_label.items():
        verdict.failures.extend(crossed_groups(label, per_rank_meshes))
    verdict.failures.extend(split_hang(index, per_rank, progress, world_size))
    verdict.rows = list(rows.values())
    for row in verdict.rows:
        if row.verdict == FAIL:
            verdict.failures.append(f"rank {row.rank}: {row.mesh} dim {row.dim}: {row.check}: "
                                    f"A={row.a} B={row.b} expected={row.expected}")
    return verdict
