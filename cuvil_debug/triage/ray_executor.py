"""`triage --executor ray`: each model one Ray task on a Ray cluster, running the same
per-model job as the local executor (runner.run_batch: a worker process with its
timeout, a model that kills it recorded as `crash`). Only the executor differs: Ray
places the tasks instead of a thread pool here.

Every node must see the models and Cuvil at the same paths as this machine (a shared
checkout, or a container image): the task starts its worker in this run's working
directory. Ray is optional: ``pip install cuvil[ray]``.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Sequence

from cuvil.errors import CuvilError

from .runner import Job, run_batch

__all__ = ["require_ray", "check_address", "run_ray", "RAY_MISSING", "LOCAL"]

RAY_MISSING = "--executor ray needs Ray, which is not installed: pip install cuvil[ray]"
LOCAL = "local"  # --address local: a private cluster on this machine for this run
PROBE_S = 10.0  # seconds to wait for the cluster's port to answer
LOCAL_OBJECT_STORE = 80 * 2**20  # bytes; Ray's least is 75 MiB, results are small


def require_ray() -> None:
    """Raise CuvilError (the one-line fix) when Ray cannot be imported."""
    try:
        import ray  # noqa: F401
    except ImportError:
        raise CuvilError(RAY_MISSING) from None


def run_ray(
    jobs: Sequence[Job],
    address: str | None,
    workers: int,
    timeout: float,
    max_memory: int | None,
) -> list[dict]:
    """Records in job order. `address`: a cluster's (`HOST:PORT`, `ray://...`,
    `auto`), or `local`: start one of `workers` CPUs for this run and stop it after."""
    import ray

    _connect(ray, address or "auto", workers)
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(_task)
        cwd = os.getcwd()
        refs = [task.remote(job, timeout, max_memory, cwd) for job in jobs]
        return [_record(ray, ref, job) for ref, job in zip(refs, jobs)]
    finally:
        ray.shutdown()


def check_address(address: str) -> None:
    """Raise CuvilError unless `address` is `local`, `auto`, or a HOST:PORT (or
    ray://HOST:PORT) that accepts a connection: Ray itself retries an address where
    nothing listens for minutes."""
    if address in (LOCAL, "auto"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise CuvilError(
            f"--address {address!r}: expected HOST:PORT, ray://HOST:PORT, auto or local"
        )
    try:
        socket.create_connection((host.strip("[]"), int(port)), PROBE_S).close()
    except OSError as e:
        raise CuvilError(
            f"cannot reach the Ray cluster at {address!r}: {e.strerror or e}; start "
            f"one with `ray start --head` or give --address local"
        ) from None


def _connect(ray, address: str, workers: int) -> None:
    check_address(address)
    quiet = {"log_to_driver": False, "logging_level": logging.WARNING}
    try:
        if address == LOCAL:
            ray.init(
                address=LOCAL,
                num_cpus=workers,
                include_dashboard=False,
                object_store_memory=LOCAL_OBJECT_STORE,
                **quiet,
            )
        else:
            ray.init(address=address, **quiet)
    except Exception as e:  # Ray raises ConnectionError, RuntimeError, ValueError...
        first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
        raise CuvilError(
            f"cannot reach the Ray cluster at {address!r}: {first}; start one with "
            f"`ray start --head` or give --address local"
        ) from None


def _task(job: Job, timeout: float, max_memory: int | None, cwd: str) -> dict:
    """The Ray task: the local executor's per-model job, for one model."""
    return run_batch([job], timeout, max_memory, cwd=cwd)[job.index]


def _record(ray, ref, job: Job) -> dict:
    """The task's record; a task that Ray lost (its worker died, the node went away)
    is a `crash` of this model only."""
    try:
        return ray.get(ref)
    except ray.exceptions.RayError as e:
        first = (str(e).strip().splitlines() or [""])[0][:300]
        return {
            "spec": job.spec,
            "frontend": job.frontend,
            "status": "crash",
            "message": f"the Ray task of this capture died: {type(e).__name__}: "
            f"{first}",
        }
