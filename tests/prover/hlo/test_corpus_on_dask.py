"""``check-hlo --scheduler``: the work units of a corpus on a Dask
cluster give what one process gives, each module's file read by the
worker where it sees the file the command saw, and sent otherwise
(``prover/hlo/corpus.py``, ``prover/hlo/files.py``)."""

from __future__ import annotations

import json
import os
import threading

import pytest
from hlo_dumps import BAD, GOOD, HLO, dump, run, stable

from tilespec.prover.hlo.corpus import check_files, module_paths


@pytest.mark.integration
def test_a_dask_cluster_gives_the_single_process_results(capsys, tmp_path):
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
    d = dump(tmp_path)
    paths = module_paths([str(d)]) + [str(tmp_path / "missing.txt")]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=":0") as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        on_dask = check_files(paths, scheduler=address)
        _, one, _ = run(capsys, "check-hlo", d, "--format", "sarif")
        code, out, _ = run(capsys, "check-hlo", d, "--format", "sarif",
                           "--scheduler", address)
    assert [stable(r) for r in on_dask] == [stable(r) for r in check_files(paths)]

    def results(text):
        return [(r["ruleId"], r["message"]["text"], r["locations"])
                for r in json.loads(text)["runs"][0]["results"]]
    assert code == 1 and results(out) == results(one)


@pytest.mark.integration
def test_a_dask_worker_that_sees_other_bytes_is_sent_the_text(monkeypatch, tmp_path):
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
    from tilespec.prover.hlo import corpus, files
    paths = module_paths([str(dump(tmp_path))])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=":0") as cluster:
        address = cluster.scheduler_address
        sent: list = []
        digested: list = []
        monkeypatch.setattr(corpus, "bytes_again",
                            lambda p, d: sent.append(p) or files.bytes_again(p, d))
        real_digest = files.Digest.of
        monkeypatch.setattr(files.Digest, "of",
                            classmethod(lambda cls, data: digested.append(1) or
                                        real_digest(data)))
        same = check_files(paths, scheduler=address)
        # a LocalCluster's workers read the files themselves, and the client
        # reads none of them
        assert sent == [] and digested == []
        # files seen from another host: no worker finds them
        monkeypatch.setattr(files, "this_host", lambda: "another host")
        seen_elsewhere = check_files(paths, scheduler=address)
        assert sorted(sent) == sorted(paths)
        monkeypatch.undo()
        # workers on other hosts: the digests sent (only in this process)
        # match no worker's file
        sent.clear()
        monkeypatch.setattr(corpus, "bytes_again",
                            lambda p, d: sent.append(p) or files.bytes_again(p, d))
        monkeypatch.setattr(corpus, "workers_see_files_as_here", lambda client: False)
        monkeypatch.setattr(files.Digest, "of",
                            classmethod(lambda cls, data: cls("other", len(data))))
        other = check_files(paths, scheduler=address)
        assert sorted(sent) == sorted(paths)
        # a pipe is read once, here, and its text sent
        fifo = tmp_path / "fifo.hlo"
        os.mkfifo(fifo)
        writer = threading.Thread(target=fifo.write_text, args=((HLO / BAD).read_text(),))
        writer.start()
        piped = check_files([str(fifo)], scheduler=address, timeout=60)
        writer.join()
    assert [stable(r) for r in other] == [stable(r) for r in seen_elsewhere] \
        == [stable(r) for r in same] == [stable(r) for r in check_files(paths)]
    assert piped[0].status == "refuted"


def test_files_are_seen_only_by_workers_that_all_say_they_see_them_as_here():
    from tilespec.prover.hlo import corpus
    from tilespec.prover.hlo.files import this_host

    class Cluster:
        def __init__(self, *hosts):
            self.hosts = hosts

        def run(self, function):
            if not self.hosts:
                raise OSError("a worker left")  # as Dask raises it from client.run
            return {f"tcp://w{k}": host for k, host in enumerate(self.hosts)}
    assert corpus.workers_see_files_as_here(Cluster(this_host(), this_host())) is bool(this_host())
    assert not corpus.workers_see_files_as_here(Cluster(this_host(), "another host"))
    assert not corpus.workers_see_files_as_here(Cluster())


def test_an_unreachable_scheduler_is_bad_input(capsys, monkeypatch):
    pytest.importorskip("distributed", reason="the dask extra is not installed")
    import distributed
    monkeypatch.setattr(distributed, "Client", _refusing_client)
    code, _, err = run(capsys, "check-hlo", HLO / GOOD[0], "--scheduler", "tcp://127.0.0.1:9")
    assert code == 2 and "cannot connect" in err and err.count("\n") == 1


def _refusing_client(address, timeout=None):
    raise OSError(f"Timed out trying to connect to {address}")


# --- one decision per question in a run ----------------------------------------------------
