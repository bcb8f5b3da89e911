"""A module's file, read as a work unit reads it, here or on a worker.

:func:`read_text` reads a module's text (standard input, a file) the way
every command does; :func:`read_bytes` and :func:`decoded` are its two
steps, for a file read in one place and decoded in another.

On a Dask cluster (``check-hlo --scheduler``) a worker needs each module's
text.  Sending every text costs the client a copy, the network another and
the worker a third; a worker of a ``LocalCluster``, or of a cluster on a
shared file system, can read the file itself.  So the client sends, in
place of a regular file's text (:func:`to_send`), what it knows of the
file, and the worker reads the file at the same path (:func:`from_client`):

- to workers that see files as the client does (:func:`this_host`: the
  same machine and mounts, a ``LocalCluster``), the file's :class:`Seen`,
  its ``stat`` without reading it: a worker reads a file with the same
  identity, as a ``--jobs`` worker reads its files;
- to other workers, the :class:`Digest` of the bytes the client read: a
  worker checks the file's bytes when they have that digest.

A worker that does not find that file (another machine, another file, a
file changed since) answers :class:`Elsewhere` and the client sends the
bytes, read again and checked against what it sent first
(:func:`bytes_again`).  Either way the worker checks the file the client
saw.  Standard input and pipes are read once, and their text sent.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from dataclasses import dataclass
from typing import Any, Callable

from ...spec import TilespecError

__all__ = ["BOM", "STDIN", "Digest", "Elsewhere", "Seen", "bytes_again", "decoded",
           "from_client", "is_regular_file", "read_bytes", "read_text", "refuse_endless",
           "this_host", "to_send"]

#: The path that stands for standard input.
STDIN = "-"

#: The byte order mark a UTF-8 file may start with.
BOM = "\ufeff"


def refuse_endless(path: str) -> None:
    """A character device (``/dev/zero``, ``/dev/full``, a terminal) has no
    end to read to: bad input, said in one line, instead of reading until
    memory runs out.  Files, pipes and standard input are read.

    >>> refuse_endless("/dev/zero")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.TilespecError: /dev/zero is a device, not a file: it has no end to read to
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return                          # opening it says why, in one line
    if stat.S_ISCHR(mode):
        raise TilespecError(f"{path} is a device, not a file: it has no end to read to")


