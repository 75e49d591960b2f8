"""Tests for onlinelib.validation: the shared argument checks of every module.

``Interval`` and ``check_scalar`` (the one scalar checker, after scikit-learn's pattern) with its
two common shapes ``check_int`` and ``check_real``; then the array checks ``check_labels``,
``check_label``, ``check_stream``, ``check_boolean_rows`` and the generator check ``check_rng``.
Every error test matches the whole message: the argument's name, the domain and the value given.
"""

import math
import re
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

from onlinelib.validation import (
    Interval,
    check_boolean_rows,
    check_int,
    check_label,
    check_labels,
    check_real,
    check_rng,
    check_scalar,
    check_stream,
)

# -- Interval ---------------------------------------------------------------------------------

# closed -> (is 0 in [0, 1] with that closure?, is 1?), the interior always is, the outside never
CLOSURES = {"both": (True, True), "left": (True, False), "right": (False, True), "neither": (False, False)}


@pytest.mark.parametrize("closed", CLOSURES)
@pytest.mark.parametrize("kind", [int, float])
def test_interval_contains_each_closure(closed, kind):
    domain = Interval(kind, 0, 1, closed)
    left_in, right_in = CLOSURES[closed]
    assert (0 in domain) is left_in and (0.0 in domain) is left_in
    assert (1 in domain) is right_in and (np.int64(1) in domain) is right_in
    assert 0.5 in domain and 1e-12 in domain and 1 - 1e-12 in domain
    assert -1e-12 not in domain and -1 not in domain
    assert 1 + 1e-12 not in domain and 2 not in domain
    assert math.nan not in domain


def test_interval_unbounded_sides():
    assert -1e300 in Interval(float) and 1e300 in Interval(float) and 0 in Interval(int)
    assert math.nan not in Interval(float)  # NaN lies in no interval, not even the whole line
    at_least_one = Interval(int, 1)
    assert 1 in at_least_one and 10**30 in at_least_one and 0 not in at_least_one
    positive = Interval(float, 0, None, "neither")
    assert 1e-300 in positive and 0 not in positive and -1 not in positive
    # with one side unbounded, the closure of the missing side does not matter
    assert 1 in Interval(float, None, 1, "right") and 1 in Interval(float, None, 1, "both")
    assert 1 not in Interval(float, None, 1, "left") and 1 not in Interval(float, None, 1, "neither")
    assert -1e300 in Interval(float, None, 1, "neither")


@pytest.mark.parametrize(
    "domain, text",
    [
        (Interval(int, 1, 5), "in [1, 5]"),
        (Interval(float, 0, 1, "left"), "in [0, 1)"),
        (Interval(float, 0, 1, "right"), "in (0, 1]"),
        (Interval(float, 0, 1, "neither"), "in (0, 1)"),
        (Interval(float, 0.5, 2.5, "both"), "in [0.5, 2.5]"),
        (Interval(int, 1), ">= 1"),
        (Interval(int, 1, None, "neither"), "> 1"),
        (Interval(float, 0.0, None, "neither"), "> 0.0"),
        (Interval(float, None, 1), "<= 1"),
        (Interval(float, None, 1, "left"), "< 1"),
        (Interval(float), ""),
        (Interval(int, closed="neither"), ""),
    ],
)
def test_interval_str(domain, text):
    assert str(domain) == text


def test_interval_is_frozen_and_compares_by_value():
    assert Interval(int, 1, 5) == Interval(int, 1, 5, "both")
    assert Interval(int, 1, 5) != Interval(int, 1, 5, "left")
    with pytest.raises(AttributeError):
        Interval(int, 1, 5).left = 0


