"""Parse a user's matrix upload (CSV or .npy) into a float64 array, or a clear ValueError.

Pure (no streamlit). Which matrix a problem takes: ``MATRIX_ROLES``.
"""

from __future__ import annotations

import io
import re

import numpy as np

MAX_ENTRIES = 200 * 200 * 4

# problem -> (keyword of make_problem, what the matrix is, shape rule)
MATRIX_ROLES = {
    "brockett": ("A", "symmetric A (n × n)"),
    "procrustes": ("A", "A (m × n); B is drawn at random from the seed"),
    "pca": ("data", "data matrix (m samples × n features)"),
    "linear": ("C", "C (n × p)"),
}


def _plain(err: Exception) -> str:
    """numpy's reading error in a user's words (its advice on usecols is for programmers)."""
    text = str(err)
    ragged = re.search(r"columns changed from (\d+) to (\d+) at row (\d+)", text)
    if ragged:
        before, after, row = ragged.groups()
        return f"row {row} has {after} values where the rows above have {before}"
    cell = re.search(r"could not convert string (.+) to float64 at row (\d+), column (\d+)", text)
    if cell:  # numpy counts rows from 0 and columns from 1
        value, row, column = cell.groups()
        return f"{value} in row {int(row) + 1}, column {column} is not a number"
    return text.rstrip(".")


def parse_matrix(filename: str, data: bytes) -> np.ndarray:
    """A 2-D float64 matrix from CSV text or a .npy file; ValueError when it is not one."""
    name = filename.lower()
    if not name.endswith((".npy", ".csv", ".txt")):
        raise ValueError(f"{filename}: upload a .csv or .npy file")
    try:
        if name.endswith(".npy"):
            A = np.load(io.BytesIO(data), allow_pickle=False)
        else:
            A = np.loadtxt(io.StringIO(data.decode("utf-8")), delimiter=",", ndmin=2)
    except UnicodeDecodeError:
        raise ValueError(f"{filename} could not be read as a matrix: it is not UTF-8 text; save "
                         "the matrix as comma-separated values") from None
    except (ValueError, OSError, EOFError) as err:
        reason = ("it is not a .npy file of numbers (write one with numpy.save)"
                  if name.endswith(".npy") else _plain(err))
        raise ValueError(f"{filename} could not be read as a matrix: {reason}") from None
    if A.dtype.kind not in "biuf":
        raise ValueError(f"{filename}: the matrix must hold numbers, got dtype {A.dtype}")
    A = np.asarray(A, dtype=float)
    if A.ndim != 2 or min(A.shape) < 1:
        raise ValueError(f"{filename}: expected a 2-D matrix, got shape {A.shape}")
    if A.size > MAX_ENTRIES:
        raise ValueError(f"{filename}: {A.size} entries is more than the app handles "
                         f"({MAX_ENTRIES})")
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{filename}: the matrix contains NaN or infinite entries")
    return A
