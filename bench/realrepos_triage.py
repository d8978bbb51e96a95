"""Diff bench/second_look.py against the latest privlint reports and write the misses table.

    python bench/realrepos_triage.py      # after bench/realrepos.py; writes bench/realrepos-misses.tsv

The triage rules below encode what was decided by READING each candidate (see bench/REALREPOS.md);
a candidate that matches no rule is written with triage "?" so that it gets read.  The extra rows
at the end are misses the second look cannot see (members of ProcessGroup objects), found by grep
and read by hand.
"""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path

from second_look import scan, triage_hint

HERE = Path(__file__).resolve().parent
NAMES = ["miles", "slime", "torchtitan", "verl", "megatron-lm", "pytorch-lightning"]

# ProcessGroup private members (not in the catalog, receivers are untyped parameters, annotated
# attributes or the class itself subclassing ProcessGroup); found with
#   grep -rnE "\._(get_backend|allgather_base|reduce_scatter_base|set_default_backend|register_backend)\("
PG_MEMBERS = re.compile(r"\.(_get_backend|_allgather_base|_reduce_scatter_base|_set_default_backend"
                        r"|_register_backend)\(")


def classify(h: dict) -> tuple[str, str] | None:
    api, loc, hint = h["api"], f"{h['path']}:{h['line']}", h["triage_hint"]
    if hint == "MISS?":
        if api in ("?._local_tensor", "?._spec"):
            return ("catalog gap", "DTensor member; no catalog rule (receiver known by isinstance, "
                    "annotation or parameter name)")
        if api == "?._flatten" and "cudagraph.py" in loc:
            return ("resolution gap", "isinstance(leaf, BlockMask) narrowing not used; "
                    "BlockMask._unflatten on the class IS reported")
        if api == "?._flatten":
            return ("resolution gap", "mesh from a helper's return value (sliced), not typed")
        if "activation_checkpoint.py" in loc:
            return ("resolution gap (de-dup)", "hidden by `import torch._functorch.config` (an "
                    "uncatalogued plain import binding `torch`)")
        if api == "torch._C":
            return ("not a miss", "torch._C as the receiver of a hasattr/getattr(..., None) probe")
        if "ShardedTensor.__new__" in api or "_infer_sharding_spec" in api:
            return ("not a miss (borderline)", "def inside a try/except ImportError body: the module "
                    "import is guarded, the member call runs later, outside the try")
        if api.startswith("torch.storage._load_from_bytes"):
            return ("not a miss", "a write (monkeypatch); cannot raise")
        return ("?", "unread: read it and add a rule here")
    if hint == "guard?" and ("_all_gather_base" in api or "_reduce_scatter_base" in api) \
            and "in-handler" not in h["hints"]:
        return ("guard bug (harmless here)", "version-chosen use in a try whose handler repeats the "
                "access: the body gets no PRV001; the branch is for torch<1.13, dead under torch>=2.6")
    return None


def main() -> int:
    rows = []
    for name in NAMES:
        root = HERE / "realrepos" / name
        out = HERE / "realrepos" / "_out" / f"{name}.json"
        if not root.exists() or not out.exists():
            print(f"skip {name}: run bench/realrepos.py first")
            continue
        report = json.loads(out.read_text())["report"]
        seen = {(f["path"], f["line"]) for f in report["findings"]}
        by_file: dict[str, list[str]] = {}
        for f in report["findings"]:
            by_file.setdefault(f["path"], []).append(f["api"])
        for h in scan(root, include_tests=False):
            if any((h["path"], ln) in seen for ln in range(h["line"], h["end_line"] + 1)):
                continue
            h["triage_hint"] = triage_hint(h, by_file.get(h["path"], []))
            verdict = classify(h)
            if verdict:
                rows.append((name, f"{h['path']}:{h['line']}", h["api"], *verdict))
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if "/tests/" in f"/{rel}" or "/_out/" in rel:
                continue
            text = path.read_text(errors="replace")
            for lineno, line in enumerate(text.splitlines(), 1):
                m = PG_MEMBERS.search(line)
                own = m and f"self{m.group(0)}" in line and f"def {m.group(1)}(" in text
                if m and not own and (rel, lineno) not in seen and not line.lstrip().startswith("#"):
                    rows.append((name, f"{rel}:{lineno}", f"ProcessGroup.{m.group(1)}", "catalog gap",
                                 "ProcessGroup private member (untyped `group` parameter, an "
                                 "attribute annotated dist.ProcessGroup, or self in a ProcessGroup "
                                 "subclass)"))
    dest = HERE / "realrepos-misses.tsv"
    with dest.open("w") as f:
        f.write("# repo\tpath:line\tapi (second look)\ttriage\tnote\n")
        for row in rows:
            f.write("\t".join(row) + "\n")
    print(f"wrote {dest}: " + ", ".join(f"{k} {v}" for k, v in
                                        collections.Counter(r[3] for r in rows).most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
