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
    assert printed[0] == claimed[0]  # "converged 197": status and iteration count, exactly
    assert abs(float(printed[1])) < 1e-12 and claimed[1] == "< 1e-12"
    assert float(printed[2]) < 1e-13 and claimed[2].endswith("< 1e-13")