def read_text(path: str) -> str:
    """The text of ``path`` (``-``: standard input), without a UTF-8 byte
    order mark (editors on Windows write one; XLA's lexer rejects it as a
    character); bad input as one line."""
    if path != STDIN:
        return decoded(read_bytes(path), path)
    try:
        return sys.stdin.read().removeprefix(BOM)
    except OSError as e:
        raise TilespecError(f"cannot read standard input: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise TilespecError("standard input is not UTF-8 text") from None
    except ValueError as e:     # standard input closed
        raise TilespecError(f"cannot read standard input: {e}") from None


def read_bytes(path: str) -> bytes:
    """The bytes of the file ``path``; bad input as one line."""
    refuse_endless(path)
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise TilespecError(f"cannot read {path}: {e.strerror or e}") from None
    except ValueError:  # e.g. a NUL byte in the name
        raise TilespecError(f"{path!r} is not a file name") from None


def decoded(data: bytes, path: str) -> str:
    """The text of the bytes ``data`` read from ``path``, as a file opened
    for text reads it: UTF-8 without its byte order mark (a mark is the
    file's encoding, not its text), and every line ending ``\\n``.

    >>> decoded(b"\\xef\\xbb\\xbfa\\r\\nb\\rc\\n", "m.txt")
    'a\\nb\\nc\\n'
    >>> decoded(b"\\xff", "m.txt")
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.TilespecError: m.txt is not UTF-8 text
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TilespecError(f"{path} is not UTF-8 text") from None
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


@dataclass(frozen=True)
class Digest:
    """A regular file as the client read it: the size and BLAKE2b digest
    (16 bytes, in hex) of its bytes, sent in place of its text.

    >>> Digest.of(b"abc") == Digest.of(b"abc"), Digest.of(b"abc") == Digest.of(b"abd")
    (True, False)
    """

    value: str
    size: int

    @classmethod
    def of(cls, data: bytes) -> "Digest":
        return cls(hashlib.blake2b(data, digest_size=16).hexdigest(), len(data))


def this_host() -> str:
    """Where this process sees files: the kernel it runs on (Linux's
    ``boot_id``) and its mount namespace; two processes with the same
    answer see the same file at a path (a container has a namespace of its
    own).  Empty where unknown (not Linux): then no other process is taken
    to see files as this one does.

    >>> this_host() == this_host()
    True
    """
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            boot = f.read().strip()
        return f"{boot} {os.readlink('/proc/self/ns/mnt')}"
    except OSError:
        return ""


@dataclass(frozen=True)
class Seen:
    """A regular file as the client found it without reading it: where
    (its absolute path, so that a worker started in another directory
    finds it), on which host (:func:`this_host`), and its device, inode,
    size and modification and change times (``os.stat``, in ns), sent in
    place of its text to workers on that host.  A file written to has
    another change time, as far as the file system's clock tells times
    apart: a file rewritten in place with the same size within one tick
    of being seen is taken as the same (a few milliseconds on Linux before
    6.13, and on file systems without fine-grained times since).

    >>> here = Seen.of(__file__)
    >>> here.is_there(), here.size == os.path.getsize(__file__)
    (True, True)
    """

    where: str
    host: str
    device: int
    inode: int
    size: int
    modified: int
    changed: int

    @classmethod
    def of(cls, path: str) -> "Seen":
        """The file at ``path`` now, seen from this process (an
        ``OSError`` where it cannot be looked at)."""
        # joined, not normalised: "link/../m.hlo" is not "m.hlo" when
        # "link" is a symbolic link
        where = os.path.join(os.getcwd(), path)
        info = os.stat(where)
        return cls(where, this_host(), info.st_dev, info.st_ino, info.st_size,
                   info.st_mtime_ns, info.st_ctime_ns)

    def is_there(self) -> bool:
        """Whether this process sees the file, unchanged."""
        try:
            return bool(self.host) and Seen.of(self.where) == self
        except (OSError, ValueError):
            return False


@dataclass(frozen=True)
class Elsewhere:
    """A worker's answer when the file at ``path`` is not the client's
    (absent, not a regular file, unreadable or other bytes there): the
    client sends its bytes."""

    path: str


def is_regular_file(path: str) -> bool:
    """Whether ``path`` names a regular file (not a pipe, a device, a
    directory, ``/dev/fd/N``'s pipe); a path that cannot be looked at is
    not one.

    >>> is_regular_file(__file__), is_regular_file("/dev/null"), is_regular_file("/no/file")
    (True, False, False)
    """
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def to_send(path: str, here: bool = False) -> "str | Seen | Digest":
    """What the client sends a worker for ``path``: for a regular file, its
    :class:`Seen` when the workers see files as this process does
    (``here``), else the :class:`Digest` of its bytes (a worker may see the
    same file); otherwise its text (standard input, a pipe: the client
    reads it once, and a worker's path of that name is another pipe, or
    none); bad input as one line.

    >>> to_send(__file__) == Digest.of(open(__file__, "rb").read())
    True
    >>> to_send(__file__, here=True) == Seen.of(__file__)
    True
    """
    if path != STDIN and is_regular_file(path):
        if here and this_host():
            try:
                return Seen.of(path)
            except (OSError, ValueError):
                pass                    # gone since: reading it says so, in one line
        return Digest.of(read_bytes(path))
    return read_text(path)


def bytes_again(path: str, sent: "Digest | Seen") -> bytes:
    """The bytes of ``path`` read again by the client, for a worker that
    does not see the file: they must be the ones the client ``sent`` the
    :class:`Digest` of, or of the file it :class:`Seen`, or the module
    would be checked as another file than the one read.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as f:
    ...     _ = f.write(b"HloModule m"); f.flush()
    ...     bytes_again(f.name, Digest.of(b"HloModule m"))
    ...     bytes_again(f.name, Digest.of(b"HloModule n"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tilespec.spec.errors.TilespecError: ... changed while it was being checked
    """
    # a path that is now a pipe or a device is not opened: it might never end
    if os.path.exists(path) and not (is_regular_file(path) if isinstance(sent, Digest)
                                     else sent.is_there()):
        raise TilespecError(f"{path} changed while it was being checked")
    data = read_bytes(path)
    if not (Digest.of(data) == sent if isinstance(sent, Digest) else sent.is_there()):
        raise TilespecError(f"{path} changed while it was being checked")
    return data


def from_client(unit: Callable[[str, Any], Any], path: str,
                source: "str | bytes | Digest | Seen") -> Any:
    """``unit(path, text)`` on a worker, ``source`` being the module's text
    or bytes, or what the client knows of the regular file at ``path``:
    then the bytes of the file here, when it is the file the client
    :class:`Seen` (unchanged while it was read) or a regular file of that
    size whose bytes have that :class:`Digest`, else :class:`Elsewhere`.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile(suffix=".txt") as f:
    ...     _ = f.write(b"HloModule m"); f.flush()
    ...     here = from_client(lambda p, t: t, f.name, Digest.of(b"HloModule m"))
    ...     other = from_client(lambda p, t: t, f.name, Digest.of(b"HloModule n"))
    >>> here, other == Elsewhere(f.name), from_client(lambda p, t: t, "-", "text")
    (b'HloModule m', True, 'text')
    """
    if isinstance(source, Seen):
        if not source.is_there():
            return Elsewhere(path)
        try:
            data = read_bytes(source.where)
        except TilespecError:
            return Elsewhere(path)
        return unit(path, data) if source.is_there() else Elsewhere(path)
    if not isinstance(source, Digest):
        return unit(path, source)
    # a pipe or a device is never read here (it might never end), nor a
    # file of another size
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return Elsewhere(path)
    if not stat.S_ISREG(info.st_mode) or info.st_size != source.size:
        return Elsewhere(path)
    try:
        data = read_bytes(path)
    except TilespecError:
        return Elsewhere(path)
    if Digest.of(data) != source:
        return Elsewhere(path)
    return unit(path, data)
