"""The doctor's `pip check`: every installed distribution's requirements against the
installed versions (importlib.metadata, no pip process), and which conflicts touch
Cuvil (a distribution Cuvil needs, directly or through its requirements)."""

from __future__ import annotations

from importlib import metadata

from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from .core import FAIL, OK, WARN, Check

__all__ = ["installed", "conflicts", "cuvil_closure", "packages"]

SHOWN = 5  # conflicts named in the summary line (all are in details)


def installed() -> dict[str, metadata.Distribution]:
    """Distributions by canonical name; the first on sys.path wins, as for import."""
    out: dict[str, metadata.Distribution] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            out.setdefault(canonicalize_name(name), dist)
    return out


def _requirements(dist: metadata.Distribution, extras=("",)) -> list[Requirement]:
    """`dist`'s requirements that apply here (markers evaluated; `extras` chosen)."""
    env = default_environment()
    out = []
    for text in dist.requires or []:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.marker is None or any(
            req.marker.evaluate({**env, "extra": e}) for e in extras
        ):
            out.append(req)
    return out


def conflicts(dists: dict[str, metadata.Distribution]) -> list[dict]:
    """One entry per unmet requirement: who needs what, and what is installed."""
    found = []
    for _name, dist in sorted(dists.items()):
        for req in _requirements(dist):
            have = dists.get(canonicalize_name(req.name))
            version = have.version if have else None
            if have is not None and _satisfies(req, version):
                continue
            found.append(
                {
                    "package": dist.metadata["Name"],
                    "version": dist.version,
                    "requires": str(req).split(";")[0].strip(),
                    "installed": version,
                    "name": canonicalize_name(req.name),
                }
            )
    return found


def _satisfies(req: Requirement, version: str) -> bool:
    try:
        return req.specifier.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return True  # a version pip cannot read either: not ours to judge


def cuvil_closure(dists: dict[str, metadata.Distribution]) -> set[str]:
    """Cuvil and every distribution it needs at run time, transitively."""
    seen, todo = set(), ["cuvil"]
    while todo:
        name = todo.pop()
        if name in seen or name not in dists:
            seen.add(name)
            continue
        seen.add(name)
        todo += [canonicalize_name(r.name) for r in _requirements(dists[name])]
    return seen


def packages(_timeout: float) -> Check:
    dists = installed()
    closure = cuvil_closure(dists)
    found = conflicts(dists)
    for c in found:
        c["matters_to_cuvil"] = canonicalize_name(c["package"]) in closure
    details = {"distributions": len(dists), "conflicts": found}
    if not found:
        summary = f"{len(dists)} distributions, no unmet requirement"
        return Check("packages", "", OK, summary, "", details)
    ours = [c for c in found if c["matters_to_cuvil"]]
    own = [c for c in ours if canonicalize_name(c["package"]) == "cuvil"]
    listed = own or ours or found
    shown = "; ".join(_describe(c) for c in listed[:SHOWN])
    more = len(listed) - SHOWN
    shown += f" (and {more} more)" if more > 0 else ""
    if own:  # Cuvil's own requirement: what it imports is not what it needs
        return Check(
            "packages",
            "",
            FAIL,
            f"{len(own)} of Cuvil's own requirement(s) unmet: {shown}",
            "pip install -e '.[dev]' in the checkout (never let pip pull another "
            "torch: pin torch or use --no-deps)",
            details,
        )
    if ours:
        return Check(
            "packages",
            "",
            WARN,
            f"{len(ours)} unmet requirement(s) among Cuvil's dependencies: {shown}",
            "install the versions asked for (pip install 'NAME>=VERSION', with "
            "--no-deps for anything that would pull another torch)",
            details,
        )
    return Check(
        "packages",
        "",
        WARN,
        f"{len(found)} unmet requirement(s), none among Cuvil's dependencies: {shown}",
        "harmless to Cuvil; `pip check` lists the same; fix them for those packages",
        details,
    )


def _describe(c: dict) -> str:
    have = f"{c['installed']} is installed" if c["installed"] else "not installed"
    return f"{c['package']} {c['version']} requires {c['requires']}, {have}"