@pytest.mark.parametrize(
    "args, exc, match",
    [
        ((complex, 0, 1), TypeError, r"Interval kind must be int or float, got <class 'complex'>"),
        (("int", 0, 1), TypeError, r"Interval kind must be int or float, got 'int'"),
        ((bool, 0, 1), TypeError, r"Interval kind must be int or float, got <class 'bool'>"),
        (
            (int, 0, 1, "open"),
            ValueError,
            r"Interval closed must be one of \('both', 'left', 'right', 'neither'\), got 'open'",
        ),
        ((float, 0, 1, None), ValueError, r"Interval closed must be one of .*, got None"),
        ((int, 2, 1), ValueError, r"Interval needs left <= right, got 2 > 1"),
        ((float, 1.0, -1.0, "neither"), ValueError, r"Interval needs left <= right, got 1.0 > -1.0"),
    ],
)
def test_interval_rejects_bad_arguments(args, exc, match):
    with pytest.raises(exc, match=match):
        Interval(*args)


def test_interval_allows_a_single_point():
    assert 3 in Interval(int, 3, 3) and 2 not in Interval(int, 3, 3)


# -- check_scalar -------------------------------------------------------------------------------

UNIT = Interval(float, 0, 1, "right")  # (0, 1], the domain of a learning rate


def re_repr(value):
    """The repr of ``value`` as it ends an error message, escaped for a regular expression."""
    return re.escape(repr(value))


@pytest.mark.parametrize("bad", [True, False, np.bool_(True), "0.5", None, 0.5j, complex(1, 0), [0.5], np.array([0.5])])
def test_check_scalar_real_type_errors(bad):
    with pytest.raises(TypeError, match=rf"eta must be a real number in \(0, 1\], got {re_repr(bad)}$"):
        check_scalar(bad, "eta", UNIT)


@pytest.mark.parametrize("bad", [True, np.bool_(False), "3", None, 3j, 3.0, np.float64(3.0), 2.5])
def test_check_scalar_int_type_errors(bad):
    with pytest.raises(TypeError, match=rf"n must be an integer in \[1, 5\], got {re_repr(bad)}$"):
        check_scalar(bad, "n", Interval(int, 1, 5))


@pytest.mark.parametrize(
    "bad, shown", [(math.nan, "nan"), (np.float32("nan"), "nan"), (math.inf, "inf"), (-math.inf, "-inf")]
)
def test_check_scalar_rejects_nan_and_infinity(bad, shown):
    with pytest.raises(ValueError, match=rf"eta must be a finite real number in \(0, 1\], got {shown}$"):
        check_scalar(bad, "eta", UNIT)
    # even with no bound at all
    with pytest.raises(ValueError, match=rf"^x must be a finite real number, got {shown}$"):
        check_scalar(bad, "x", Interval(float))


@pytest.mark.parametrize(
    "value, shown", [(-0.5, "-0.5"), (0, "0.0"), (0.0, "0.0"), (-0.0, "-0.0"), (1.0000001, "1.0000001"), (2, "2.0")]
)
def test_check_scalar_real_out_of_range_at_each_end(value, shown):
    with pytest.raises(ValueError, match=rf"^eta must be a finite real number in \(0, 1\], got {re.escape(shown)}$"):
        check_scalar(value, "eta", UNIT)


@pytest.mark.parametrize("value", [0, 6, -1, 10**20])
def test_check_scalar_int_out_of_range_at_each_end(value):
    with pytest.raises(ValueError, match=rf"^n must be an integer in \[1, 5\], got {value}$"):
        check_scalar(value, "n", Interval(int, 1, 5))


@pytest.mark.parametrize("closed", CLOSURES)
def test_check_scalar_boundaries_follow_the_closure(closed):
    # a real end is reported as the float it became, an integer end as given
    for kind, name, words, shown in ((float, "p", "a finite real number", "{}.0"), (int, "k", "an integer", "{}")):
        domain = Interval(kind, 0, 1, closed)
        for end, inside in zip((0, 1), CLOSURES[closed], strict=True):
            if inside:
                assert check_scalar(end, name, domain) == end
            else:
                message = rf"^{name} must be {words} {re.escape(str(domain))}, got {re.escape(shown.format(end))}$"
                with pytest.raises(ValueError, match=message):
                    check_scalar(end, name, domain)


