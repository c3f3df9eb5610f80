"""Parse a user's matrix upload (CSV or .npy) into a float64 array, or a clear ValueError.

Pure (no streamlit). Which matrix a problem takes: ``MATRIX_ROLES``. A .npy file's header is
read and checked (numbers, two dimensions, at most ``MAX_ENTRIES``) before any array is made:
a 200-byte file may claim 100000 × 100000 entries. Never with pickles.
"""

from __future__ import annotations

import io
import math
import re
import warnings

import numpy as np
from numpy.lib import format as npy_format

from .text import plain

MAX_ENTRIES = 200 * 200 * 4

# problem -> (keyword of make_problem, what the matrix is, shape rule)
MATRIX_ROLES = {
    "brockett": ("A", "symmetric A (n × n)"),
    "procrustes": ("A", "A (m × n); B is drawn at random from the seed"),
    "pca": ("data", "data matrix (m samples × n features)"),
    "linear": ("C", "C (n × p)"),
    "generalized_eigen": ("A", "symmetric A (n × n); B is the sidebar's Constraint"),
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


def _too_many(filename: str, size: int) -> ValueError:
    return ValueError(f"{filename}: {size} entries is more than the app handles ({MAX_ENTRIES})")


def _npy_array(filename: str, data: bytes) -> np.ndarray:
    """The array of a .npy file, its header checked before anything is allocated."""
    fp = io.BytesIO(data)
    try:
        version = npy_format.read_magic(fp)  # ValueError on anything else (.npz, a pickle)
        read_header = {(1, 0): npy_format.read_array_header_1_0,
                       (2, 0): npy_format.read_array_header_2_0}[version]
        shape, fortran, dtype = read_header(fp)
    except (ValueError, KeyError, OSError, EOFError):
        raise ValueError(f"{filename} could not be read as a matrix: it is not a .npy file of "
                         "numbers (write one with numpy.save)") from None
    if dtype.hasobject or dtype.fields is not None or dtype.kind not in "biuf":
        raise ValueError(f"{filename}: the matrix must hold numbers, got dtype {plain(dtype)}")
    size = math.prod(shape)  # Python ints: no overflow
    if size > MAX_ENTRIES:
        raise _too_many(filename, size)
    if len(data) - fp.tell() < size * dtype.itemsize:
        raise ValueError(f"{filename} could not be read as a matrix: the file is shorter than "
                         "its header says")
    flat = np.frombuffer(data, dtype=dtype, count=size, offset=fp.tell())
    return flat.reshape(shape, order="F" if fortran else "C")


def _csv_array(filename: str, data: bytes) -> np.ndarray:
    """The matrix of comma-separated text (a byte-order mark, as spreadsheets write, is
    allowed)."""
    try:
        with warnings.catch_warnings():
            # loadtxt only warns on text without a number (comments, a byte-order mark, blank
            # lines) and returns an empty array: say so instead of a shape
            warnings.simplefilter("error", UserWarning)
            return np.loadtxt(io.StringIO(data.decode("utf-8-sig")), delimiter=",", ndmin=2)
    except UserWarning:
        raise ValueError(f"{filename} holds no numbers") from None
    except UnicodeDecodeError:
        raise ValueError(f"{filename} could not be read as a matrix: it is not UTF-8 text; save "
                         "the matrix as comma-separated values") from None
    except ValueError as err:
        raise ValueError(f"{filename} could not be read as a matrix: "
                         f"{plain(_plain(err), 200)}") from None


def parse_matrix(filename: str, data: bytes) -> np.ndarray:
    """A 2-D float64 matrix from CSV text or a .npy file; ValueError when it is not one."""
    name, filename = filename.lower(), plain(filename)  # the messages show one bounded line
    if not name.endswith((".npy", ".csv", ".txt")):
        raise ValueError(f"{filename}: upload a .csv or .npy file")
    if not data.strip():
        raise ValueError(f"{filename} is empty")
    A = _npy_array(filename, data) if name.endswith(".npy") else _csv_array(filename, data)
    A = np.array(A, dtype=float)  # a copy: writable, and free of the upload's bytes
    if A.ndim != 2 or min(A.shape) < 1:
        raise ValueError(f"{filename}: expected a 2-D matrix, got shape {A.shape}")
    if A.size > MAX_ENTRIES:
        raise _too_many(filename, A.size)
    if not np.all(np.isfinite(A)):
        raise ValueError(f"{filename}: the matrix contains NaN or infinite entries")
    return A
