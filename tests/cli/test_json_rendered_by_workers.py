"""``check-hlo --json`` with more than one process: each worker renders its
module's JSON entries (``cli.hlo.rendered_json``) and the parent writes
them as bytes; the document is the one the parent would write itself, and
options that filter findings leave the rendering to the parent."""

from __future__ import annotations

import argparse
import gzip
import io
import json

import pytest
from locations import DATA

from tilespec.cli.hlo import json_where_checked, rendered_json
from tilespec.prover.hlo import check_files
from tilespec.render import entries, write


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> list:
    with gzip.open(DATA / "tpu" / "corpus.json.gz", "rt") as f:
        modules = [e for e in json.load(f)["modules"]
                   if (e["program"], e["chip"]) in {("transformer_block", "v5e"),
                                                    ("sharded_train", "v4")}]
    d = tmp_path_factory.mktemp("modules")
    paths = []
    for e in modules:
        p = d / f"module.{e['program']}.tpu_after_optimizations.txt"
        p.write_text(e["hlo"])
        paths.append(str(p))
    return check_files(paths + [str(d / "missing.txt")])


def document(results) -> str:
    out = io.StringIO()
    write(out, "check-hlo", 0, entries(results, "check-hlo"))
    return out.getvalue()


def args(**options) -> argparse.Namespace:
    given = dict(json=True, scheduler=None, jobs=2, select=None, ignore=None,
                 min_level=None, baseline=None, paths=["dump"], command="check-hlo",
                 sarif=None)
    return argparse.Namespace(**{**given, **options})


def test_the_workers_json_is_the_json_the_parent_writes(results):
    then = json_where_checked(args(), [r.path for r in results])
    assert then is not None
    rendered = [then(r) for r in results]
    assert [r.rendered is not None for r in rendered] == [True, True, False]
    assert document(rendered) == document(results)
    assert len(json.loads(document(rendered))["results"]) > 100


@pytest.mark.parametrize("options", [dict(select="padding"), dict(ignore="padding"),
                                     dict(min_level="warning"), dict(baseline="b.json"),
                                     dict(jobs=1), dict(json=False)])
def test_options_that_filter_or_one_process_leave_the_json_to_the_parent(options):
    assert json_where_checked(args(**options), ["a", "b"]) is None


def test_a_module_not_read_has_nothing_rendered():
    from tilespec.prover.hlo.corpus import ModuleResult
    r = ModuleResult("m.txt", error="cannot read m.txt")
    assert rendered_json(r, {"m.txt": "m.txt"}, "check-hlo") is r