def test_check_scalar_why_is_shown_in_brackets_in_both_errors():
    why = "0 never learns; above 1 weights turn negative"
    with pytest.raises(ValueError, match=rf"^eta must be a finite real number in \(0, 1\] \({why}\), got 1\.5$"):
        check_scalar(1.5, "eta", UNIT, why=why)
    with pytest.raises(TypeError, match=rf"^eta must be a real number in \(0, 1\] \({why}\), got '1'$"):
        check_scalar("1", "eta", UNIT, why=why)
    with pytest.raises(ValueError, match=r"^m must be an integer in \[1, 14\] \(brute force\), got 15$"):
        check_scalar(15, "m", Interval(int, 1, 14), why="brute force")
    with pytest.raises(ValueError, match=r"^m must be an integer >= 1 \(brute force\), got 0$"):
        check_scalar(0, "m", Interval(int, 1), why="brute force")
    with pytest.raises(ValueError) as info:  # no why: no brackets
        check_scalar(15, "m", Interval(int, 1, 14))
    assert "(" not in str(info.value)


def test_check_scalar_int_and_float_kinds():
    value = check_scalar(3, "n", Interval(int, 1))
    assert value == 3 and type(value) is int
    value = check_scalar(3, "x", Interval(float, 0))  # a real domain accepts integers, as floats
    assert value == 3.0 and type(value) is float
    assert check_scalar(10**20, "n", Interval(int)) == 10**20  # Python ints are not truncated
    with pytest.raises(TypeError, match="n must be an integer >= 1, got 3.0"):
        check_scalar(3.0, "n", Interval(int, 1))  # an integral float is still not an integer


@pytest.mark.parametrize("value", [np.int8(3), np.int32(3), np.int64(3), np.uint8(3), np.uint64(3)])
def test_check_scalar_accepts_numpy_integers(value):
    out = check_scalar(value, "n", Interval(int, 1, 5))
    assert out == 3 and type(out) is int
    out = check_scalar(value, "x", Interval(float, 0, 5))
    assert out == 3.0 and type(out) is float


@pytest.mark.parametrize("value", [np.float16(0.25), np.float32(0.25), np.float64(0.25), np.longdouble(0.25)])
def test_check_scalar_accepts_numpy_floats(value):
    out = check_scalar(value, "eta", UNIT)
    assert out == 0.25 and type(out) is float


def test_check_scalar_accepts_other_real_numbers():
    assert check_scalar(Fraction(1, 4), "eta", UNIT) == 0.25
    assert check_scalar(Fraction(3, 1), "n", Interval(float, 1)) == 3.0
    with pytest.raises(TypeError, match="n must be an integer"):
        check_scalar(Fraction(3, 1), "n", Interval(int, 1))  # a Fraction is not an Integral


# -- check_int, check_real (the two common shapes of check_scalar) ---------------------------


def test_check_int_accepts_integers_in_range():
    assert check_int(3, "t") == 3
    value = check_int(np.int64(5), "t", low=0, high=5)
    assert value == 5 and type(value) is int
    assert check_int(-7, "t") == -7  # no bounds
    assert check_int(0, "t", high=0) == 0


@pytest.mark.parametrize("bad", [2.0, 2.5, "2", None, True, np.bool_(False), np.float64(1.0)])
def test_check_int_rejects_non_integers(bad):
    with pytest.raises(TypeError, match=r"t must be an integer in \[1, 4\], got "):
        check_int(bad, "t", low=1, high=4)


@pytest.mark.parametrize(
    "value, low, high, match",
    [
        (0, 1, 4, r"t must be an integer in \[1, 4\], got 0"),
        (5, 1, 4, "got 5"),
        (-1, 0, None, "t must be an integer >= 0, got -1"),
        (4, None, 3, "t must be an integer <= 3, got 4"),
    ],
)
def test_check_int_range(value, low, high, match):
    with pytest.raises(ValueError, match=match):
        check_int(value, "t", low=low, high=high)


def test_check_real():
    value = check_real(np.int64(3), "eta", 0.0)
    assert value == 3.0 and type(value) is float
    assert check_real(-2.5, "eta") == -2.5  # no bound
    assert check_real(0, "eta", 0.0, strict=False) == 0.0
    with pytest.raises(ValueError, match=r"eta must be a finite real number > 0.0, got 0.0"):
        check_real(0, "eta", 0.0)
    with pytest.raises(ValueError, match=r"eta must be a finite real number >= 1.0, got 0.5"):
        check_real(0.5, "eta", 1.0, strict=False)
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(ValueError, match="eta must be a finite real number"):
            check_real(bad, "eta")
    for bad in (True, "1", None, [1.0], 1j):
        with pytest.raises(TypeError, match="eta must be a real number > 0, got"):
            check_real(bad, "eta", 0)


