"""Shared test settings.

.streamlit/config.toml is written for hosting: visitors see no error details. AppTest runs the
app in this process and reads that file, so an exception would reach a test as a redacted
message; the tests set full details for themselves (servers started by the browser tests are
separate processes and keep the hosting settings).
"""

import functools
import os

# One BLAS thread per test process, set before anything imports numpy (OpenBLAS reads it once,
# when it loads): pytest -n 2 already runs a process per core, and each OpenBLAS would start a
# thread per core that spins while it waits for work, so two workers ran four busy threads on
# two cores (and the servers the browser tests start, which inherit it, more). A variable the
# caller set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from pathlib import Path  # noqa: E402

from hypothesis import settings  # noqa: E402
from streamlit import config  # noqa: E402
from streamlit.components.v2 import manifest_scanner  # noqa: E402

config.set_option("client.showErrorDetails", "full")

# Every new AppTest scans the metadata of all installed distributions for v2 component
# manifests (Streamlit's BidiComponentManager, once per AppTest, not per process): a few hundred
# AppTests paid it each time. The installed packages do not change during a test session, so
# one scan answers them all.
manifest_scanner.scan_component_manifests = functools.cache(
    manifest_scanner.scan_component_manifests)

# Hypothesis's default 200 ms deadline per example measures the machine, not the code (a
# loaded runner misses it with correct code). Correctness is what the property tests check;
# speed lives in benchmarks/.
settings.register_profile("shared-machine", deadline=None)
settings.load_profile("shared-machine")

HERE = Path(__file__).parent


# Browser test files by their longest test, longest first (pytest --durations=0; the files not
# named here take less and follow in collection order). A new slow file belongs here: see the
# hook below.
LONGEST_FIRST = ("navigation", "hosting", "sweep", "proxy", "dockerfile", "hostile", "stochastic",
                 "family", "layout", "teaching", "lecture", "compare", "generalized", "metric",
                 "explorer")


def _rank(item) -> tuple[bool, int]:
    """Browser tests first, the files of LONGEST_FIRST in its order, then the rest."""
    if item.get_closest_marker("browser") is None:
        return True, 0
    name = item.path.stem.removeprefix("test_").removesuffix("_browser")
    return False, LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)


def pytest_collection_modifyitems(items):
    """Mark the numerical part, and put the browser tests first, the longest first.

    The numerical part is tests/core/: the library's own tests (landing_core alone: no app, no
    browser), the fast part the README names (`pytest -m numerical`) and the part .ci/run
    repeats under several OpenBLAS kernels.

    The browser tests take tens of seconds each, the others well under one: started first, they
    are spread over both workers (pyproject's `--dist worksteal`) while the short tests fill the
    gaps, instead of one long test ending the run with the other worker idle. Longest first
    within them: worksteal hands a worker the first half of the list and the other the second,
    and an idle worker takes the tail of the other's queue, so the last tests to run are those
    in the middle of the browser tests; in collection order these were the navigation and
    proxy tests, the longest, and one worker sat idle at the end while the other ran them.
    """
    for item in items:
        if item.path.parent.relative_to(HERE).parts[:1] == ("core",):
            item.add_marker("numerical")
    items.sort(key=_rank)  # stable: a file's tests keep their order (proxy's failover last)
