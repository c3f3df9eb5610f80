"""The hosting goals of issue 12, measured on a server started as a deployment starts it
(deploy/run-app.sh: one BLAS thread), driven by headless Chromium sessions.

Run: uv run --group test python benchmarks/bench_hosting.py [part ...] [--rounds R]
     [--soak-runs N] [--soak-minutes M] [--soak-pace S]
Parts (default: all but blas): contention, close, soak, blas.

- contention: a victim's default run (a fresh session: navigation until the player holds the
  whole computed run) alone, then while one hostile session holds the costliest request the
  app still accepts (a comparison of six Cayley-RGD rows with Armijo on St(200, 50), its
  iteration limit set by the cost model to just under the budget), then with four hostile
  sessions (two compute, two queued at the gate). Goals: at most 2x and 3x the lone time.
- close: a hostile tab (that comparison; a 30x30 sweep on St(100, 20); the explorer's
  St(200, 50) Armijo run, computed by its worker) is closed while it computes; the server's
  CPU (from /proc/<pid>/stat) from 2 to 5 s after. Goal: under 25 % of one core.
- soak: N default runs in a row, each in a new session, then four sessions changing their
  seed for M minutes; the server's VmRSS sampled along. Goal: flat, i.e. over the second half
  (after the warm-up) the least-squares trend rises less than twice the samples' scatter
  about it (``flatness``). ``--soak-pace S`` (seconds, 0: as fast as the server answers)
  starts a round of the four sessions' runs every S seconds and a run of the first part
  every S/4: Streamlit keeps a closed session for two minutes, so the memory held follows
  the run rate, and a fixed pace keeps that rate independent of the machine's load.
- blas: St(200, 50) iterations per second with OpenBLAS's default threads and with one, one
  process and two at once (the shared server's case).

Figures are printed with the load averages (the machine is shared: re-run on a quiet one).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np

# run as a script (benchmarks/ on sys.path), or imported by tests as benchmarks.bench_hosting
if __package__:
    from ._common import CHROMIUM_ARGS, ROOT, free_port, machine, start_server
else:
    from _common import CHROMIUM_ARGS, ROOT, free_port, machine, start_server

PLAYER = 'iframe[title="explorer.live.landing_player"]'
PROGRESS = '[data-testid="stProgress"]'
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------- the server's process


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads), from /proc/<pid>/stat."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime: fields 14, 15


def rss_bytes(pid: int) -> int:
    """The resident memory of process ``pid`` (VmRSS)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def cpu_share(pid: int, start: float, end: float, t0: float) -> float:
    """The share of one core process ``pid`` used from ``start`` to ``end`` seconds after the
    moment ``t0`` (time.monotonic); sleeps until then."""
    time.sleep(max(0.0, t0 + start - time.monotonic()))
    c0, w0 = cpu_seconds(pid), time.monotonic()
    time.sleep(max(0.0, t0 + end - time.monotonic()))
    return (cpu_seconds(pid) - c0) / (time.monotonic() - w0)


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def serve(log: Path | None = None, env: dict[str, str] | None = None
          ) -> tuple[subprocess.Popen, str]:
    """The app as deployed (deploy/run-app.sh) on a free loopback port; (process, URL)."""
    port = free_port()
    out = open(log, "w") if log else subprocess.DEVNULL  # noqa: SIM115 - lives with the server
    return start_server(
        [str(ROOT / "deploy" / "run-app.sh"), str(port), "--server.address", "127.0.0.1",
         "--server.fileWatcherType", "none"],
        port, env=dict(os.environ, PYTHON=sys.executable, **(env or {})), stdout=out,
        stderr=subprocess.STDOUT)


# ---------------------------------------------------------------------- the sessions


def costliest_compare_query(seed: int = 0, env: dict[str, str] | None = None) -> str:
    """The compare page's query for six Cayley-RGD rows with Armijo on St(200, 50), with the
    largest iteration limit the budget of a server started with ``env`` admits (the costliest
    comparison)."""
    from explorer import budget, compare

    rows = [("rgd-cayley", "armijo")] * 6
    limit = budget.Budget.from_env(dict(os.environ, **(env or {})))
    fits = max(k for k in range(100, 5001, 50)
               if budget.compare_cost("brockett", 200, 50, k, rows).refusal(limit) is None)
    table = compare.rows_query([compare.Row(f"c{i}", method=method, step=step)
                                for i, (method, step) in enumerate(rows)])
    return (f"n=200&p=50&tol=1e-14&max_iter={fits}&seed={seed}&steps=rows&rows="
            + urllib.request.quote(table))


