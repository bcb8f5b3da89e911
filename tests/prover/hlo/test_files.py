"""A module's file as the work unit reads it, here or on a Dask worker
(``prover/hlo/files.py``): a worker reads only the regular file the client
digested or saw, and the bytes sent in its place are the ones it did."""

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


def test_a_worker_reads_the_file_the_client_saw_and_no_other(tmp_path):
    from dataclasses import replace

    from tilespec.prover.hlo.files import Elsewhere, Seen, bytes_again, from_client
    f = tmp_path / "m.hlo"
    f.write_bytes(b"HloModule m")
    seen = Seen.of(str(f))
    assert from_client(lambda p, t: t, str(f), seen) == b"HloModule m"
    assert bytes_again(str(f), seen) == b"HloModule m"
    # seen from another host (machine, container), the same path is another file
    assert from_client(lambda p, t: t, str(f), replace(seen, host="another host")) \
        == Elsewhere(str(f))
    other = tmp_path / "n.hlo"
    other.write_bytes(b"HloModule m")   # the same bytes, another file
    assert from_client(lambda p, t: t, str(other), replace(seen, where=str(other))) \
        == Elsewhere(str(other))
    # changed since it was seen: not read by a worker, nor sent
    t = f.stat().st_mtime_ns
    os.utime(f, ns=(t, t + 10**9))
    assert from_client(lambda p, t: t, str(f), seen) == Elsewhere(str(f))
    with pytest.raises(TilespecError, match="changed while it was being checked"):
        bytes_again(str(f), seen)


def test_a_worker_in_another_directory_finds_the_file_by_a_relative_path(monkeypatch,
                                                                         tmp_path):
    from tilespec.prover.hlo.files import Seen, from_client
    (tmp_path / "m.hlo").write_bytes(b"HloModule m")
    monkeypatch.chdir(tmp_path)
    seen = Seen.of("m.hlo")             # the client, in the file's directory
    monkeypatch.chdir("/")              # a worker started elsewhere
    assert from_client(lambda p, t: (p, t), "m.hlo", seen) == ("m.hlo", b"HloModule m")


def test_a_file_changed_while_a_worker_reads_it_is_not_checked(monkeypatch, tmp_path):
    from tilespec.prover.hlo import files
    f = tmp_path / "m.hlo"
    f.write_bytes(b"HloModule m")
    seen = files.Seen.of(str(f))
    real_read = files.read_bytes

    def read_then_written(path):
        data = real_read(path)
        f.write_bytes(b"HloModule mm")
        return data
    monkeypatch.setattr(files, "read_bytes", read_then_written)
    assert files.from_client(lambda p, t: t, str(f), seen) == files.Elsewhere(str(f))


def test_a_path_through_a_symbolic_link_names_the_file_it_names(tmp_path):
    from tilespec.prover.hlo.files import Seen, bytes_again, from_client
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "m.hlo").write_bytes(b"HloModule m")
    (tmp_path / "link").symlink_to(tmp_path / "a" / "b")
    path = str(tmp_path / "link" / ".." / "m.hlo")    # a/m.hlo, not m.hlo beside link
    seen = Seen.of(path)
    assert from_client(lambda p, t: t, path, seen) == b"HloModule m"
    assert bytes_again(path, seen) == b"HloModule m"


def test_a_file_become_a_pipe_is_not_opened_to_be_sent(tmp_path):
    from tilespec.prover.hlo.files import Digest, Seen, bytes_again
    f = tmp_path / "m.hlo"
    f.write_bytes(b"HloModule m")
    sent = [Seen.of(str(f)), Digest.of(b"HloModule m")]
    f.unlink()
    os.mkfifo(f)                        # opening it would wait for a writer
    answers: list = []

    def again():
        for s in sent:
            try:
                bytes_again(str(f), s)
            except TilespecError as e:
                answers.append(str(e))
    asking = threading.Thread(target=again, daemon=True)
    asking.start()
    asking.join(timeout=20)
    assert answers == [f"{f} changed while it was being checked"] * 2
