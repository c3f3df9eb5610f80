"""A family of runs (explorer.family): one batch over β, ω or η, whose every member is the
lone run of the explorer with that value (runner.start, the solver's own iteration).

What "is the lone run" can mean to 1e-12. Batch and lone run evaluate the same formulas with
other kernels (a stacked product against a single one, another summation order): each step
commits a relative rounding error of a few u = 1.1e-16. Along a whole run these errors are
multiplied by the step map's Jacobians, and a run that circles under a long step (the safe
step with a cap η of 1 or 2: no contraction) amplifies them without bound: found by hypothesis
under OPENBLAS_CORETYPE=Prescott, where the batch and the lone run of brockett(3, 2), η = 2 end
their 120 iterations at ‖grad‖ + ‖h‖ = 2.8 and 4.0. Two lone runs on two machines do the same.
So each member is checked step by step (shadowing): at every iterate X_k of the member, the
lone iteration started at X_k gives the member's f, ‖h‖, ‖grad‖, singular values, Gram matrix
and f* there, its step η_k and its next iterate X_{k+1}, and its stopping rule stops exactly
where the member stopped. One step's error: the entries of XᵀX − I are formed from products of
size ‖X‖² ≤ 1 + ‖h(X)‖, so relative to max(1, |value|) a step errs by a few u (1 + ‖h‖): the
tolerance is 1e-12 (1 + ‖h(X_k)‖), some 10⁴ u of room. Where a run does contract (the app's
default family) the whole runs agree to 1e-12 too (test_family_app).
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer import family
from explorer.constraint import constraint_matrix
from explorer.runner import Trace, build_problem, run_to_end, solver_config, start
from explorer.state import AppConfig, validate
from landing_core.solvers import iterate, make_method, stop_reason

REL = 1e-12
FIELDS = ("cost", "infeasibility", "grad_norm", "step", "normal_step", "X", "sigma", "gram",
          "f_star", "metric")


def _lone(config: AppConfig, problem, param: str, value: float):
    member = replace(config, **{param: float(value)})
    trace, records = start(member, problem)
    return run_to_end(trace, records, member)


def _close(got, ref, scale: float) -> bool:
    """Entrywise |got - ref| <= scale max(1, |ref|), NaN where both are NaN (the step that
    produced X_0)."""
    got, ref = np.asarray(got, dtype=float), np.asarray(ref, dtype=float)
    nan = np.isnan(ref)
    return bool(np.array_equal(nan, np.isnan(got)) and np.all(
        np.abs(got[~nan] - ref[~nan]) <= scale * np.maximum(1.0, np.abs(ref[~nan]))))


_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _same_message(got: str, ref: str, scale: float) -> bool:
    """The same words, and numbers that agree within ``scale`` (as ``_close``) once printed:
    a message prints its values to 3 significant digits, so values within the tolerance can
    print a last digit apart (‖h‖ = 1.25e-14 against 1.26e-14)."""
    if _NUMBER.sub("#", got) != _NUMBER.sub("#", ref):
        return False
    a = np.array([float(x) for x in _NUMBER.findall(got)])
    b = np.array([float(x) for x in _NUMBER.findall(ref)])
    printed = 5e-3 * (np.abs(a) + np.abs(b))  # half a unit of the third digit, each
    return bool(np.all(np.abs(a - b) <= scale * np.maximum(1.0, np.abs(b)) + printed))


def assert_member_follows_the_lone_iteration(member, config: AppConfig, problem, param: str,
                                             value: float) -> None:
    """The module's docstring: at every X_k of the member, one lone step from X_k."""
    lone = replace(config, **{param: float(value)})
    # built once, not once per X_k (frozen: a run's state lives in its iterate generator);
    # iterate builds the same method when given none
    solver = solver_config(lone)
    method = make_method(solver, problem)
    K = member.k
    assert len(member.X) == K + 1  # n <= 3: the member keeps its iterates
    for k in range(K + 1):
        records = iterate(problem, member.X[k], solver, method=method)
        here = next(records)
        scale = REL * (1.0 + here.infeasibility)
        # the Metric view's rows: a family's at St(3, 2) on XᵀX = I (family.views)
        metric = (problem.n, problem.p) == (3, 2) and problem.B is None
        assert member.extras == (("metric",) if metric else ())
        assert len(member.metric) == (K + 1 if metric else 0)
        view = Trace(problem.n, problem.p, lone.omega, B=problem.B,
                     optima=problem.f_star_by_det if problem.n == problem.p else None,
                     extras=member.extras)
        view.append(here)
        for name, got, ref in (("cost", member.cost[k], here.cost),
                               ("infeasibility", member.infeasibility[k], here.infeasibility),
                               ("grad_norm", member.grad_norm[k], here.grad_norm),
                               ("sigma", member.sigma[k], view.sigma[0]),
                               ("gram", member.gram[k] if member.gram else 0.0,
                                view.gram[0] if view.gram else 0.0),
                               ("f_star", member.f_star[k] if member.f_star else 0.0,
                                view.f_star[0] if view.f_star else 0.0),
                               ("metric", member.metric[k] if metric else 0.0,
                                view.metric[0] if metric else 0.0)):
            assert _close(got, ref, scale), (k, name, got, ref)
        reason = stop_reason(replace(here, k=k), lone.tol, lone.max_iter)  # (X_k's own k)
        if k < K:
            assert reason is None, (k, reason)  # the member went on where the lone run does
            after = next(records)
            assert after.status == "running", k
            for name, got, ref in (("X", member.X[k + 1], after.X),
                                   ("step", member.step[k + 1], after.step),
                                   ("normal_step", member.normal_step[k + 1],
                                    after.normal_step)):
                assert _close(got, ref, scale), (k + 1, name, got, ref)
        elif member.status == "diverged":  # the step from its last valid iterate diverges
            assert reason is None and next(records).status == "diverged"
        else:
            assert reason is not None and reason[0] == member.status
            assert _same_message(member.message, reason[1], scale), (member.message, reason[1])


