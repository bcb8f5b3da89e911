"""The word interleave in C (``kernel.c``), compiled on first use.

:func:`image.packing.store` and :func:`image.packing.load` put codes into
the fields of machine words and take them out: in numpy that costs a few
passes per word (a cast, a shift, an or per field), in C one.  The C file
ships in the package; the first call compiles it with the system's C
compiler (``$CC``, else the first installed of the compiler Python was built
with, ``cc``, ``gcc`` and ``clang``)
into the cache directory (``$TILESPEC_CACHE_DIR``, else
``$XDG_CACHE_HOME/tilespec``, else ``~/.cache/tilespec``), named after a
hash of the source and the platform, written atomically (``os.replace``),
and loads it with ctypes.  So the same file serves a wheel and an editable
install, and a machine without a compiler runs the numpy code: the bytes are
the same either way (``tests/image/test_kernel.py``).
``TILESPEC_KERNEL=off`` turns the kernel off.

>>> kernel_status() in ("C kernel", "numpy (TILESPEC_KERNEL=off)") or \\
...     kernel_status().startswith("numpy")
True
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import platform
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

SOURCE = Path(__file__).with_name("kernel.c")

#: Flags after the compiler's name: optimised (the rows' loops run in SIMD),
#: position-independent, a shared library.
FLAGS = ("-O3", "-std=c99", "-shared", "-fPIC")


def enabled() -> bool:
    """False when ``TILESPEC_KERNEL`` is ``off``, ``0`` or ``no``."""
    return os.environ.get("TILESPEC_KERNEL", "").strip().lower() not in ("off", "0", "no")


def _cache_dir() -> Path:
    root = os.environ.get("TILESPEC_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "tilespec")
    return Path(root)


def _compiler() -> list[str]:
    """``$CC`` when set; else the first of Python's own compiler, ``cc``,
    ``gcc`` and ``clang`` that is installed (Python's may name a compiler of
    the machine it was built on)."""
    given = os.environ.get("CC")
    if given:
        return shlex.split(given)
    for name in (sysconfig.get_config_var("CC"), "cc", "gcc", "clang"):
        words = shlex.split(str(name or ""))
        if words and shutil.which(words[0]):
            return words
    return ["cc"]


def _build() -> tuple[ctypes.CDLL | None, str]:
    """The loaded library and "C kernel", or None and why not."""
    try:
        source = SOURCE.read_bytes()
    except OSError as e:
        return None, f"numpy (no kernel source: {e.strerror})"
    suffix = ".dll" if sys.platform == "win32" else ".so"
    command = _compiler() + list(FLAGS)
    tag = hashlib.sha256(source + platform.platform().encode()
                         + " ".join(command).encode()).hexdigest()[:16]
    target = _cache_dir() / f"kernel-{tag}{suffix}"
    try:
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(suffix=suffix, dir=target.parent)
            os.close(fd)
            try:
                out = subprocess.run(
                    command + ["-o", tmp, str(SOURCE)],
                    capture_output=True, text=True, timeout=120)
                if out.returncode != 0:
                    return None, "numpy (the C compiler failed)"
                os.replace(tmp, target)  # two processes building at once: either wins
            finally:
                if os.path.exists(tmp):
                    os.unlink(tmp)
        lib = ctypes.CDLL(str(target))
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"numpy (no C compiler: {type(e).__name__})"
    for name in ("tilespec_store", "tilespec_load"):
        getattr(lib, name).restype = ctypes.c_int
    return lib, "C kernel"


@functools.lru_cache(maxsize=1)
def _library() -> tuple[ctypes.CDLL | None, str]:
    return _build()


def library() -> ctypes.CDLL | None:
    """The compiled kernel, or None (off, or no compiler): then numpy runs."""
    return _library()[0] if enabled() else None


def kernel_status() -> str:
    """Which implementation packs words now: "C kernel" or "numpy (why)"."""
    return _library()[1] if enabled() else "numpy (TILESPEC_KERNEL=off)"


def _address(a: np.ndarray) -> int:
    address: int = a.__array_interface__["data"][0]
    return address


def _geometry(words: np.ndarray, parts: list[np.ndarray]) -> tuple[Any, ...]:
    nd = max(words.ndim, 1)
    dims = (ctypes.c_int64 * nd)(*(words.shape or (1,)))
    wstrides = (ctypes.c_int64 * nd)(*(words.strides or (0,)))
    flat = [s for p in parts for s in (p.strides or (0,))]
    pstrides = (ctypes.c_int64 * len(flat))(*flat)
    pointers = (ctypes.c_void_p * len(parts))(*(_address(p) for p in parts))
    return (nd, dims, ctypes.c_void_p(_address(words)), wstrides,
            words.itemsize, len(parts), pointers, pstrides, parts[0].itemsize)


def store(lib: ctypes.CDLL, words: np.ndarray, parts: list[np.ndarray], bits: int,
          mask: int) -> None:
    """``words = OR of (parts[s] & mask) << (s * bits)`` (same dims, any strides)."""
    if lib.tilespec_store(*_geometry(words, parts), bits, ctypes.c_uint64(mask)) != 0:
        raise AssertionError("kernel refused its arguments")  # the caller checks them


def load(lib: ctypes.CDLL, words: np.ndarray, parts: list[np.ndarray], bits: int,
         width: int, signed: bool) -> None:
    """``parts[s]`` = the low ``width`` bits of field ``s`` of ``words``,
    sign-extended when ``signed``."""
    if lib.tilespec_load(*_geometry(words, parts), bits, width, int(signed)) != 0:
        raise AssertionError("kernel refused its arguments")


def fits(words: np.ndarray, parts: list[np.ndarray], bits: int) -> bool:
    """Arguments the kernel takes: unsigned codes no narrower than a field,
    fields inside the word, at most 32 dims and 64 fields."""
    code = parts[0].dtype
    return (code.kind in "ub" and code.itemsize in (1, 2, 4, 8) and bits <= code.itemsize * 8
            and words.itemsize in (1, 2, 4, 8) and len(parts) * bits <= words.itemsize * 8
            and words.ndim <= 32 and len(parts) <= 64
            and all(p.shape == words.shape and p.dtype == code for p in parts))
