"""The README's library example runs and prints what its comments say."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readme_example_prints_what_it_says():
    code = re.search(r"```python\n(.*?)```", README.read_text(), re.S).group(1)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})  # noqa: S102 - our own README
    printed = out.getvalue().splitlines()
    claimed = [line.split("#", 1)[1].strip() for line in code.splitlines()
               if line.startswith("print(")]
    # "converged ~190": the status exactly; the count within 10 % (the last few iterations
    # depend on the BLAS kernel's rounding: 197 on one machine, 191 on another)
    status, count = printed[0].split()
    claimed_status, approx = claimed[0].split()
    assert status == claimed_status
    assert abs(int(count) - int(approx.lstrip("~"))) <= 0.1 * int(approx.lstrip("~"))
    assert abs(float(printed[1])) < 1e-12 and claimed[1] == "< 1e-12"
    assert float(printed[2]) < 1e-13 and claimed[2].endswith("< 1e-13")