def test_check_int_and_check_real_are_check_scalar():
    assert check_int(4, "n", 1, 5) == check_scalar(4, "n", Interval(int, 1, 5))
    for call in (lambda: check_int(6, "n", 1, 5), lambda: check_scalar(6, "n", Interval(int, 1, 5))):
        with pytest.raises(ValueError, match=r"^n must be an integer in \[1, 5\], got 6$"):
            call()
    for call in (lambda: check_real(0, "x", 0), lambda: check_scalar(0, "x", Interval(float, 0, None, "neither"))):
        with pytest.raises(ValueError, match=r"^x must be a finite real number > 0, got 0\.0$"):
            call()


@pytest.mark.parametrize("huge", [10**400, -(10**400), Fraction(10**400), Fraction(-(10**401), 3)])
def test_check_scalar_real_too_large_for_a_float_is_a_value_error(huge):
    """``float(value)`` overflows for these: the usual ValueError naming the argument, not OverflowError."""
    with pytest.raises(ValueError, match=rf"^eta must be a finite real number in \(0, 1\], got {re_repr(huge)}$"):
        check_scalar(huge, "eta", UNIT)
    with pytest.raises(ValueError, match=rf"^x must be a finite real number > 0, got {re_repr(huge)}$"):
        check_real(huge, "x", 0)
    with pytest.raises(ValueError, match=rf"^x must be a finite real number, got {re_repr(huge)}$"):
        check_real(huge, "x")
    assert check_int(10**400, "n", 1) == 10**400  # integers have no such limit


@pytest.mark.parametrize("low, high", [(None, None), (1, None), (None, 5), (1, 5), (3, 3)])
def test_check_int_fast_path_agrees_with_check_scalar(low, high):
    """check_int skips building an Interval for plain ints in range; the result and errors are unchanged."""
    for value in (-1, 0, 1, 2, 3, 5, 6, 10**20):
        domain = Interval(int, low, high)
        if value in domain:
            assert check_int(value, "n", low, high) == check_scalar(value, "n", domain) == value
        else:
            with pytest.raises(ValueError, match=rf"^n must be an integer {re.escape(str(domain))}, got {value}$"):
                check_int(value, "n", low, high)


@pytest.mark.parametrize("low", [None, 0, 0.0, 1.0, -2])
@pytest.mark.parametrize("strict", [True, False])
def test_check_real_fast_path_agrees_with_check_scalar(low, strict):
    domain = Interval(float, low, None, "neither" if strict else "left")
    for value in (-3.0, -2.0, -0.0, 0.0, 0.5, 1.0, 1e300, math.nan, math.inf, -math.inf):
        if math.isfinite(value) and value in domain:
            out = check_real(value, "x", low, strict=strict)
            assert out == value and type(out) is float
        else:
            with pytest.raises(ValueError, match=r"^x must be a finite real number"):
                check_real(value, "x", low, strict=strict)


# -- labels ---------------------------------------------------------------------------------


def test_check_labels_returns_int8():
    out = check_labels([1, -1, 1.0])
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [1, -1, 1])


def test_check_labels_uses_given_name():
    with pytest.raises(ValueError, match=r"labels must hold labels in \{-1, \+1\}"):
        check_labels([1, 5], name="labels")


def test_check_labels_zero_one_hint_only_for_zero():
    with pytest.raises(ValueError, match="2\\*y - 1"):
        check_labels([1, 0])
    with pytest.raises(ValueError) as info:
        check_labels([1, 3])
    assert "2*y - 1" not in str(info.value)


