"""libcst imported with its dataclasses' methods remembered (privlint/dataclass_code.py) must
give the very methods a plain import gives: each case imports libcst in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# Every method `dataclasses` generated for libcst's node classes, as comparable data.
_DUMP = textwrap.dedent("""
    import dataclasses, inspect, json, sys
    from pathlib import Path
    memo = sys.argv[1]
    counts = {}
    if memo != "-":
        from privlint.dataclass_code import remembered
        with remembered(Path(memo)) as counts:
            import libcst
    else:
        import libcst
    assert "exec" not in vars(dataclasses)
    import libcst._nodes.base as base
    methods = {}
    for module in [m for name, m in sorted(sys.modules.items()) if name.startswith("libcst")]:
        for name, cls in sorted(vars(module).items()):
            if not (inspect.isclass(cls) and dataclasses.is_dataclass(cls)):
                continue
            for method in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
                code = getattr(vars(cls).get(method), "__code__", None)
                if code is not None:
                    methods[f"{cls.__module__}.{name}.{method}"] = [
                        code.co_code.hex(), repr(code.co_consts), list(code.co_names),
                        list(code.co_varnames), code.co_flags, code.co_filename]
    print(json.dumps({"counts": counts, "methods": methods}))
""")


def _import(memo: str) -> dict:
    out = subprocess.run([sys.executable, "-c", _DUMP, memo], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1], check=True)
    return json.loads(out.stdout)


def test_remembered_methods_are_the_ones_dataclasses_compiles(tmp_path):
    memo = tmp_path / "memo.marshal"
    plain = _import("-")
    first = _import(str(memo))
    again = _import(str(memo))
    assert len(plain["methods"]) > 500  # libcst's node classes are all there
    assert first["counts"]["compiled"] > 500 and memo.exists()
    assert again["counts"] == {"compiled": 0, "reused": first["counts"]["compiled"]}
    assert first["methods"] == plain["methods"]
    assert again["methods"] == plain["methods"]  # flags too: no `from __future__` leaks in


def test_a_memo_that_cannot_be_read_is_compiled_again(tmp_path):
    memo = tmp_path / "memo.marshal"
    memo.write_bytes(b"\x00 not marshal data")
    assert _import(str(memo))["counts"]["compiled"] > 500
    assert _import(str(memo))["counts"]["compiled"] == 0  # and written afresh


def test_a_memo_that_cannot_be_written_is_no_error(tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("a file where the memo's folder would be")
    result = _import(str(blocked / "memo.marshal"))
    assert result["counts"]["compiled"] > 500


def test_the_memo_lives_beside_privlints_bytecode():
    from privlint.dataclass_code import memo_path

    path = memo_path()
    assert path.parent.name == "__pycache__" and sys.implementation.cache_tag in path.name


@pytest.mark.parametrize("source", ["x = 1\n", "def f():\n return 2\n"])
def test_the_exec_lent_to_dataclasses_is_taken_back(source, tmp_path):
    import dataclasses

    from privlint.dataclass_code import remembered

    with remembered(tmp_path / "memo.marshal") as counts:
        namespace: dict = {}
        dataclasses.exec(source, namespace)  # type: ignore[attr-defined]
    assert counts == {"compiled": 1, "reused": 0}
    assert "exec" not in vars(dataclasses)



@pytest.mark.parametrize("module", ["privlint.cstparse", "privlint.fix.model"])
def test_the_modules_that_may_import_libcst_first_use_the_memo(module):
    # checker imports privlint.fix.model (what fix templates read) before its first parse: a
    # plain `import libcst` there would compile libcst's dataclass methods again.
    probe = textwrap.dedent(f"""
        import importlib, sys
        import privlint.dataclass_code as memo
        lent = []
        real = memo.remembered
        memo.remembered = lambda *args, **kwargs: (lent.append(1), real(*args, **kwargs))[1]
        importlib.import_module({module!r})
        assert "libcst" in sys.modules
        print(len(lent))
    """)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1], check=True)
    assert out.stdout.strip() == "1"
