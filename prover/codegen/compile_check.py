"""The generated code compiled before it is proved.

:mod:`prover.codegen.generated` proves what the expressions of the generated code
compute, reading them with its own small reader.  What that reader does not
see (declarations, the preprocessor, keywords) is checked here by the
language itself: a proof covers only text that compiles.

>>> from tilespec.codegen.symbolic import c_source
>>> from tilespec.spec.text import parse_array_shape as shape
>>> checked = compiles(c_source(shape("f32[m,INT64_MAX]{1,0:T(8,128)}")), "c")
>>> [rejected for rejected, _ in checked.values()]
[None, None]
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

from ..result import ProverBug

#: Each generated C function, cut out of the source to compile the other alone.
_FUNCTIONS = {"offset": r"\nint64_t offset\(.*?\n\}\n", "locate": r"\nint locate\(.*?\n\}\n"}


def compiles(source: str, language: str) -> dict:
    """Check that the generated text is code at all, before proving what it
    computes: Python through ``compile``; C through the C compiler, when
    there is one, with every warning an error, one function at a time (the
    other cut out).  The names are chosen never to clash (:mod:`spec.naming`).

    Returns, per function, (None, the step that says what was checked) or
    (the compiler's complaint, None).  C with a literal beyond int64 is
    rejected, and its int64 proof refutes it too; a proof of a function the
    compiler rejects would be a bug (:mod:`prover.codegen.generated` raises
    ProverBug).
    """
    if language == "python":
        try:
            compile(source, "<generated>", "exec")
        except SyntaxError as e:
            raise ProverBug(f"the generated Python does not compile: {e}") from e
        return dict.fromkeys(_FUNCTIONS, (None, "Python: the generated source compiles"))
    out: dict[str, tuple[str | None, str | None]] = {}
    for fn in _FUNCTIONS:
        text = source
        for other, pattern in _FUNCTIONS.items():
            if other != fn:
                text = re.sub(pattern, "\n", text, flags=re.S)
        out[fn] = c_compiles(text, f"the generated {fn}")
    return out


#: The C compiler's flags: C99, every warning an error, nothing linked.
C_FLAGS = ("-std=c99", "-pedantic-errors", "-Wall", "-Wextra", "-Werror")


def c_compiles(text: str, what: str) -> tuple[str | None, str | None]:
    """(None, the step that says what compiled) or (the compiler's complaint,
    None) for the C ``text``; without a C compiler, (None, a step that says
    so).

    >>> c_compiles("int f(void) { return 0; }", "f")[1].endswith("f compiles")
    True
    """
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        return None, ("no C compiler found: the C text was not compiled (its names are "
                      "chosen to be neither keywords nor <stdint.h>'s)")
    name = os.path.basename(cc)
    done = subprocess.run([cc, *C_FLAGS, "-fsyntax-only", "-x", "c", "-"], input=text,
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        errors = [x for x in done.stderr.splitlines() if "error" in x] or ["no message"]
        return f"{name} rejects the generated C: {errors[0].strip()}", None
    return None, f"{name} {' '.join(C_FLAGS)}: {what} compiles"
