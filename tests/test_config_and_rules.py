"""Configuration and rule-file errors: exit 2, one line naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

import privlint

from conftest import run_privlint, write

GOOD_RULE = '''
[[rule]]
code = "PRV950"
kind = "attribute"
api = "torch.distributed._mine"
message = "Use ours."
invalid = ["import torch\\ntorch.distributed._mine()\\n"]
valid = ["import torch\\n"]
'''


def test_malformed_config_is_an_error_naming_the_file(project):
    (project / "pyproject.toml").write_text("[tool.privlint\nselect = []\n")
    write(project, "a.py", "import torch\n")
    result = run_privlint("check", cwd=project)
    assert result.returncode == 2
    assert "pyproject.toml" in result.stderr and "malformed TOML" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("config,needle", [
    ("[tool.privlint]\nselekt = [\"PRV1\"]\n", "key `tool.privlint.selekt`: unknown key"),
    ("[tool.privlint]\nselect = \"PRV1\"\n", "key `tool.privlint.select`: expected a list of strings"),
    ("[tool.privlint]\ntarget-torch = 2.6\n", "key `tool.privlint.target-torch`"),
    ("[tool.privlint]\ntarget-torch = \">=two\"\n", "key `tool.privlint.target-torch`: cannot read"),
    ("[tool.privlint]\nper-file-ignores = { \"a.py\" = \"PRV1\" }\n", "key `tool.privlint.per-file-ignores`"),
    ("[tool.privlint]\nignore = [\"XYZ9\"]\n", "unknown rule selector 'XYZ9'"),
    ("[project]\nname = \"x\"\ndependencies = [\"torch >= two\"]\n", "cannot read torch requirement"),
])
def test_settings_not_understood_are_warnings_and_the_run_goes_on(project, config, needle):
    (project / "pyproject.toml").write_text(config)
    write(project, "a.py", "from torch.distributed._tensor import DTensor\n")
    result = run_privlint("check", "--format", "json", cwd=project)
    assert result.returncode == 1, result.stderr  # the finding is still reported
    assert [f["code"] for f in result.findings] == ["PRV201"]
    assert "pyproject.toml" in result.stderr and needle in result.stderr, result.stderr
    assert "warning" in result.stderr and "Traceback" not in result.stderr


def test_unknown_selector_on_the_command_line_names_the_flag(project):
    write(project, "a.py", "import torch\n")
    result = run_privlint("check", "--select", "NOPE1", cwd=project)
    assert result.returncode == 2
    assert "--select: unknown rule selector 'NOPE1'" in result.stderr
    assert "pyproject.toml" not in result.stderr


@pytest.mark.parametrize("rule_text,needle", [
    ("[[rule]\n", "malformed TOML"),
    (GOOD_RULE.replace('kind = "attribute"', 'kind = "method"'), "key `rule[0].kind`"),
    (GOOD_RULE.replace('code = "PRV950"', 'code = "X1"'), "key `rule[0].code`"),
    (GOOD_RULE.replace('code = "PRV950"', 'code = "PRV101"'), "duplicate rule code PRV101"),
    (GOOD_RULE.replace('message = "Use ours."', 'message = "Use ours."\nfix = "nope"'),
     "unknown fix template 'nope'"),
    (GOOD_RULE.replace('message = "Use ours."', 'message = "Use ours."\ncolour = "red"'),
     "key `rule[0].colour`: unknown key"),
    (GOOD_RULE.replace('message = "Use ours."', 'message = "Use ours."\nsince = "two"'),
     "key `rule[0].since`"),
    (GOOD_RULE.replace('message = "Use ours."', 'message = "Use ours."\ndistinctive = "yes"'),
     "key `rule[0].distinctive`: expected bool"),
    (GOOD_RULE.replace('invalid = ["import torch\\ntorch.distributed._mine()\\n"]', ''),
     "key `rule[0].invalid`"),
    (GOOD_RULE.replace("torch.distributed._mine", "torch.distributed.mine"), "no private component"),
])
def test_rule_file_errors(project, rule_text, needle):
    (project / "extra.toml").write_text(rule_text)
    (project / "pyproject.toml").write_text('[tool.privlint]\nextend-rules = ["extra.toml"]\n')
    write(project, "a.py", "import torch\n")
    result = run_privlint("check", cwd=project)
    assert result.returncode == 2, result.stdout
    assert "extra.toml" in result.stderr and needle in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_user_rule_file_adds_a_rule_without_python(project):
    (project / "extra.toml").write_text(GOOD_RULE)
    (project / "pyproject.toml").write_text('[tool.privlint]\nextend-rules = ["extra.toml"]\n')
    write(project, "a.py", "import torch\ntorch.distributed._mine()\n")
    result = run_privlint("check", "--format", "json", cwd=project)
    assert [(f["code"], f["api"]) for f in result.findings] == [("PRV950", "torch.distributed._mine")]
    assert "Use ours." in result.findings[0]["message"]


def test_explicit_config_file(project):
    (project / "privlint.toml").write_text('select = ["PRV2"]\n')
    write(project, "a.py", "import torch.distributed._tensor\nimport torch\ntorch._C._foo()\n")
    result = run_privlint("check", "a.py", "--config", "privlint.toml", "--format", "json", cwd=project)
    assert [f["code"] for f in result.findings] == ["PRV201"]
    missing = run_privlint("check", "--config", "nope.toml", cwd=project)
    assert missing.returncode == 2 and "nope.toml: config file not found" in missing.stderr


def test_parsed_rule_files_are_remembered_by_their_bytes(tmp_path):
    """The memo of a bundled rule file's tables is read back only for the same bytes: an
    edited file is parsed again, and a memo that cannot be read is ignored."""
    from privlint._toml import load_toml_memo

    rules = tmp_path / "privlint-memo-test.toml"
    rules.write_text('[catalog]\ntorch-releases = ["2.0", "2.5"]\n')
    first = load_toml_memo(rules)
    memos = list((Path(privlint.__file__).parent / "__pycache__").glob(f"{rules.name}.*.marshal"))
    assert first == {"catalog": {"torch-releases": ["2.0", "2.5"]}} and len(memos) == 1
    assert load_toml_memo(rules) == first
    rules.write_text('[catalog]\ntorch-releases = ["2.1", "2.9"]\n')
    assert load_toml_memo(rules) == {"catalog": {"torch-releases": ["2.1", "2.9"]}}
    assert not memos[0].exists()  # the earlier version's memo is gone
    (memo,) = (Path(privlint.__file__).parent / "__pycache__").glob(f"{rules.name}.*.marshal")
    memo.write_bytes(b"not marshal")
    assert load_toml_memo(rules) == {"catalog": {"torch-releases": ["2.1", "2.9"]}}
    memo.unlink()
