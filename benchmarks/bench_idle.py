"""What an idle explorer page costs the browser: main-thread task time per second, at rest.

The explorer opens at its default run (St(3, 2), held at X0: nothing plays). After the player's
canvases appear and 5 s have passed, Chrome's ``Performance.getMetrics`` TaskDuration (the
main thread's busy time, the player's iframe included: same origin, same renderer) is read
twice, ``--seconds`` apart; printed: busy seconds per second, for the page and for
about:blank, interleaved over ``--rounds`` rounds, each in a fresh browser.
Run: ``uv run --locked --group test python benchmarks/bench_idle.py [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from _common import CHROMIUM_ARGS, free_port, load_average, machine, start_server
from playwright.sync_api import sync_playwright


def busy_per_second(pw, url: str, seconds: float) -> float:
    """Main-thread task seconds per second on ``url`` at rest."""
    browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
        page.goto(url)
        if url != "about:blank":
            page.frame_locator("iframe").first.locator("canvas").first.wait_for(timeout=60_000)
        time.sleep(5.0)

        def task() -> float:
            metrics = cdp.send("Performance.getMetrics")["metrics"]
            return next(m["value"] for m in metrics if m["name"] == "TaskDuration")

        t0 = task()
        time.sleep(seconds)
        return (task() - t0) / seconds
    finally:
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    print(machine())
    port = free_port()
    server, url = start_server([sys.executable, "-m", "streamlit", "run", "app.py",
                                "--server.headless", "true", "--server.port", str(port)], port)
    try:
        out: dict[str, list[float]] = {"explorer": [], "about:blank": []}
        with sync_playwright() as pw:
            for _ in range(args.rounds):
                out["explorer"].append(busy_per_second(pw, url + "/", args.seconds))
                out["about:blank"].append(busy_per_second(pw, "about:blank", args.seconds))
        for name, values in out.items():
            print(f"{name:>12}: main-thread busy {statistics.median(values):.4f} s per s "
                  f"(median of {args.rounds}; {', '.join(f'{v:.4f}' for v in values)})")
    finally:
        server.kill()
    print(f"load average: {load_average()}")


if __name__ == "__main__":
    main()
