"""Regenerate the tables in bench/REALREPOS.md from the latest run and the hand-made TSVs.

    python bench/realrepos_tables.py          # rewrites the part between the table markers

Inputs: bench/realrepos-results.json (bench/realrepos.py), bench/realrepos/_out/<name>.json (the
full reports, git-ignored), bench/realrepos-sample.tsv (hand classification) and
bench/realrepos-misses.tsv (hand triage of bench/second_look.py's candidates).  A sample row whose
finding is no longer in the latest run is shown with "not in latest run", so a re-run after a fix
shows at a glance which classifications went stale.
"""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
BEGIN, END = "<!-- tables:begin -->", "<!-- tables:end -->"


def read_tsv(path: Path) -> list[list[str]]:
    return [line.rstrip("\n").split("\t") for line in path.read_text().splitlines()
            if line.strip() and not line.startswith("#")]


def main() -> int:
    results = json.loads((HERE / "realrepos-results.json").read_text())
    out = []
    out.append(f"privlint: `{results.get('privlint_src')}` at commit `{results.get('privlint_commit')}` "
               f"(plus any uncommitted changes there at run time).\n")
    out.append("| repository | commit | .py files | exit | wall s | findings | torch range read | by code |")
    out.append("|---|---|---:|---:|---:|---:|---|---|")
    reports = {}
    for e in results["repos"]:
        path = HERE / "realrepos" / "_out" / f"{e['name']}.json"
        reports[e["name"]] = json.loads(path.read_text())["report"] if path.exists() else None
        rng = (e.get("summary") or {}).get("torch_range") or {}
        rng_s = f"{rng.get('specifier') or '(none: 2.0–2.14)'}" + (f" ({rng['source']})" if rng.get("source") else "")
        codes = ", ".join(f"{k} {v}" for k, v in e.get("by_code", {}).items())
        out.append(f"| {e['name']} | `{e['commit'][:12]}` | {e.get('py_files', '')} | {e.get('exit_code', '—')} "
                   f"| {e.get('wall_s', '—')} | {e.get('findings', '—')} | {rng_s} | {codes} |")

    index = {}
    for name, rep in reports.items():
        for f in (rep or {}).get("findings", []):
            index.setdefault((name, f["path"], f["line"]), []).append(f)
    out.append("\n### Classified sample\n")
    out.append("Code/API from the latest run; rows marked *not in latest run* were classified on the "
               "first run (the reason says which).\n")
    out.append("| # | repo | location | code · API (latest run) | verdict | reason |")
    out.append("|---:|---|---|---|---|---|")
    verdicts = collections.Counter()
    by_repo = collections.Counter()
    for i, (repo, loc, verdict, reason) in enumerate(read_tsv(HERE / "realrepos-sample.tsv"), 1):
        m = re.match(r"(.+?):(\d+)(?::(\d+))?$", loc)
        path, line, col = m.group(1), int(m.group(2)), m.group(3)
        found = index.get((repo, path, line), [])
        if col:
            found = [f for f in found if f["column"] == int(col)]
        cell = "; ".join(f"{f['code']} `{f['api']}`" for f in found[:2]) or "*not in latest run*"
        verdicts[verdict] += 1
        by_repo[(repo, verdict)] += 1
        out.append(f"| {i} | {repo} | `{loc}` | {cell} | **{verdict}** | {reason} |")
    total = sum(verdicts.values())
    out.append(f"\nSample: {total} findings, " + ", ".join(f"{v} {k}" for k, v in sorted(verdicts.items()))
               + ". Per repository: " + ", ".join(
                   f"{r} {by_repo[(r, 'TP')]}/{by_repo[(r, 'TP')] + by_repo[(r, 'FP')]} TP"
                   for r in dict.fromkeys(x[0] for x in read_tsv(HERE / "realrepos-sample.tsv"))) + ".")

    out.append("\n### Misses (second look, non-test code) and triage\n")
    misses = read_tsv(HERE / "realrepos-misses.tsv")
    groups: dict[tuple[str, str, str], list[str]] = {}
    for repo, loc, api, triage, note in misses:
        groups.setdefault((triage, api, note), []).append(f"{repo}:{loc}")
    out.append("| triage | API (second look) | n | where | note |")
    out.append("|---|---|---:|---|---|")
    order = ["prefilter drops it", "catalog gap", "resolution gap (DTensor receiver)", "resolution gap (ProcessGroup receiver)",
             "resolution gap (de-dup)",
             "resolution gap", "guard bug (harmless here)", "not a miss (dead branch)",
             "not a miss (borderline)", "not a miss"]
    for (triage, api, note), locs in sorted(groups.items(), key=lambda kv: (
            order.index(kv[0][0]) if kv[0][0] in order else 99, -len(kv[1]))):
        shown = ", ".join(f"`{x}`" for x in locs[:6]) + (f" … (+{len(locs) - 6})" if len(locs) > 6 else "")
        out.append(f"| {triage} | `{api}` | {len(locs)} | {shown} | {note} |")
    counts = collections.Counter(m[3] for m in misses)
    out.append("\nTotals: " + ", ".join(f"{k} {v}" for k, v in counts.most_common()) + ".")

    variant = HERE / "realrepos" / "_out-noprefilter"
    if variant.exists():
        out.append("\n### Findings only with `--no-prefilter` (the prefilters should be lossless)\n")
        vres = HERE / "realrepos-results-noprefilter.json"
        if vres.exists():
            walls = {e["name"]: e.get("wall_s") for e in json.loads(vres.read_text())["repos"]}
            out.append("Wall time without prefilters: " + ", ".join(
                f"{k} {v} s" for k, v in walls.items()) + ".\n")
        out.append("| repo | location | code · API |")
        out.append("|---|---|---|")
        extra_total = 0
        for name, rep in reports.items():
            vpath = variant / f"{name}.json"
            if not vpath.exists() or rep is None:
                continue
            vrep = json.loads(vpath.read_text())["report"] or {"findings": []}
            key = lambda f: (f["path"], f["line"], f["column"], f["code"], f["api"])
            base = {key(f) for f in rep["findings"]}
            only = [f for f in vrep["findings"] if key(f) not in base]
            lost = [f for f in rep["findings"] if key(f) not in {key(g) for g in vrep["findings"]}]
            extra_total += len(only)
            for f in only:
                out.append(f"| {name} | `{f['path']}:{f['line']}` | {f['code']} `{f['api']}` |")
            for f in lost:
                out.append(f"| {name} | `{f['path']}:{f['line']}` | only WITH the prefilter: {f['code']} `{f['api']}` |")
        out.append(f"\n{extra_total} finding(s) appear only without the prefilters (both runs on the "
                   "same privlint tree only if run back to back).")

    doc = HERE / "REALREPOS.md"
    text = doc.read_text()
    start, stop = text.index(BEGIN) + len(BEGIN), text.index(END)
    doc.write_text(text[:start] + "\n" + "\n".join(out) + "\n" + text[stop:])
    print(f"updated {doc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
