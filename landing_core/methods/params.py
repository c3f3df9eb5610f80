"""Parameter checks shared by the methods, Config and the sweeps (one message per mistake)."""

from __future__ import annotations

import numbers

import numpy as np

from ..geometry import TANGENT_TERMS

Array = np.ndarray


def positive(name: str, value: float | Array, *, per_run: bool = True) -> float | Array:
    """A finite value > 0 (a float, or, where ``per_run``, every entry of a per-run array);
    ValueError otherwise."""
    if per_run and isinstance(value, np.ndarray) and value.ndim > 0:
        if not np.all(np.isfinite(value) & (value > 0)):
            raise ValueError(f"every {name} must be a finite number > 0")
        return value
    if not (isinstance(value, numbers.Real) and np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)  # numpy scalars become floats


def nonnegative(name: str, value: float | Array) -> float | Array:
    """A finite value >= 0 (a float, or every entry of a per-run array); ValueError otherwise.
    For omega = 0, a tangent-only run that stays on the layer through X_0."""
    if isinstance(value, np.ndarray) and value.ndim > 0:
        if not np.all(np.isfinite(value) & (value >= 0)):
            raise ValueError(f"every {name} must be a finite number >= 0")
        return value
    if not (isinstance(value, numbers.Real) and np.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


def tangent_name(tangent: str) -> str:
    """A name of ``geometry.TANGENT_TERMS``; ValueError otherwise."""
    if tangent not in TANGENT_TERMS:
        raise ValueError(f"unknown tangent term {tangent!r}; choose one of "
                         f"{', '.join(map(repr, TANGENT_TERMS))}")
    return tangent
