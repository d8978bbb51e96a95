"""A finding, and the words that explain it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from privlint.catalog import Catalog, Rule
from privlint.versions import TargetRange, format_minor


@dataclass
class Finding:
    path: str
    line: int        # 1-based
    column: int      # 1-based, in characters
    end_line: int
    end_column: int
    code: str
    api: str
    message: str
    severity: str    # "error": some supported torch lacks it; "warning": private but present
    rule: str = ""   # the catalog rule behind the finding (differs from code for PRV001)
    fix: dict[str, Any] | None = field(default=None, compare=False)
    # Stable across moved lines: path, code, API and the statement's normalised source.
    fingerprint: str = field(default="", compare=False)

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.code)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _short(api: str, rule: Rule) -> str:
    if rule.kind == "member":
        return ".".join(api.split(".")[-2:])
    return api


def _argument(name: str) -> str:
    return f"a string `{name[:-4]}`" if name.endswith(":str") else f"`{name}=`"


def explain(rule: Rule, api: str, target: TargetRange, catalog: Catalog,
            gated_by: Rule | None = None, keywords: tuple[str, ...] = ()) -> tuple[str, str]:
    """The message and severity of a finding: what is private, which torch has it, what to do.

    A call passing a keyword that reached the API later (`_flatten(..., backend_override=...)`)
    is judged by the narrower window of releases where that call works.
    """
    known = catalog.known_releases
    name = f"`{_short(api, rule)}`"
    late = [(k, first) for k, first in rule.keywords if k in keywords
            and (rule.since is None or first > rule.since)]
    # A path below the one the rule tracks (`torch._dynamo.nonstrict_trace` under `torch._dynamo`):
    # the catalog's window is the rule's path's, and says nothing of what that path holds.
    under = rule.api if rule.kind != "generic" and not rule.api.endswith("*") \
        and api.startswith(rule.api + ".") else None
    if rule.kind == "generic":
        availability, gaps = "not tracked by the catalog", None
    else:
        window = rule.window_for(keywords)
        availability = rule.window.describe(known) + "".join(
            f"; {_argument(k)} since torch {format_minor(first)}" for k, first in late)
        if under is not None:
            availability = f"under `{under}`, {availability}; the catalog does not track " \
                           f"`{api[len(under) + 1:]}` itself"
        gaps = window.gaps(target)
        if gaps and late and not rule.window.gaps(target):
            gaps = f"{gaps} with {_argument(late[0][0])}"
        if gaps and under is not None:
            gaps = f"`{under}` is {gaps}"
    if gaps:
        support = f"{gaps}; your project supports {target.describe()}" if target.spec else gaps
        severity = "error"
    elif rule.kind == "generic":
        support = "it may change or vanish in any release"
        severity = "warning"
    else:
        where = "every torch release the catalog knows"
        if target.spec and target.judged_from is not None:
            where = f"every torch your project supports from {format_minor(target.judged_from)} on " \
                    f"({target.describe()}; the catalog knows no older release)"
        elif target.spec:
            where = f"every torch your project supports ({target.describe()})"
        support = f"present in {where}, but private: it may change without notice" if under is None \
            else f"`{under}` is present in {where}, but what it holds may change or vanish in any release"
        severity = "warning"
    if gated_by is not None:
        return (f"{name} ({availability}) is selected by a torch version check, not a capability "
                f"probe. {gated_by.message} {rule.message}", severity)
    return f"{name} is a private torch API ({availability}): {support}. {rule.message}", severity
