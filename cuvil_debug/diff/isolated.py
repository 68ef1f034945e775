"""``cuvil-debug diff`` in a worker process: the model runs there, never in the process
that writes the report.

The parent parses and checks the command line, starts ``python -m
cuvil_debug.diff.worker`` with the parsed arguments on its stdin and the private
channel of cuvil_debug.isolation, relays the worker's output (the model's prints
included) to stderr as it comes, and writes the report to -o or stdout only once the
worker sent it. A worker that ends without its report (os._exit, sys.exit, a signal,
memory, ``--timeout``) gives one error line and a non-zero exit, never an empty
success.
"""

from __future__ import annotations

import argparse
import io
import pickle
import shutil
import subprocess
import sys
import threading

from rich.console import Console

from cuvil.argtypes import positive_float
from cuvil.errors import CuvilError

from ..isolation import Channel, describe_exit, memory_size
from .progress import StageProgress, progress_mode

__all__ = [
    "add_isolation_args",
    "isolation_limits",
    "render_report",
    "report_texts",
    "plain_args",
    "run_isolated",
    "run_worker",
    "terminal",
]

EXIT_USAGE, EXIT_INTERNAL = 2, 3
PROG = "cuvil-debug diff"


def add_isolation_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--timeout",
        type=positive_float,
        metavar="SECONDS",
        help="stop the diff (exit 2) if it has not finished after SECONDS "
        "(default: no limit)",
    )
    p.add_argument(
        "--max-memory",
        type=memory_size,
        metavar="SIZE",
        help="memory the diff's worker may take beyond its start, e.g. 4G (default: "
        "no cap)",
    )
    p.add_argument(
        "--no-isolate",
        action="store_true",
        help="run the model in this process (faster start; a model that exits or "
        "crashes takes the diff with it)",
    )


# the options that run the model in this process (no worker to limit)
_IN_PROCESS = {"--no-isolate": "no_isolate", "--break-on": "break_on", "--tui": "tui"}


def isolation_limits(args) -> tuple[float | None, int | None]:
    """(timeout s, max memory bytes) of `args`; CuvilError on a bad value."""
    memory = args.max_memory  # bytes: memory_size parsed it
    in_process = [f for f, on in _IN_PROCESS.items() if getattr(args, on, False)]
    if (args.timeout is not None or memory) and in_process:
        raise CuvilError(
            f"--timeout and --max-memory limit the diff's worker, which {in_process[0]} "
            "does not use",
            hint=f"drop {in_process[0]} or the limit",
        )
    return args.timeout, memory


def render_report(report, fmt: str, *, to_file: bool, all_rows: bool, tty: bool, width):
    """The report as text in format `fmt` (table: as a terminal of `width` columns,
    with colours when `tty`; plain when written to a file)."""
    from .render import render_dot, render_html, render_table, report_json

    if fmt == "json":
        import json

        return json.dumps(report_json(report), indent=2)
    if fmt == "html":
        return render_html(report)
    if fmt == "dot":
        return render_dot(report)
    buffer = io.StringIO()
    if to_file:
        console = Console(file=buffer, width=160, no_color=True, force_terminal=False)
    else:
        console = Console(file=buffer, width=width, force_terminal=tty)
    render_table(report, console, all_rows=all_rows)
    return buffer.getvalue()


def report_texts(report, output, args, tty: bool, width) -> dict:
    """What `args` asks to write: the report (None under --tui without -o) and the
    dot graph (None without --dot)."""
    to_file = bool(output.path and output.path != "-")
    text = None
    if to_file or not args.tui:  # --tui: the UI shows it instead of stdout
        text = render_report(
            report,
            output.format,
            to_file=to_file,
            all_rows=args.all,
            tty=tty,
            width=width,
        )
    dot = None
    if output.also["dot"]:
        from .render import render_dot

        dot = render_dot(report)
    return {"report": text, "dot": dot}


def terminal() -> tuple[bool, int]:
    """(is stdout a terminal, the width a table gets: the terminal's, else 160)."""
    tty = sys.stdout.isatty()
    return tty, shutil.get_terminal_size().columns if tty else 160


