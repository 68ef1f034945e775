"""`cuvil-debug ci init | report`: adopt Cuvil in CI with one command (docs/CI.md).

`ci init` exit codes: 0 the files were written; 2 a user mistake (a workflow file
exists and --force was not given, a --models glob that matches no model file)."""

from __future__ import annotations

import argparse
import importlib.metadata
import os
from pathlib import Path

from cuvil.argtypes import existing_folder
from cuvil.errors import CuvilError
from cuvil.userpaths import check_file, write_file

from ..triage.api import expand_specs
from ..triage.select import model_specs
from . import github, gitlab
from . import report as report_cmd
from .settings import BASELINE, DIFF_KNOWN, GLOB, Settings, install_spec

__all__ = ["add_parser", "plan"]

DEFAULT_MODELS = "**/*.py"


def add_parser(commands) -> None:
    ci = commands.add_parser(
        "ci", help="set up Cuvil in CI", description="Set up Cuvil in CI."
    )
    sub = ci.add_subparsers(title="commands", metavar="COMMAND")
    _add_init(sub)
    report_cmd.add_parser(sub)
    ci.set_defaults(run=lambda args: _help(ci), parser=ci)


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def _add_init(sub) -> None:
    p = sub.add_parser(
        "init",
        help="write GitHub Actions / GitLab CI files that triage and diff the models",
        description="Write workflow files that install Cuvil, triage and diff the "
        "models, publish the reports and keep the compile cache between runs.",
    )
    p.add_argument("--github", action="store_true", help="GitHub Actions (default)")
    p.add_argument("--gitlab", action="store_true", help="GitLab CI")
    p.add_argument(
        "--models",
        type=_glob,
        default=DEFAULT_MODELS,
        metavar="GLOB",
        help="the model files, space-separated globs relative to --dir; files "
        f"that define no Model are skipped (default: '{DEFAULT_MODELS}')",
    )
    p.add_argument(
        "--dir",
        type=existing_folder,
        default=".",
        metavar="DIR",
        help="the repository's root (default: the current folder)",
    )
    p.add_argument(
        "--force", action="store_true", help="overwrite existing workflow files"
    )
    p.set_defaults(run=_run_init)


def _glob(text: str) -> str:
    if not text.strip() or not GLOB.match(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a glob of plain path characters "
            "(letters, digits, / . _ - * ? [ ]), e.g. 'models/**/*.py'"
        )
    return " ".join(text.split())


def plan(args: argparse.Namespace) -> dict[str, str]:
    """path (relative to --dir) -> content of every file `ci init` writes."""
    root = Path(args.dir)
    settings = Settings(models=args.models, install=install_spec(root))
    torch_version = importlib.metadata.version("torch").split("+")[0]
    files = {}
    if args.github or not args.gitlab:
        files[github.PATH] = github.github_workflow(settings, torch_version)
    if args.gitlab:
        files[gitlab.PATH] = gitlab.gitlab_ci(settings, torch_version)
        if not (root / gitlab.ROOT_PATH).exists():  # an existing one is the user's
            files[gitlab.ROOT_PATH] = gitlab.gitlab_root(settings)
    return files


def _run_init(args: argparse.Namespace) -> int:
    root = Path(args.dir)
    count, total = _count_models(root, args.models)
    files = plan(args)
    for rel in files:  # all refused before any is written
        if os.path.lexists(root / rel) and not args.force:
            raise CuvilError(
                f"{root / rel} already exists; pass --force to overwrite it"
            )
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        check_file(root / rel, force=args.force)
        write_file(root / rel, text, force=args.force)
        print(f"wrote {root / rel}")
    print(f"models: '{args.models}' matches {count} model file(s) of {total} file(s)")
    _next_steps(args, root, files)
    return 0


def _count_models(root: Path, globs: str) -> tuple[int, int]:
    """Model files the globs match under `root`, as the CI job will see them."""
    cwd = os.getcwd()
    try:
        os.chdir(root)  # triage expands the globs relative to the checkout's root
        found = [f for f in expand_specs(globs.split()) if Path(f).is_file()]
        models = model_specs([f for f in found if f.endswith(".py")], None)
    finally:
        os.chdir(cwd)
    if not models:
        raise CuvilError(
            f"--models '{globs}' matches no file that defines Model under {root} "
            f"({len(found)} file(s) matched)",
            hint="give a glob of your model files, relative to --dir, "
            "e.g. --models 'models/**/*.py'",
        )
    return len(models), len(found)


def _next_steps(args: argparse.Namespace, root: Path, files: dict[str, str]) -> None:
    steps = [
        f"record the known failures (run in {root}): mkdir -p .cuvil && "
        f"cuvil-debug triage '{args.models}' --skip-non-models --format json "
        f"-o {BASELINE}",
        f"list models whose diff is known to diverge in {DIFF_KNOWN} (optional)",
    ]
    if args.gitlab and gitlab.ROOT_PATH not in files:
        steps.append(
            f"add to your {gitlab.ROOT_PATH}:  include: [{{local: {gitlab.PATH}}}]"
        )
    steps.append(f"commit: git add {' '.join([*files, BASELINE])}")
    print("next steps:")
    for i, step in enumerate(steps, 1):
        print(f"  {i}. {step}")