def open_hostile(browser, url: str, kind: str, seed: int, env: dict[str, str] | None = None):
    """A session computing something heavy on the server started with ``env``: (context, page)
    once the work is under way or queued at the gate."""
    context = browser.new_context(viewport={"width": 1300, "height": 1400})
    page = context.new_page()
    working = page.locator(PROGRESS).or_(page.get_by_text("Queued:")).first
    if kind == "compare":
        page.goto(f"{url}/compare?{costliest_compare_query(seed, env)}")
        working.wait_for(timeout=60_000)
    elif kind == "sweep":
        page.goto(f"{url}/sweep?n=100&p=20&tol=1e-14&max_iter=1000&seed={seed}")
        working.wait_for(timeout=60_000)
    else:  # the explorer's worker: St(200, 50), Armijo, 5000 iterations
        page.goto(f"{url}/?n=200&p=50&tol=1e-14&max_iter=5000&step=armijo&seed={seed}")
        page.wait_for_selector(PLAYER, timeout=60_000)
    return context, page


def still_working(page) -> bool:
    return page.locator(PROGRESS).count() > 0 or page.get_by_text("Queued").count() > 0


def default_run(browser, url: str, seed: int) -> float:
    """Seconds from navigation to the player holding the whole default run (a new session)."""
    context = browser.new_context(viewport={"width": 1300, "height": 1400})
    page = context.new_page()
    t0 = time.perf_counter()
    page.goto(f"{url}/?seed={seed}")
    frame = page.wait_for_selector(PLAYER, timeout=120_000).content_frame()
    frame.wait_for_function("window.landingPlayer && landingPlayer.run && landingPlayer.run.done",
                            timeout=120_000)
    seconds = time.perf_counter() - t0
    context.close()
    return seconds


# ---------------------------------------------------------------------- the parts


def contention(browser, rounds: int) -> None:
    proc, url = serve()
    seeds = iter(range(10, 10**6))
    try:
        default_run(browser, url, 1)  # warm: imports, plotly.js
        results = {}
        for hostile in (0, 1, 4):
            tabs = [open_hostile(browser, url, "compare", next(seeds)) for _ in range(hostile)]
            times = []
            for _ in range(rounds):
                for i, (context, page) in enumerate(tabs):  # keep them hostile
                    if not still_working(page):
                        context.close()
                        tabs[i] = open_hostile(browser, url, "compare", next(seeds))
                times.append(default_run(browser, url, next(seeds)))
            for context, _ in tabs:
                context.close()
            time.sleep(3)
            results[hostile] = times
            print(f"  {hostile} hostile: default run {statistics.median(times):.2f} s median, "
                  f"{min(times):.2f}-{max(times):.2f} ({rounds} rounds; {load()})", flush=True)
        lone = statistics.median(results[0])
        print(f"contention: one hostile {statistics.median(results[1]) / lone:.2f}x the lone "
              f"time (goal <= 2x), four {statistics.median(results[4]) / lone:.2f}x "
              "(goal <= 3x)")
    finally:
        proc.terminate()
        proc.wait()


def close(browser) -> None:
    proc, url = serve()
    try:
        default_run(browser, url, 1)
        for kind in ("compare", "sweep", "explorer"):
            context, page = open_hostile(browser, url, kind, 7)
            busy = cpu_share(proc.pid, 0.5, 2.0, time.monotonic())
            t0 = time.monotonic()
            context.close()
            after = cpu_share(proc.pid, 2.0, 5.0, t0)
            print(f"close: {kind:8s} tab computing at {100 * busy:.0f} % of a core; 2-5 s "
                  f"after closing it: {100 * after:.1f} % (goal < 25 %; {load()})", flush=True)
            time.sleep(2)
    finally:
        proc.terminate()
        proc.wait()


def trend(samples: list[tuple[float, float]]) -> tuple[float, float]:
    """(change, noise) of (time, MB) samples: the least-squares line's rise over their span,
    and the standard deviation of the samples about that line (both MB)."""
    t, mb = np.array(samples).T
    slope, intercept = np.polyfit(t, mb, 1)
    noise = float(np.std(mb - (slope * t + intercept), ddof=2)) if len(t) > 2 else 0.0
    return float(slope * (t[-1] - t[0])), noise


def flatness(samples: list[tuple[float, float]], unit: str) -> str:
    """The verdict on the second half of ``samples`` (after the warm-up): flat when the
    trend's rise is within twice the noise about it."""
    half = samples[len(samples) // 2:]
    change, noise = trend(half)
    verdict = "flat" if abs(change) <= max(2 * noise, 0.5) else "NOT flat"
    return (f"second half ({unit} {half[0][0]:.0f} to {half[-1][0]:.0f}): trend "
            f"{change:+.1f} MB, noise {noise:.1f} MB -> {verdict}")


def wait_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.monotonic()))


