"""The README's library examples run and print what their comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def _run(block: int) -> tuple[list[str], list[str]]:
    """Run the README's ``block``-th python example: (printed lines, the comments claiming
    what each print shows)."""
    code = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)[block]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - our own README
    claimed = [line.split("#", 1)[1].strip() for line in code.splitlines()
               if line.startswith("print(")]
    return out.getvalue().splitlines(), claimed


def _assert_status_and_count(printed: str, claimed: str) -> None:
    """"converged ~150": the status exactly; the count within 10 % (the last few iterations
    depend on the BLAS kernel's rounding: under the earlier default, 197 on one machine and
    191 on another; under ScaleFree, 149 with the Haswell, Sandybridge and Prescott kernels)."""
    status, count = printed.split()
    claimed_status, approx = claimed.split()
    assert status == claimed_status
    assert abs(int(count) - int(approx.lstrip("~"))) <= 0.1 * int(approx.lstrip("~"))


def test_the_readme_example_prints_what_it_says():
    printed, claimed = _run(0)
    _assert_status_and_count(printed[0], claimed[0])
    assert abs(float(printed[1])) < 1e-12 and claimed[1] == "< 1e-12"
    assert float(printed[2]) < 1e-13 and claimed[2].endswith("< 1e-13")


def test_the_readme_own_cost_example_prints_what_it_says():
    assert "## Your own cost" in README.read_text()
    printed, claimed = _run(1)
    assert printed[0] == claimed[0] == "True"
    _assert_status_and_count(printed[1], claimed[1])
    assert abs(float(printed[2])) < 1e-12 and claimed[2] == "< 1e-12"


def test_ci_runs_the_readmes_test_command():
    text = README.read_text()
    section = text.split("## Run the whole test suite", 1)[1]
    command = re.search(r"```bash\n(.*?)\n```", section, re.S).group(1)
    assert command == "uv run --locked --group test pytest -n 2"
    ci = (README.parent / ".ci" / "run").read_text().splitlines()
    assert command in ci  # a line of its own, as the README gives it


def test_the_readme_generalized_stiefel_example_prints_what_it_says():
    assert "### On XᵀBX = I" in README.read_text()
    printed, claimed = _run(2)
    assert printed[0] == claimed[0] == "converged"
    assert float(printed[1]) < 1e-8 and claimed[1].startswith("< 1e-8")
    assert float(printed[2]) < 1e-8 and claimed[2].endswith("< 1e-8")


def test_every_file_the_readme_says_where_each_part_lives_exists():
    """The README's map of the tree names folders and files as they are: a folder ("…/") by its
    path from the root, a file by its path or, after its folder, by its name in that folder."""
    section = README.read_text().split("## Where each part lives", 1)[1].split("\n## ", 1)[0]
    root = README.parent
    folders, missing = [], []
    for name in re.findall(r"`([\w./-]+\.(?:py|js)|[\w./-]+/)`", section):
        if name.endswith("/"):
            folders.append(root / name)
        if not ((root / name).exists() or any((f / name).exists() for f in folders)):
            missing.append(name)
    assert len(folders) >= 8 and not missing, missing
