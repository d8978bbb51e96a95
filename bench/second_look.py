"""A second, independent look for private torch uses (CPython ``ast``; shares no code with privlint).

    python bench/second_look.py ROOT [--json OUT] [--include-tests] [--against PRIVLINT_JSON]

Lists, in non-test code (unless ``--include-tests``):

* ``import torch.a._b`` / ``from torch.a._b import X`` / ``from torch.a import _x``;
* attribute chains rooted at a torch-bound name (``import torch``, ``import torch.distributed as
  dist``, ``from torch.distributed import distributed_c10d``, ``c10d = torch.distributed`` …) that
  reach a ``_name`` member (``torch.ops.*`` is left out: those are operator namespaces);
* ``getattr(<torch-bound>, "_name")`` and two-argument ``getattr(x, "_distinctive")``;
* distinctive DeviceMesh / DTensor members on ANY receiver except ``self``/``cls``
  (``._flatten(``, ``._unflatten(``, ``._get_root_mesh``, ``._spec``, ``._local_tensor`` …).

Aliases are file-wide (coarse on purpose: a second look should over-report, not under-report).
Each hit carries ``hints``: what surrounds it lexically (``try:ImportError``, ``if:hasattr``,
``if:version``, ``TYPE_CHECKING``, ``annotation``, ``future-annotations``, ``assign-target``), so
guarded uses can be told apart from misses quickly.  With ``--against`` the hits that privlint did
not report on the same line are printed as candidate misses.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import sys
from pathlib import Path

MESH_MEMBERS = {
    "_flatten", "_unflatten", "_get_root_mesh", "_get_root_mesh_dim", "_flatten_mapping",
    "_dim_group_infos", "_dim_group_names", "_get_mesh_dim_by_name", "_concatenate",
    "_coordinate_on_dim", "_sym_get_coordinate", "_is_current_rank_part_of_mesh", "_pg_registry",
    "_get_all_submeshes", "_create_flatten_mesh", "_create_sub_mesh", "_root_mesh", "_rank_map",
    "_mesh_resources", "_init_process_groups", "_get_or_create_default_group",
}
DTENSOR_MEMBERS = {"_spec", "_local_tensor", "_from_local_no_grad"}
DISTINCTIVE = MESH_MEMBERS | DTENSOR_MEMBERS
SKIP_DIRS = {".git", "node_modules", "__pycache__", "build", "dist", ".venv", "venv", "_out"}


def is_private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def is_test_path(rel: str) -> bool:
    parts = rel.split("/")
    name = parts[-1]
    return (any(p in ("tests", "test", "testing", "unit_tests", "functional_tests") for p in parts[:-1])
            or name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py")


def dotted(node: ast.AST) -> list[str] | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


class Scan(ast.NodeVisitor):
    def __init__(self, rel: str, tree: ast.Module):
        self.rel = rel
        self.hits: list[dict] = []
        self.alias: dict[str, str] = {}
        self.parents: dict[ast.AST, ast.AST] = {}
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                self.parents[child] = parent
        self.future_ann = any(isinstance(n, ast.ImportFrom) and n.module == "__future__"
                              and any(a.name == "annotations" for a in n.names) for n in tree.body)
        self._collect_aliases(tree)

    # -- aliases (file-wide) -------------------------------------------------------------
    def _collect_aliases(self, tree):
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name == "torch" or a.name.startswith("torch."):
                        if a.asname:
                            self.alias[a.asname] = a.name
                        else:
                            self.alias["torch"] = "torch"
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and (
                    node.module == "torch" or node.module.startswith("torch.")):
                for a in node.names:
                    if a.name != "*":
                        self.alias[a.asname or a.name] = f"{node.module}.{a.name}"
        for _ in range(2):  # `c10d = torch.distributed.distributed_c10d`, then chains of those
            for node in ast.walk(tree):
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                        node.targets[0], ast.Name):
                    parts = dotted(node.value)
                    if parts and parts[0] in self.alias and node.targets[0].id not in self.alias:
                        self.alias[node.targets[0].id] = ".".join([self.alias[parts[0]]] + parts[1:])

    # -- context hints ----------------------------------------------------------------------
    def hints(self, node: ast.AST) -> list[str]:
        out = []
        child, cur = node, self.parents.get(node)
        while cur is not None:
            if isinstance(cur, ast.Try) and child in cur.body:
                names = []
                for h in cur.handlers:
                    t = h.type
                    elts = t.elts if isinstance(t, ast.Tuple) else [t]
                    names += [ast.unparse(e) for e in elts if e is not None] or ["bare"]
                    if t is None:
                        names.append("bare")
                out.append("try:" + "|".join(names))
            elif isinstance(cur, ast.ExceptHandler):
                out.append("in-handler")
            elif isinstance(cur, (ast.If, ast.IfExp)) and child is not cur.test:
                test = ast.unparse(cur.test)
                low = test.lower()
                if "TYPE_CHECKING" in test:
                    out.append("TYPE_CHECKING")
                elif "hasattr" in test or "getattr" in test or " in dir(" in test:
                    out.append("if:hasattr")
                elif any(k in low for k in ("version", "torch_min", "greater_equal", "_ge_", "torch_2",
                                            "torch_ver", "is_torch")):
                    out.append("if:version")
                else:
                    out.append("if:" + test[:40])
            elif isinstance(cur, ast.arg) and child is cur.annotation:
                out.append("annotation")
            elif isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef)) and child is cur.returns:
                out.append("annotation")
            elif isinstance(cur, ast.AnnAssign) and child is cur.annotation:
                out.append("annotation")
            elif isinstance(cur, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and (
                    child in getattr(cur, "targets", []) or child is getattr(cur, "target", None)):
                out.append("assign-target")
            if isinstance(cur, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                out.append("in-function")
                break
            child, cur = cur, self.parents.get(cur)
        if "annotation" in out and self.future_ann:
            out.append("future-annotations")
        return out

    def add(self, node, kind, api):
        self.hits.append({"path": self.rel, "line": node.lineno, "column": node.col_offset + 1,
                          "end_line": getattr(node, "end_lineno", None) or node.lineno,
                          "kind": kind, "api": api, "hints": self.hints(node)})

    # -- visitors ----------------------------------------------------------------------------
    def visit_Import(self, node):
        for a in node.names:
            parts = a.name.split(".")
            if parts[0] == "torch" and any(is_private(p) for p in parts):
                self.add(node, "import", a.name)

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        if node.level == 0 and (mod == "torch" or mod.startswith("torch.")):
            if any(is_private(p) for p in mod.split(".")):
                self.add(node, "import-from", mod)
            else:
                for a in node.names:
                    if is_private(a.name):
                        self.add(node, "import-from", f"{mod}.{a.name}")

    def visit_Attribute(self, node):
        parent = self.parents.get(node)
        outermost = not (isinstance(parent, ast.Attribute) and parent.value is node)
        parts = dotted(node)
        if outermost and parts:
            root = parts[0]
            if root in self.alias:
                full = self.alias[root].split(".") + parts[1:]
                if full[:2] != ["torch", "ops"]:
                    for i, p in enumerate(full):
                        if is_private(p) and i > 0:
                            self.add(node, "attr", ".".join(full))
                            break
        # distinctive members on any receiver (not self/cls, not torch-rooted: counted above)
        if node.attr in DISTINCTIVE:
            recv = dotted(node.value)
            rooted = recv and recv[0] in self.alias
            if not rooted and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                self.add(node, "member", "?." + node.attr)
        self.generic_visit(node)

    def visit_Call(self, node):
        f = node.func
        if isinstance(f, ast.Name) and f.id == "getattr" and len(node.args) >= 2 and isinstance(
                node.args[1], ast.Constant) and isinstance(node.args[1].value, str) and is_private(
                node.args[1].value):
            name = node.args[1].value
            recv = dotted(node.args[0])
            if recv and recv[0] in self.alias:
                base = ".".join(self.alias[recv[0]].split(".") + recv[1:])
                self.add(node, "getattr" + ("-default" if len(node.args) > 2 else ""),
                         f"{base}.{name}")
            elif name in DISTINCTIVE and len(node.args) == 2:
                self.add(node, "getattr", "?." + name)
        self.generic_visit(node)


# APIs privlint's catalog lists as off by default (PRV8xx, `extend-select = ["PRV8"]`)
OFF_BY_DEFAULT = ("torch.utils._pytree", "torch.distributed.algorithms._checkpoint.checkpoint_wrapper",
                  "torch._check", "torch._foreach_", "torch.ops.")


def triage_hint(hit: dict, file_apis: list[str]) -> str:
    """A first guess for why privlint has no finding here; every miss is still read by hand."""
    api = hit["api"]
    if any(api.startswith(p) for p in OFF_BY_DEFAULT):
        return "off-by-default"
    if any(h in hit["hints"] for h in ("TYPE_CHECKING",)) or (
            "annotation" in hit["hints"] and ("future-annotations" in hit["hints"]
                                              or "in-function" in hit["hints"])):
        return "not-evaluated"
    if any(h.startswith(("if:hasattr", "try:")) or h == "in-handler" for h in hit["hints"]) or \
            hit["kind"] == "getattr-default":
        return "guard?"
    parts = api.split(".")
    for i in range(len(parts) - 1, 1, -1):  # a finding in this file on a prefix: the import
        if ".".join(parts[:i]) in file_apis:
            return "subsumed-by-import?"
    return "MISS?"


def scan(root: Path, include_tests: bool) -> list[dict]:
    hits = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
        for fn in sorted(filenames):
            if not fn.endswith(".py"):
                continue
            path = Path(dirpath, fn)
            rel = path.relative_to(root).as_posix()
            if not include_tests and is_test_path(rel):
                continue
            try:
                tree = ast.parse(path.read_bytes(), filename=rel)
            except (SyntaxError, ValueError, RecursionError):
                continue
            s = Scan(rel, tree)
            s.visit(tree)
            hits += s.hits
    return hits


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", type=Path)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--include-tests", action="store_true")
    ap.add_argument("--against", type=Path, help="privlint JSON report (or realrepos _out file)")
    args = ap.parse_args()
    hits = scan(args.root, args.include_tests)
    if args.json:
        args.json.write_text(json.dumps(hits, indent=1))
    if args.against:
        data = json.loads(args.against.read_text())
        report = data.get("report", data)
        seen = {(f["path"], f["line"]) for f in report["findings"]}
        # a multi-line import: privlint reports the line of the imported name, we report the
        # statement's first line; a finding anywhere inside the node's own lines is the same use
        misses = [h for h in hits if not any((h["path"], ln) in seen
                                              for ln in range(h["line"], h["end_line"] + 1))]
        by_file: dict[str, list[str]] = {}
        for f in report["findings"]:
            by_file.setdefault(f["path"], []).append(f["api"])
        for h in misses:
            h["triage_hint"] = triage_hint(h, by_file.get(h["path"], []))
            print(f"{h['path']}:{h['line']}:{h['column']}\t{h['kind']}\t{h['api']}\t"
                  f"{','.join(h['hints'])}\t{h['triage_hint']}")
        if args.json:
            args.json.write_text(json.dumps({"hits": hits, "misses": misses}, indent=1))
        print(f"# {len(hits)} second-look hits, {len(misses)} not reported by privlint", file=sys.stderr)
    else:
        for h in hits:
            print(f"{h['path']}:{h['line']}:{h['column']}\t{h['kind']}\t{h['api']}\t{','.join(h['hints'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
