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


# How the receiver is known to be a DTensor where privlint (final run) does not see it; read by hand.
DTENSOR_NOTES = {
    "torchtitan/experiments/rl/models/vllm_wrapper.py:426":
        "conditional expression: `x._local_tensor if isinstance(x, DTensor) else x`",
    "torchtitan/models/utils.py:265": "`assert isinstance(w, DTensor)` narrowing",
    "verl/third_party/torch/distributed/_state_dict_utils.py:512":
        "`ret = cast(DTensor, obj.to(...))` in one branch, `copy.deepcopy(obj)` in the other",
    "megatron/core/utils.py:1065": "flag variable: `ok = hasattr(...) and isinstance(t, DTensor)`; `if ok:`",
    "megatron/core/utils.py:1231": "untyped; `t.full_tensor() if need_full else t._local_tensor`",
    "megatron/core/distributed/finalize_model_grads.py:253": "untyped (getattr result)",
    "megatron/core/distributed/fsdp/src/megatron_fsdp/param_and_grad_buffer.py:3214":
        "dict value `self.dist_main_grad[name]`, untyped",
    "megatron/core/distributed/fsdp/src/megatron_fsdp/param_and_grad_buffer.py:3398":
        "dict value, untyped",
    "megatron/core/distributed/fsdp/src/megatron_fsdp/param_and_grad_buffer.py:4945":
        "`isinstance(p, DTensor) and cast(DTensor, p)._spec...` (and-narrowing AND cast)",
    "megatron/core/distributed/fsdp/src/megatron_fsdp/param_and_grad_buffer.py:4947":
        "same function, after the and-narrowing",
    "megatron/core/transformer/fsdp_dtensor_checkpoint.py:1053":
        "result of `DTensor.redistribute(...)` (a DTensor method returning a DTensor)",
    "megatron/training/utils/common_utils.py:220": "untyped loop variable over DTensor params",
    "tools/checkpoint/checkpoint_inspector.py:242": "untyped dict value after dcp.load",
}


# Version-chosen branches that no supported torch (Megatron: >=2.6) can take; read by hand.
DEAD_BRANCHES = {
    **{f"megatron/training/initialize.py:{n}": "branch for torch 1.10-2.2 under torch>=2.6"
       for n in range(503, 510)},
    **{f"megatron/training/initialize.py:{n}": "else branch for torch<1.10 under torch>=2.6"
       for n in range(512, 516)},
    "megatron/core/transformer/multi_token_prediction.py:52": "else of >=1.13 under torch>=2.6",
}


def classify(h: dict) -> tuple[str, str] | None:
    api, loc, hint = h["api"], f"{h['path']}:{h['line']}", h["triage_hint"]
    if hint == "MISS?":
        if api in ("?._local_tensor", "?._spec"):
            if 'hasattr' in h.get("source", "") and api[2:] in h.get("source", ""):
                return ("not a miss", "`hasattr(x, \"_local_tensor\") and x._local_tensor...` in one "
                        "expression: guarded")
            return ("resolution gap (DTensor receiver)", DTENSOR_NOTES.get(
                loc, "receiver not known as a DTensor (the catalog has the member since the final "
                "run: PRV342 _spec, PRV343 _local_tensor)"))
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
        if loc in DEAD_BRANCHES:
            return ("not a miss (dead branch)", DEAD_BRANCHES[loc])
        return ("?", "unread: read it and add a rule here")
    if hint == "guard?" and ("_all_gather_base" in api or "_reduce_scatter_base" in api) \
            and "in-handler" not in h["hints"]:
        return ("not a miss (dead branch)", "the torch<1.13 branch inside a try whose handler repeats "
                "the access; dead under torch>=2.6 (runs 1-2 skipped it as 'guarded' by that try, "
                "run 3 gave PRV001, the final run nothing)")
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
        variant = HERE / "realrepos" / "_out-noprefilter" / f"{name}.json"  # bench/realrepos.py --tag
        seen_without_prefilter = set()
        if variant.exists():
            vrep = json.loads(variant.read_text())["report"] or {"findings": []}
            seen_without_prefilter = {(f["path"], f["line"]) for f in vrep["findings"]}
        by_file: dict[str, list[str]] = {}
        for f in report["findings"]:
            by_file.setdefault(f["path"], []).append(f["api"])
        for h in scan(root, include_tests=False):
            h["source"] = (root / h["path"]).read_text(errors="replace").splitlines()[h["line"] - 1]
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
                    if (rel, lineno) in seen_without_prefilter:
                        verdict = ("prefilter drops it", "reported (PRV900) with --no-prefilter only: "
                                   "the file holds no catalogued private name, so the prefilters skip it")
                    elif m.group(1) == "_get_backend":  # catalogued (PRV314) since the final run
                        verdict = ("resolution gap (ProcessGroup receiver)", "ProcessGroup._get_backend "
                                   "is catalogued; the receiver is an untyped `group` parameter or a "
                                   "loop variable over `self.groups`")
                    else:
                        verdict = ("catalog gap", "ProcessGroup private member (self in a "
                                   "dist.ProcessGroup subclass, or an attribute set from a "
                                   "`dist.ProcessGroup`-annotated parameter)")
                    rows.append((name, f"{rel}:{lineno}", f"ProcessGroup.{m.group(1)}", *verdict))
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
