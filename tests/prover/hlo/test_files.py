"""A module's file as the work unit reads it, here or on a Dask worker
(``prover/hlo/files.py``): a worker reads only the regular file the client
digested, and the bytes sent in its place are the ones digested."""

import os
import threading

import pytest

from tilespec.spec import TilespecError


def test_the_bytes_sent_again_are_the_ones_digested(tmp_path):
    from tilespec.prover.hlo.files import Digest, bytes_again
    f = tmp_path / "m.hlo"
    f.write_bytes(b"HloModule m")
    digest = Digest.of(b"HloModule m")
    assert bytes_again(str(f), digest) == b"HloModule m"
    f.write_bytes(b"HloModule n")       # changed since it was digested: not checked
    with pytest.raises(TilespecError, match="changed while it was being checked"):
        bytes_again(str(f), digest)
    f.unlink()
    with pytest.raises(TilespecError, match="cannot read"):
        bytes_again(str(f), digest)


def test_a_worker_never_opens_a_pipe_or_a_file_of_another_size(tmp_path):
    from tilespec.prover.hlo.files import Digest, Elsewhere, from_client
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)                     # opening it here would wait for a writer
    f = tmp_path / "m.hlo"
    f.write_bytes(b"HloModule m")
    digest = Digest.of(b"HloModule m")
    answer: list = []
    asking = threading.Thread(target=lambda: answer.append(
        from_client(lambda p, t: t, str(fifo), digest)), daemon=True)
    asking.start()
    asking.join(timeout=20)
    assert answer == [Elsewhere(str(fifo))]
    assert from_client(lambda p, t: t, str(f), Digest(digest.value, 99)) == Elsewhere(str(f))
    assert from_client(lambda p, t: t, str(f), digest) == b"HloModule m"
