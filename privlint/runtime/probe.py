"""`privlint probe`: which catalog entries this torch build has, and their public fallbacks."""

from __future__ import annotations

import json
from typing import Any, TextIO

from privlint.catalog import Catalog
from privlint.runtime.build_info import describe_build
from privlint.runtime.capabilities import MARKER, _one_rank_mesh, probe_entries


def probe_catalog(catalog: Catalog, mesh: Any | None = None) -> list[dict[str, Any]]:
    """This build's answer for every catalog entry (the same probe other builds run)."""
    entries = _entries(catalog)
    return [{"code": entry["code"], "api": entry["api"], "present": row["present"],
             "catalog_says": entry["rule"].window.describe(catalog.known_releases),
             "replacement": entry["replacement"] or None,
             "replacement_present": row["replacement_present"]}
            for entry, row in zip(entries, probe_entries(entries, mesh))]


def run_probe(catalog: Catalog, as_json: bool, out: TextIO) -> int:
    import torch.distributed as dist

    build = describe_build()
    mesh = _one_rank_mesh() if build["distributed"] else None
    try:
        rows = probe_catalog(catalog, mesh)
    finally:
        if mesh is not None:
            dist.destroy_process_group()
    if as_json:
        json.dump({"build": build, "catalog": rows}, out, indent=2)
        out.write("\n")
        return 0
    out.write(f"torch {build['torch']} ({build['platform']}"
              f"{', CUDA ' + build['cuda'] if build['cuda'] else ''}"
              f"{', HIP ' + build['hip'] if build['hip'] else ''})\n")
    out.write(f"devices: {build['device_count']} {', '.join(build['devices'])}\n")
    backends = ", ".join(name for name, ok in build["backends"].items() if ok) or "none"
    out.write(f"distributed backends: {backends}"
              f"{' (' + build['collective_library'] + ' ' + str(build['nccl_or_rccl']) + ')' if build['nccl_or_rccl'] else ''}\n\n")
    for row in rows:
        mark = "+" if row["present"] else "."
        fallback = ""
        if row["replacement"]:
            fallback = f"  public: {row['replacement']} {'+' if row['replacement_present'] else '.'}"
        out.write(f"{mark} {row['code']}  {row['api']}{fallback}\n")
    present = sum(1 for row in rows if row["present"])
    out.write(f"\n{present} of {len(rows)} catalog entries present in this build.\n")
    return 0


def _entries(catalog: Catalog) -> list[dict[str, Any]]:
    return [{"code": rule.code, "api": rule.api, "kind": rule.kind,
             "owner": rule.owner if rule.kind == "member" else "",
             "member": rule.member if rule.kind == "member" else "",
             "replacement": rule.replacement or "", "rule": rule}
            for rule in sorted(catalog.rules, key=lambda r: r.code)
            if rule.kind in ("module", "attribute", "member") and "*" not in rule.api]


def probe_builds(catalog: Catalog, builds: list, timeout: float = 180) -> tuple[list[dict], list[dict]]:
    """(each build's description, each catalog entry's presence per build): one child process per
    build, run by that build's interpreter with privlint's runtime snapshot on its path."""
    import os
    import subprocess
    import tempfile
    from pathlib import Path

    from privlint.errors import PrivlintError
    from privlint.runtime.envs import clean_env, runtime_snapshot
    from privlint.versions import parse_minor

    entries = _entries(catalog)
    payload = json.dumps([{k: v for k, v in e.items() if k != "rule"} for e in entries])
    described, columns = [], []
    with tempfile.TemporaryDirectory(prefix="privlint-probe-") as scratch:
        snapshot = str(runtime_snapshot(Path(scratch)))
        for build in builds:
            env = {**os.environ} if build.own else clean_env(snapshot)
            try:
                done = subprocess.run([build.python, "-m", "privlint.runtime.capabilities"],
                                      input=payload, capture_output=True, text=True,
                                      timeout=timeout, env=env, cwd=scratch)
            except subprocess.TimeoutExpired:
                raise PrivlintError(f"{build.name}: probing took over {timeout:g} s") from None
            answer = [line[len(MARKER):] for line in done.stdout.splitlines()
                      if line.startswith(MARKER)]
            if done.returncode != 0 or not answer:
                raise PrivlintError(f"{build.name}: the probe failed: {done.stderr.strip()[-800:]}")
            result = json.loads(answer[-1])
            build.version = result["build"]["torch"]
            described.append({"asked": build.label, "python": build.python, "env": build.env_dir,
                              "own": build.own, **result["build"]})
            columns.append({row["code"]: row for row in result["rows"]})
    rows = []
    for entry in entries:
        rule = entry["rule"]
        row = {"code": entry["code"], "api": entry["api"],
               "catalog_says": rule.window.describe(catalog.known_releases),
               "replacement": entry["replacement"] or None,
               "present": {}, "replacement_present": {}, "agrees_with_catalog": {}}
        for build, column in zip(described, columns):
            got = column[entry["code"]]
            key = build["torch"]
            row["present"][key] = got["present"]
            row["replacement_present"][key] = got["replacement_present"]
            try:
                row["agrees_with_catalog"][key] = rule.window.has(parse_minor(key)) == got["present"]
            except ValueError:
                row["agrees_with_catalog"][key] = None
        rows.append(row)
    return described, rows


def run_probe_matrix(catalog: Catalog, specs: list[str], args, out: TextIO) -> int:
    """`privlint probe --torch A --torch B`: rows are the catalog's APIs, columns the builds."""
    from privlint.runtime.envs import env_root, resolve_builds

    builds = resolve_builds(specs, env_root(args.env_dir), args.install_timeout, args.torch_index)
    described, rows = probe_builds(catalog, builds)
    if args.json:
        json.dump({"builds": described, "catalog": rows}, out, indent=2)
        out.write("\n")
        return 0
    write_matrix(described, rows, out)
    return 0


def write_matrix(described: list[dict], rows: list[dict], out: TextIO) -> None:
    """The table: one row per catalog API (and its public replacement), one column per build."""
    names = [build["torch"] for build in described]
    width = max([len(n) for n in names] + [6]) + 2
    api_width = max(len(r["api"]) for r in rows) + 2
    out.write(f"{'':8}{'':{api_width}}" + "".join(f"{n:>{width}}" for n in names) + "\n")
    out.write(f"{'':8}{'platform':{api_width}}"
              + "".join(f"{b['platform']:>{width}}" for b in described) + "\n")
    for row in rows:
        cells = []
        for name in names:
            mark = "+" if row["present"][name] else "."
            if row["agrees_with_catalog"][name] is False:
                mark += "!"
            cells.append(f"{mark:>{width}}")
        out.write(f"{row['code']:8}{row['api']:{api_width}}" + "".join(cells) + "\n")
        if row["replacement"]:
            cells = [f"{'+' if row['replacement_present'][n] else '.':>{width}}" for n in names]
            label = f"  public: {row['replacement']}"
            out.write(f"{'':8}{label[:api_width - 1]:{api_width}}" + "".join(cells) + "\n")
    out.write("\n+ present   . absent   ! the catalog's window says otherwise for this release\n")
    for build in described:
        out.write(f"torch {build['torch']}: {build['platform']}, python {build['python']}"
                  f"{'' if not build['env'] else ', env ' + str(build['env'])}\n")