def test_check_label_one_label():
    for y in (1, -1, np.int8(-1), np.int64(1), 1.0, np.float32(-1.0)):
        out = check_label(y)
        assert out == y and type(out) is int
    with pytest.raises(ValueError, match=r"y must hold labels in \{-1, \+1\}, got 0 \(labels in \{0, 1\}\?"):
        check_label(0)
    with pytest.raises(ValueError, match=r"label must hold labels in \{-1, \+1\}, got 2"):
        check_label(2, name="label")
    with pytest.raises(TypeError, match=r"y must hold the labels -1 and \+1 as numbers, got dtype bool"):
        check_label(True)
    with pytest.raises(ValueError, match="got NaN"):
        check_label(math.nan)


# -- the random generator -----------------------------------------------------------------------


def test_check_rng():
    g = np.random.default_rng(0)
    assert check_rng(g) is g
    for bad in (0, None, np.random.RandomState(0)):
        with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
            check_rng(bad)
    with pytest.raises(TypeError, match="seed_source must be"):
        check_rng(1, name="seed_source")


# -- streams ------------------------------------------------------------------------------------


def test_check_stream_returns_arrays():
    X, y = check_stream([3, 4], [1, -1])
    np.testing.assert_array_equal(X, [3, 4])
    np.testing.assert_array_equal(y, [1, -1])
    assert y.dtype == np.int8


def test_check_stream_keeps_a_sparse_matrix():
    X = sp.csr_matrix(np.eye(3))
    out, y = check_stream(X, [1, -1, 1])
    assert out is X
    with pytest.raises(ValueError, match="X and y must have one entry per round, got 3 instances and 2 labels"):
        check_stream(X, [1, 1])


@pytest.mark.parametrize(
    "X, y, match",
    [
        (5, [1], "X must be a sequence"),
        ([0], [[1]], "y must be one-dimensional"),
        ([], [], "the stream is empty"),
        ([0, 1, 2], [1], "X and y must have one entry per round"),
    ],
)
def test_check_stream_errors(X, y, match):
    with pytest.raises(ValueError, match=match):
        check_stream(X, y)


# -- Boolean instances ------------------------------------------------------------------------


def test_check_boolean_rows_converts():
    out = check_boolean_rows([1, 0, 1], "x")
    assert out.dtype == np.uint8 and out.shape == (1, 3) and out.tolist() == [[1, 0, 1]]
    out = check_boolean_rows(np.array([[True, False], [False, False]]), "X", n_features=2)
    assert out.dtype == np.uint8 and out.tolist() == [[1, 0], [0, 0]]
    out = check_boolean_rows(np.array([[1.0, 0.0]]), "X")
    assert out.dtype == np.uint8 and out.tolist() == [[1, 0]]
    assert check_boolean_rows(np.zeros((0, 4)), "X").shape == (0, 4)


@pytest.mark.parametrize(
    "X, n_features, exc, match",
    [
        ([[0, 2]], None, ValueError, r"X must be Boolean \(entries 0 or 1\), got .*2"),
        ([[0, 0.5]], None, ValueError, r"X must be Boolean \(entries 0 or 1\), got .*0\.5"),
        ([[0, np.nan]], None, ValueError, r"X must be Boolean \(entries 0 or 1\), got NaN"),
        ([[0, np.inf]], None, ValueError, r"got .*inf"),
        ([[1, -1]], None, ValueError, r"got .*-1"),
        (
            np.zeros((2, 2, 2)),
            None,
            ValueError,
            r"one instance \(1-D\) or a matrix of instances \(2-D\), got shape \(2, 2, 2\)",
        ),
        (np.float64(1.0), None, ValueError, r"got shape \(\)"),
        ([["0", "1"]], None, TypeError, "X must be a numeric 0/1 array, got dtype"),
        (np.array([[0, None]], dtype=object), None, TypeError, "got dtype object"),
        (np.ones((2, 3)), 4, ValueError, r"X must have 4 features per instance, got shape \(2, 3\)"),
        ([1, 0, 1], 4, ValueError, r"X must have 4 features per instance, got shape \(1, 3\)"),
    ],
)
def test_check_boolean_rows_errors(X, n_features, exc, match):
    with pytest.raises(exc, match=match):
        check_boolean_rows(X, "X", n_features=n_features)