def soak(browser, runs: int, minutes: float, pace: float = 0.0) -> None:
    proc, url = serve()
    try:
        default_run(browser, url, 1)
        samples = [(0, rss_bytes(proc.pid) / 2**20)]
        t0 = time.monotonic()
        for i in range(1, runs + 1):
            wait_until(t0 + (i - 1) * pace / 4)
            default_run(browser, url, 100 + i)
            if i % max(1, runs // 20) == 0:
                samples.append((i, rss_bytes(proc.pid) / 2**20))
        print(f"soak: {runs} default runs in new sessions in {time.monotonic() - t0:.0f} s; "
              "VmRSS (MB) after run " + ", ".join(f"{n}: {v:.0f}" for n, v in samples)
              + f"; {flatness(samples, 'runs')} ({load()})", flush=True)
        pages = []
        for _ in range(4):
            context = browser.new_context(viewport={"width": 1300, "height": 1400})
            pages.append((context, context.new_page()))
        start = time.monotonic()
        end, done, seed = start + 60 * minutes, 0, 5000
        trail, rates, next_sample = [], [], start
        rounds = 0
        while time.monotonic() < end:
            wait_until(start + rounds * pace)
            rounds += 1
            for _, page in pages:
                seed += 1
                page.goto(f"{url}/?seed={seed}&n={3 + seed % 20}&p=2")
                frame = page.wait_for_selector(PLAYER, timeout=120_000).content_frame()
                frame.wait_for_function("window.landingPlayer && landingPlayer.run && "
                                        "landingPlayer.run.done", timeout=120_000)
                done += 1
            if time.monotonic() >= next_sample:  # about once a minute (20 samples at least)
                trail.append(((time.monotonic() - start) / 60, rss_bytes(proc.pid) / 2**20))
                rates.append(done - sum(rates))
                next_sample += min(60.0, 3 * minutes)
        for context, _ in pages:
            context.close()
        # the runs since the last sample: Streamlit keeps a closed tab's session for
        # server.disconnectedSessionTTL (120 s), so the memory held follows the run rate
        print(f"soak: four sessions for {minutes:g} min, a round every {pace:g} s, {done} "
              "runs; VmRSS (MB, runs since "
              "the last sample) at minute "
              + ", ".join(f"{m:.0f}: {v:.0f} ({n})" for (m, v), n in zip(trail, rates,
                                                                         strict=True))
              + f"; after closing {rss_bytes(proc.pid) / 2**20:.0f}; "
              + f"{flatness(trail, 'minutes')} ({load()})")
    finally:
        proc.terminate()
        proc.wait()


BLAS_RUN = """
import time
from explorer.runner import build_problem, start
from explorer.state import AppConfig
c = AppConfig(n=200, p=50, tol=1e-14, max_iter=5000, step="constant", eta=1e-4)
trace, records = start(c, build_problem(c))
t = time.perf_counter()
while time.perf_counter() - t < 4.0:  # four seconds of the stream, as the worker computes it
    trace.feed(next(records), c.tol, c.max_iter)
print(trace.k / (time.perf_counter() - t))
"""


def blas(rounds: int = 2) -> None:
    """Interleaved: each round runs every (threads, processes at once) variant once."""
    counts = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
    rates: dict[tuple[str, int], list[float]] = {}
    for _ in range(rounds):
        for threads in ("default", "1"):
            env = {k: v for k, v in os.environ.items() if k not in counts}
            if threads != "default":
                env |= dict.fromkeys(counts, threads)
            for together in (1, 2):
                procs = [subprocess.Popen([sys.executable, "-c", BLAS_RUN], cwd=ROOT,
                                          env=env, stdout=subprocess.PIPE, text=True)
                         for _ in range(together)]
                rates.setdefault((threads, together), []).extend(
                    float(p.communicate()[0]) for p in procs)
    for (threads, together), values in rates.items():
        print(f"blas: threads {threads}, {together} at once: median "
              f"{statistics.median(values):.0f} iterations/s per run (all: "
              + ", ".join(f"{r:.0f}" for r in values) + f"; {load()})")


def main(argv: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    options = {"--rounds": 5, "--soak-runs": 200, "--soak-minutes": 30.0, "--soak-pace": 0.0}
    parts = []
    args = iter(argv)
    for arg in args:
        if arg in options:
            options[arg] = type(options[arg])(next(args))
        else:
            parts.append(arg)
    parts = parts or ["contention", "close", "soak"]
    print(machine())
    print(f"{load()}; parts {parts}; options {options}")
    if "blas" in parts:
        blas()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        if "contention" in parts:
            contention(browser, options["--rounds"])
        if "close" in parts:
            close(browser)
        if "soak" in parts:
            soak(browser, options["--soak-runs"], options["--soak-minutes"],
                 options["--soak-pace"])
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1:])
