"""Every docstring example in the package runs, under its installed name.

The repository's top-level folders are installed as sub-packages of
``tilespec``; collecting the folders as files would import each module twice
under two names, so the doctests are gathered from the installed package,
walking every sub-package.
"""

import doctest
import importlib
import pkgutil

import pytest

import tilespec


def _modules():
    names = ["tilespec"]
    for m in pkgutil.walk_packages(tilespec.__path__, "tilespec."):
        if not m.name.endswith("__main__"):
            names.append(m.name)
    return names


@pytest.mark.parametrize("name", _modules())
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_the_doctests_are_collected():
    # A test that cannot fail is a defect: make sure examples were found at all.
    counts = [doctest.DocTestFinder().find(importlib.import_module(n)) for n in _modules()]
    assert sum(len(t.examples) for ts in counts for t in ts) > 50
