"""Shared fixtures of the unit tests."""

import sys

import pytest


@pytest.fixture(autouse=True)
def close_figures():
    """Close every matplotlib figure a test left open (the explorers' tests draw many)."""
    yield
    if "matplotlib.pyplot" in sys.modules:  # never import pyplot for a test that did not
        sys.modules["matplotlib.pyplot"].close("all")
