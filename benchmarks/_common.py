"""Shared helpers for the benchmarks: the machine's description and a robust timer.

The machine is noisy (2 cores, shared), so the benchmarks time their variants *interleaved*
(round after round, each variant once per round) and report medians and minimums, and ratios
taken within a round.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import datetime
import glob
import os
import platform
import socket
import statistics
import subprocess
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import numpy as np
import scipy

ROOT = Path(__file__).resolve().parents[1]
# Debian's chromium in a container: no sandbox, GPU or background traffic to disturb timings
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


def _openblas_runtime() -> str:
    """numpy's OpenBLAS as loaded at run time: core type, threads (best effort, via ctypes)."""
    libs = glob.glob(os.path.join(os.path.dirname(np.__file__) + ".libs", "*openblas*.so*"))
    if not libs:
        return "unknown (no bundled OpenBLAS found)"
    lib = ctypes.CDLL(libs[0])
    for prefix in ("scipy_openblas", "openblas"):
        for suffix in ("64_", ""):
            try:
                corename = getattr(lib, f"{prefix}_get_corename{suffix}")
                config = getattr(lib, f"{prefix}_get_config{suffix}")
                threads = getattr(lib, f"{prefix}_get_num_threads{suffix}")
            except AttributeError:
                continue
            corename.restype = config.restype = ctypes.c_char_p
            return (f"{config().decode()}; core {corename().decode()}; "
                    f"{threads()} threads")
    return "unknown"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine() -> str:
    """One paragraph: date, CPU count, versions, BLAS, and the OpenBLAS variables if set."""
    env = {k: v for k, v in os.environ.items() if k.startswith(("OPENBLAS", "OMP_", "MKL_"))}
    lines = [
        f"date: {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"machine: {_cpu_model()} ({platform.machine()}), {os.cpu_count()} CPUs (nproc)",
        f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}",
        f"numpy BLAS: {_openblas_runtime()}",
        f"BLAS environment: {env or 'none set'}",
        f"load average: {load_average()}",
    ]
    return "\n".join(lines)


def load_average() -> str:
    """The 1-, 5- and 15-minute load averages (the machine is shared: every figure beside it)."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def timing_arguments(description: str, before: str,
                     extra: tuple[tuple[str, int], ...] = ()
                     ) -> tuple[argparse.Namespace, Callable]:
    """The options of a benchmark that times a library copy against another: ``--clock``
    (wall, or this thread's CPU seconds) and ``--before`` (a copy of landing_core under another
    package name, ``before`` saying how it is timed), and ``extra`` integer options (name,
    default). Prints the machine and the clock; returns (arguments, clock)."""
    parser = argparse.ArgumentParser(description=description)
    for name, default in extra:
        parser.add_argument(name, type=int, default=default)
    parser.add_argument("--clock", choices=("wall", "thread"), default="wall")
    parser.add_argument("--before", help="a copy of landing_core under this package name "
                        f"(on PYTHONPATH), {before}")
    args = parser.parse_args()
    print(machine())
    print(f"clock: {args.clock}")
    return args, time.thread_time if args.clock == "thread" else time.perf_counter


def interleaved(
    variants: dict[str, Callable[[], object]], rounds: int, number: int = 1,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, list[float]]:
    """Seconds per call of each variant, one sample per round, variants interleaved in a round.

    The order within a round alternates (forward, then reversed), so that no variant always
    follows the same neighbour (what one leaves in caches and the allocator affects the next).
    ``clock``: the wall clock by default; ``time.thread_time`` counts only the seconds this
    thread ran, so that time spent descheduled on a loaded machine is left out.
    """
    for fn in variants.values():  # warm up (caches, BLAS threads, lazy imports)
        fn()
    times: dict[str, list[float]] = {name: [] for name in variants}
    order = list(variants.items())
    for r in range(rounds):
        for name, fn in (order if r % 2 == 0 else order[::-1]):
            t0 = clock()
            for _ in range(number):
                fn()
            times[name].append((clock() - t0) / number)
    return times


def median_ratio(num: list[float], den: list[float]) -> float:
    """The median over rounds of num / den (both timed in the same round)."""
    return statistics.median(a / b for a, b in zip(num, den, strict=True))


def free_port() -> int:
    """A loopback port no one listens on (now)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(argv: list[str], port: int, **popen) -> tuple[subprocess.Popen, str]:
    """Start the Streamlit server ``argv`` (listening on loopback ``port``) in ROOT; the process
    and its URL once /_stcore/health answers ok. Raises RuntimeError (the process killed) when
    it exits or is not healthy within a minute. ``popen``: more arguments of subprocess.Popen."""
    proc = subprocess.Popen(argv, cwd=ROOT, **popen)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(OSError):
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return proc, url
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"the server {argv[:4]} did not start")