def run_isolated(args, output) -> int:
    """Run the diff of `args` in a worker; write what it sends; the exit code."""
    timeout, memory = isolation_limits(args)
    tty, width = terminal()
    mode = progress_mode(args)
    payload = {"args": plain_args(args), "tty": tty, "width": width}
    payload.update(max_memory=memory, progress=mode is not None)
    progress = StageProgress(mode) if mode else None
    try:
        events, timed_out, returncode = run_worker(payload, timeout, progress)
    finally:
        if progress is not None:
            progress.close()
    if timed_out:
        return _fail(f"the diff did not finish within {timeout:g} s (--timeout)", 2)
    return _finish(events, returncode, output)


def run_worker(
    payload: dict, timeout: float | None, progress: StageProgress | None = None
) -> tuple[list, bool, int | None]:
    """One diff worker given `payload`: (the events it sent but progress, whether it
    ran past `timeout` and was killed, its exit status). Its output (the model's
    prints) goes to stderr, or above `progress`."""
    channel = Channel()
    proc = subprocess.Popen(
        [sys.executable, "-m", "cuvil_debug.diff.worker"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        pass_fds=channel.pass_fds,
        env=channel.env(),
    )
    channel.start()
    relay = threading.Thread(target=_relay, args=(proc.stdout, progress), daemon=True)
    relay.start()
    try:
        proc.stdin.write(pickle.dumps(payload))
        proc.stdin.close()
    except BrokenPipeError:  # the worker is gone already: its exit says why
        pass
    events, timed_out = _collect(channel, proc, timeout, progress)
    relay.join(timeout=5)
    return events, timed_out, proc.returncode


def plain_args(args: argparse.Namespace) -> dict:
    """The parsed options the worker needs (values, not the parser's callables)."""
    plain = {}
    for key, value in vars(args).items():
        try:
            pickle.dumps(value)
        except Exception:  # noqa: BLE001, S112 - a parser's callable: not an option
            continue
        plain[key] = value
    return plain


def _relay(stream, progress: StageProgress | None) -> None:
    """The worker's stdout and stderr (the model's output, warnings) to our stderr
    (above the progress line, if one is shown)."""
    for raw in stream:
        text = raw.decode("utf-8", "replace")
        if progress is not None:
            progress.write(text)
        else:
            sys.stderr.write(text)
            sys.stderr.flush()


def _collect(
    channel: Channel,
    proc: subprocess.Popen,
    timeout: float | None,
    progress: StageProgress | None,
):
    """(every event the worker sent but progress, which goes to `progress` as it
    comes; whether the worker ran past `timeout` and was killed)."""
    events: list = []
    reader = threading.Thread(
        target=_read_events, args=(channel, events, progress), daemon=True
    )
    reader.start()
    timed_out = False
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        timed_out = True
    reader.join(timeout=30)  # the channel closes when the worker exits (unless a
    return list(events), timed_out  # child kept it)


def _read_events(channel: Channel, events: list, progress) -> None:
    while (event := channel.events.get()) is not None:
        if event.get("event") == "progress" and "forged_prefix" not in event:
            if progress is not None:
                progress(str(event.get("phase")))
            continue
        events.append(event)


def _finish(events: list, returncode: int | None, output) -> int:
    forged = [e for e in events if e.get("event") == "forged" or "forged_prefix" in e]
    final = next((e for e in events if e.get("event") == "done"), None)
    if forged:
        return _fail(
            f"the model wrote to the diff's result channel: {len(forged)} line(s) "
            "without this run's nonce were rejected; no report is written",
            EXIT_USAGE,
        )
    if final is not None:
        if final.get("report") is not None:
            output.write(final["report"])
        if final.get("dot") is not None:
            output.write(final["dot"], also="dot")
        return final["code"]
    said = next((e for e in events if e.get("event") in ("error", "internal")), None)
    if said is not None:
        print(said["text"], file=sys.stderr)
        return EXIT_USAGE if said["event"] == "error" else EXIT_INTERNAL
    why = describe_exit(returncode, "the diff")
    if (
        returncode is not None and returncode < 0
    ):  # a signal: the model's code or Cuvil's native code
        return _fail(f"{why} (in the model's or Cuvil's code); no report", 3)
    return _fail(f"{why}; no report is written", EXIT_USAGE)


def _fail(message: str, code: int) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return code