def assert_member_is_the_lone_run(member, lone) -> None:
    """Whole runs, for the rules a family runs one by one (the same code: bit for bit)."""
    assert member.status == lone.status and member.message == lone.message
    for name in FIELDS:
        got, ref = (np.asarray(getattr(t, name), dtype=float) for t in (member, lone))
        np.testing.assert_array_equal(got, ref, err_msg=name)


def _family_and_problem(**fields):
    config, _ = validate(AppConfig(**fields))
    problem = build_problem(config, B=constraint_matrix(config, None))
    return config, problem, family.compute(config, problem)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    param=st.sampled_from(family.PARAMS),
    problem=st.sampled_from(["brockett", "procrustes", "pca", "linear", "quartic"]),
    constraint=st.sampled_from(["identity", "preset"]),
    size=st.sampled_from([(2, 1), (3, 1), (3, 2), (3, 3)]),  # the sizes whose X_k the player
    # draws (and a member keeps)
    seed=st.integers(0, 5),
    tangent=st.sampled_from(["beta", "euclidean", "relative"]),
    step=st.sampled_from(["safe", "constant"]),
    eta=st.sampled_from([0.02, 0.1, 0.3]),
    lo=st.floats(0.02, 2.0),
    ratio=st.floats(2.0, 200.0),
    count=st.integers(2, 5),
)
def test_each_member_is_the_lone_run_with_its_value(param, problem, constraint, size, seed,
                                                    tangent, step, eta, lo, ratio, count):
    n, p = size
    config, problem_, fam = _family_and_problem(
        problem=problem, constraint=constraint, n=n, p=p, seed=seed, tangent=tangent,
        step=step, eta=eta, scrub=param, scrub_lo=lo, scrub_hi=min(lo * ratio, 10.0),
        scrub_count=count, max_iter=120)
    assert len(fam.members) == count and np.all(np.diff(fam.values) > 0)
    for value, member in zip(fam.values, fam.members, strict=True):
        assert_member_follows_the_lone_iteration(member, config, problem_, param, value)


@pytest.mark.parametrize("step", ["bb", "armijo"])
def test_rules_the_batch_does_not_run_compute_their_members_one_by_one(step):
    config, problem, fam = _family_and_problem(scrub="omega", step=step, scrub_count=3,
                                               max_iter=60)
    for value, member in zip(fam.values, fam.members, strict=True):
        assert_member_is_the_lone_run(member, _lone(config, problem, "omega", value))


def test_the_default_family_spans_the_issue_ranges():
    config, _ = validate(AppConfig(scrub="beta"))
    v = family.values(config.scrub_lo, config.scrub_hi, config.scrub_count)
    assert len(v) == 33 and v[0] == 0.05 and v[-1] == 20.0 and 1.0 in v
    assert (validate(AppConfig(scrub="omega"))[0].scrub_lo,
            validate(AppConfig(scrub="omega"))[0].scrub_hi) == (0.1, 20.0)
    eta = validate(AppConfig(scrub="eta", eta=0.2))[0]
    assert (eta.scrub_lo, eta.scrub_hi) == pytest.approx((0.02, 2.0), rel=1e-15)
    # log-spaced to 3 significant digits
    ratios = v[1:] / v[:-1]
    np.testing.assert_allclose(ratios, (20 / 0.05) ** (1 / 32), rtol=1e-2)


def test_the_family_runs_through_the_sidebars_value():
    config, _ = validate(AppConfig(scrub="beta"))  # beta = 0.5: no member of values(0.05, 20)
    base = family.values(config.scrub_lo, config.scrub_hi, config.scrub_count)
    assert 0.5 not in base
    fam = family.first(config, build_problem(config))
    index = int(np.flatnonzero(fam.values == 0.5)[0])
    assert fam.members[index] is not None  # the sidebar's run is the one drawn first
    assert np.count_nonzero(fam.values != base) == 1 and base[index] == 0.473


@settings(max_examples=200, deadline=None)
@given(lo=st.floats(1e-3, 1.0), decades=st.floats(0.5, 4.0), count=st.integers(2, 60),
       where=st.floats(-0.2, 1.2), param=st.sampled_from(["beta", "omega", "eta"]))
def test_the_sidebars_value_replaces_its_nearest_member(lo, decades, count, where, param):
    hi = lo * 10**decades
    value = lo * (hi / lo) ** where
    config = replace(AppConfig(), scrub=param, scrub_lo=lo, scrub_hi=hi, scrub_count=count,
                     **{param: value})
    base = family.values(lo, hi, count)
    v = family.scrub_values(config)
    assert np.all(np.diff(v) > 0)
    changed = np.flatnonzero(v != base)
    if base[0] < value < base[-1]:
        assert value in v and family.selected(config, v) == int(np.flatnonzero(v == value)[0])
        assert list(changed) in ([], [family.selected(config, base)])
    else:  # outside the range: the nearest member stands for it (live._nearest_note says so)
        assert changed.size == 0


def test_beta_does_nothing_at_p_1_and_off_the_beta_metric():
    assert "p = 1" in family.idle_reason("beta", AppConfig(p=1))
    assert family.idle_reason("beta", AppConfig(tangent="relative"))
    assert family.idle_reason("beta", AppConfig()) is None
    assert family.idle_reason("omega", AppConfig(p=1)) is None
