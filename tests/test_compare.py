"""Judging a verify run from the ranks' result files, without launching ranks.

The inputs have the shape worker.py writes. The case that matters: a fallback whose groups
were created from a different rank list on each rank, and whose collectives happened to
return the right values on this run (gloo wires such groups by a race; CI saw it pass).
"""

from __future__ import annotations

from privlint.runtime.compare import crossed_groups, judge_call


def _mesh(rank: int, members: list[int], group_name: str, values_right: bool = True) -> dict:
    total = float(sum(r + 1 for r in members))
    got = total if values_right else total - 1
    return {
        "device_type": "cpu", "dim_names": ["shard"], "shape": [len(members)], "mesh": members,
        "coordinate": [members.index(rank)], "own_root": None,
        "dims": [{"dim": "shard", "group_ranks": members, "layout_ranks": members,
                  "group_name": group_name, "local_rank": members.index(rank),
                  "checks": {"all_reduce": {"got": got, "expected": total}}}],
    }


def _results(b_group_name: "callable") -> list[dict]:
    results = []
    for rank in range(4):
        members = [0, 2] if rank % 2 == 0 else [1, 3]
        a = {"ran": True, "finished": True, "error": None,
             "meshes": {"result": _mesh(rank, members, f"hash-{members}")}}
        b = {"ran": True, "finished": True, "error": None,
             "meshes": {"result": _mesh(rank, members, b_group_name(members))}}
        results.append({"rank": rank, "calls": [{"expr": "build()", "A": a, "B": b}]})
    return results


def test_one_group_name_for_two_member_lists_fails_even_when_the_values_are_right():
    verdict = judge_call(0, "build()", _results(lambda members: "17"), {}, 4)
    assert not verdict.passed
    assert verdict.failures == [
        "B: process group '17' has different members on different ranks ([0, 2] on ranks 0, 2; "
        "[1, 3] on ranks 1, 3): the ranks created it from different rank lists, so its collectives "
        "are cross-wired; build every group on every rank in the same order (new_group over each "
        "row, or DeviceMesh.from_group)"]


def test_distinct_names_per_member_list_pass():
    verdict = judge_call(0, "build()", _results(lambda members: f"name-{members}"), {}, 4)
    assert verdict.passed, verdict.failures


def test_single_rank_groups_sharing_a_name_are_not_reported():
    per_rank = {0: {"m": _mesh(0, [0], "5")}, 1: {"m": _mesh(1, [1], "5")}}
    assert crossed_groups("B", per_rank) == []


def test_a_rank_that_hung_after_building_its_groups_still_counts():
    results = _results(lambda members: "17")
    results[1]["calls"][0]["B"]["finished"] = False
    verdict = judge_call(0, "build()", results, {1: "call 1 B result dim shard: all_reduce"}, 4)
    assert "rank 1 did not finish (last step: call 1 B result dim shard: all_reduce)" in verdict.failures
    assert any("[1, 3] on ranks 1, 3" in f for f in verdict.failures), verdict.failures


def test_the_table_says_what_it_compares_and_marks_a_and_b_that_differ():
    import io

    from privlint.runtime.compare import CallVerdict, Row
    from privlint.runtime.verify import report

    verdict = CallVerdict("build(device_type, world_size)", rows=[
        Row("rep", "0", "group ranks", [0], [0, 1], [0], "ok", 0),
        Row("rep", "0", "local rank", 0, 0, 0, "ok", 0),
    ], failures=["rep: group ranks differ"])
    out = io.StringIO()
    report([verdict], {"ranks": 2, "device": "cpu", "library": "gloo", "torch": "2.13.0"}, False, out)
    lines = out.getvalue().splitlines()
    assert any("A = run with the private API, B = run with it hidden" in line for line in lines)
    ranks_row = next(line for line in lines if "group ranks" in line)
    local_row = next(line for line in lines if "local rank" in line)
    assert ranks_row.rstrip().endswith("A≠B (ok)")
    assert local_row.rstrip().endswith("ok") and "A≠B" not in local_row


def test_ranks_do_not_print_the_numpy_import_warning():
    from privlint.runtime.launch import _quiet

    env = _quiet({"PYTHONWARNINGS": "error::DeprecationWarning"})
    assert env["PYTHONWARNINGS"] == "error::DeprecationWarning,ignore:Failed to initialize NumPy"


def test_verify_says_what_runs_and_the_time_left_on_a_terminal(tmp_path):
    from pathlib import Path

    from conftest import run_with_terminal_stderr

    faults = Path(__file__).parent / "fixtures" / "verify" / "faults.py"
    proc, shown = run_with_terminal_stderr("verify", str(faults), "--call",
                                           "hangs(device_type, world_size, rank)", "--nproc", "2",
                                           "--timeout", "8", cwd=tmp_path)
    assert proc.returncode == 1  # the hang is a FAIL
    assert b"2 ranks on cpu (gloo) running for" in shown and b"s left before the timeout" in shown
    assert b"left before the timeout" not in proc.stdout


def test_one_side_hanging_inside_the_call_while_the_other_returned_fails_naming_both():
    """The other outcome of the same race: ranks 2 and 3 never get through the rendezvous, so
    only one member list is ever reported and no name is seen crossed."""
    results = _results(lambda members: "17")[:2]
    progress = {2: "call 1 B: evaluating", 3: "call 1 B: evaluating"}
    verdict = judge_call(0, "build()", results, progress, 4)
    assert ("B: ranks 2, 3 hung inside the call while ranks 0, 1 returned from it: the call runs "
            "a collective or builds a group that not every rank joins the same way (a mesh tensor "
            "built per rank does this)") in verdict.failures, verdict.failures


def test_ranks_that_all_hang_inside_the_call_are_not_called_split():
    progress = {rank: "call 1 B: evaluating" for rank in range(4)}
    verdict = judge_call(0, "build()", [], progress, 4)
    assert not any("hung inside the call" in f for f in verdict.failures), verdict.failures
