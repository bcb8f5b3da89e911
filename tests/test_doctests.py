"""Every docstring example in the package runs, under its installed name.

The repository's folders spec/, prover/ and cli/ are installed as
tilespec.spec, tilespec.prover and tilespec.cli; collecting the folders as
files would import each module twice under two names, so the doctests are
gathered from the installed packages instead.
"""

import doctest
import importlib
import pkgutil

import pytest

import tilespec

PACKAGES = ("tilespec", "tilespec.spec", "tilespec.prover", "tilespec.cli", "tilespec.xla")


def _modules():
    names = []
    for package in PACKAGES:
        names.append(package)
        path = importlib.import_module(package).__path__
        names += [f"{package}.{m.name}" for m in pkgutil.iter_modules(path)
                  if f"{package}.{m.name}" not in PACKAGES and m.name != "__main__"]
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
