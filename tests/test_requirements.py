"""Reading a project's torch range from its own files, in process, on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from privlint._toml import load_toml
from privlint.requirements import find_torch_range
from privlint.versions import parse_specifier


def _found(root: Path):
    pyproject = root / "pyproject.toml"
    return find_torch_range(root, load_toml(pyproject) if pyproject.exists() else None)


@pytest.mark.parametrize("dependencies,expected", [
    # Names that start with "torch" but are other distributions are not torch.
    ('["torch_checkpointing>=0.1.0", "torch>=2.6"]', ">=2.6"),
    ('["torchvision>=0.15", "torchdata>=0.8", "torch-optimizer", "Torch>=2.3"]', ">=2.3"),
    # Markers and extras belong to the torch requirement; a URL pin has no range.
    ('["torch @ https://example.com/t.whl", "torch[opt]>=2.2,<2.9; sys_platform == \'linux\'"]',
     ">=2.2,<2.9"),
    ('["torch @ https://example.com/t.whl"]', ""),
    ('["numpy"]', None),
])
def test_pyproject_dependencies(tmp_path, dependencies, expected):
    (tmp_path / "pyproject.toml").write_text(f'[project]\nname = "x"\ndependencies = {dependencies}\n')
    found = _found(tmp_path)
    assert (found.range.specifier if found.range else None) == expected
    assert not found.warnings


def test_unreadable_torch_requirement_is_a_warning_naming_file_and_entry(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["torch >= two", "numpy"]\n')
    found = _found(tmp_path)
    assert found.range is None
    assert len(found.warnings) == 1
    assert "pyproject.toml [project.dependencies]" in found.warnings[0]
    assert "torch >= two" in found.warnings[0]


def test_optional_dependencies_and_poetry(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[project.optional-dependencies]\ngpu = ["torch~=2.5.0"]\n'
        'cpu = ["torch>=2.8"]\n')
    found = _found(tmp_path)
    assert found.range.specifier == "~=2.5.0 || >=2.8"
    assert found.range.source.startswith("the union of pyproject.toml [project.optional-")
    # One extra's pin is that backend's, not the project's range.
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[project.optional-dependencies]\nsglang = ["torch==2.9.1"]\n')
    assert _found(tmp_path).range is None
    (tmp_path / "pyproject.toml").write_text('[tool.poetry.dependencies]\ntorch = "^2.1"\n')
    found = _found(tmp_path)
    assert found.range.specifier == ">=2.1,<3.0"


def test_requirements_txt_with_include_and_comments(tmp_path):
    (tmp_path / "requirements.txt").write_text("-r requirements/base.txt\nnumpy  # maths\n")
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "base.txt").write_text(
        "# pinned for the CUDA image\n--extra-index-url https://x\ntorch==2.9.1  # ROCm too\n")
    found = _found(tmp_path)
    assert found.range.specifier == "==2.9.1"
    # The file that holds the torch line, and how the project's file reached it.
    assert found.range.source == "requirements/base.txt, through `-r` from requirements.txt"


def test_an_include_of_an_include_names_each_step(tmp_path):
    (tmp_path / "requirements.txt").write_text("numpy\n-r requirements/gpu.txt\n")
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "gpu.txt").write_text("-r ../common.txt\nflash-attn\n")
    (tmp_path / "common.txt").write_text("torch>=2.6\n")
    assert _found(tmp_path).range.source == ("common.txt, through `-r` from requirements/gpu.txt, "
                                             "through `-r` from requirements.txt")
    # requirements.txt first, with what it includes, before another file's own pin (lightning's
    # requirements/typing.txt pins torch==2.9.1 for its type checks).
    (tmp_path / "requirements" / "gpu.txt").write_text("torch>=2.5\n")
    (tmp_path / "requirements-bench.txt").write_text("torch==2.9.1\n")
    (tmp_path / "requirements" / "typing.txt").write_text("torch==2.9.1\n")
    assert (_found(tmp_path).range.specifier, _found(tmp_path).range.source) == (
        ">=2.5", "requirements/gpu.txt, through `-r` from requirements.txt")
    # A torch line in the project's own file is that file's, includes or not.
    (tmp_path / "requirements.txt").write_text("torch>=2.4\n-r requirements/gpu.txt\n")
    found = _found(tmp_path)
    assert (found.range.specifier, found.range.source) == (">=2.4", "requirements.txt")


def test_setup_cfg(tmp_path):
    (tmp_path / "setup.cfg").write_text(
        "[metadata]\nname = x\n[options]\ninstall_requires =\n    numpy\n    torch>=2.4,<2.10\n")
    assert _found(tmp_path).range.specifier == ">=2.4,<2.10"


def test_setup_py_literal_is_read_without_running_it(tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\n"
        f"open({str(marker)!r}, 'w').write('yes')\n"
        "BASE = ['numpy']\n"
        "setup(name='x', install_requires=BASE + ['torch>=2.7'],\n"
        "      extras_require={'dev': ['pytest']})\n")
    found = _found(tmp_path)
    assert found.range.specifier == ">=2.7"
    assert found.range.source == "setup.py install_requires"
    assert not marker.exists()


def test_pyproject_wins_over_requirements_files(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\ndependencies = ["torch>=2.8"]\n')
    (tmp_path / "requirements.txt").write_text("torch==2.4.1\n")
    assert _found(tmp_path).range.specifier == ">=2.8"


@pytest.mark.parametrize("spec,expected", [
    (">=2.6,<2.12", {(2, m) for m in range(6, 12)}),
    ("==2.9.*", {(2, 9)}),
    ("~=2.5.0", {(2, 5)}),
    ("!=2.7.0,>=2.6,<2.9", {(2, 6), (2, 7), (2, 8)}),  # 2.7.1 is still admitted
    ("", {(2, m) for m in range(0, 15)}),
])
def test_specifiers_reduce_to_minor_releases(spec, expected):
    known = [(2, m) for m in range(0, 15)]
    assert parse_specifier(spec, known) == frozenset(expected)


def test_bad_specifier_raises_value_error():
    with pytest.raises(ValueError, match="two"):
        parse_specifier(">=two", [(2, 0)])


def test_extras_alone_give_the_union_not_one_extras_pin(tmp_path):
    # verl-like: only extras name torch, with different pins; the project supports all of them.
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\n"
        "setup(name='x', install_requires=['numpy'],\n"
        "      extras_require={'sglang': ['torch==2.9.1'], 'vllm': ['torch==2.8.0'], 'x': []})\n")
    found = _found(tmp_path)
    assert found.range.specifier == "==2.9.1 || ==2.8.0"
    known = [(2, m) for m in range(0, 15)]
    assert parse_specifier(found.range.specifier, known) == {(2, 8), (2, 9)}
    (tmp_path / "setup.py").write_text(
        "from setuptools import setup\n"
        "setup(name='x', install_requires=['torch>=2.4'], extras_require={'a': ['torch==2.9.1']})\n")
    assert _found(tmp_path).range.specifier == ">=2.4"


# Lines the plain reading takes, and lines it must hand to packaging's full grammar.
PLAIN_AND_NOT = ["torch", "torch>=2.4,<2.12", "Torch == 2.13.0", "torch>=2.4 , <3", "torch~=2.4.0",
                 "torch==2.4.*", "torch==2.4.1+cu121", "torch===2.4.1", "torch!=2.5.0,>=2.2",
                 "torch>=2.4,", "torch>=2.4 <3", "torch>=two", "torch[opt]>=2.2",
                 "torch>=2.2; python_version >= '3.9'", "torch (>=2.3)", "torch @ https://x/t.whl",
                 "torch\xa0>=2.4", "torch>=2.4,\u2003<3", "torch>=2.4\x0c,<3", "torch>=\t2.4"]


@pytest.mark.parametrize("line", PLAIN_AND_NOT)
def test_a_plain_torch_line_reads_as_packagings_full_grammar_reads_it(line):
    from privlint.requirements import Found, _entry, _read_requirement

    fast, slow = Found(), Found()
    assert _entry(line, "requirements.txt", fast) == _read_requirement(line, line, "requirements.txt", slow)
    assert fast.warnings == slow.warnings


def test_a_plain_torch_requirement_does_not_import_packagings_requirement_grammar(tmp_path):
    import subprocess
    import sys

    (tmp_path / "requirements.txt").write_text("numpy\ntorch>=2.4,<2.12\n")
    probe = ("import sys; from pathlib import Path; from privlint.requirements import find_torch_range; "
             f"print(find_torch_range(Path({str(tmp_path)!r}), None).range.specifier, "
             "'packaging.requirements' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent).stdout.split()
    assert out == [">=2.4,<2.12", "False"]


def test_an_unreadable_torch_line_is_said_once_beside_the_range_found_elsewhere(tmp_path):
    (tmp_path / "requirements.txt").write_text("torch>=2.x.y\n")
    (tmp_path / "requirements-dev.txt").write_text("-r requirements.txt\n-r common.txt\n")
    (tmp_path / "common.txt").write_text("torch>=2.4\n")
    found = _found(tmp_path)
    assert (found.range.specifier, found.range.source) == (
        ">=2.4", "common.txt, through `-r` from requirements-dev.txt")
    assert len(found.warnings) == 1 and "requirements.txt: cannot read torch requirement" in found.warnings[0]


def test_a_build_pin_admits_its_release():
    """`torch==2.6.0+cu124` pins one build of 2.6.0: the release is 2.6 (a local label is not
    compared), where packaging admits no plain 2.6.x for it."""
    from privlint.catalog import load_catalog
    from privlint.versions import parse_specifier

    known = load_catalog().known_releases
    assert parse_specifier("==2.6.0+cu124", known) == {(2, 6)}
    assert parse_specifier(">=2.6,!=2.7.0+cpu", known) == {m for m in known if m >= (2, 6)}
    with pytest.raises(ValueError):
        parse_specifier(">=2." + "9" * 5000, known)  # too long to compare: unreadable, not a crash
