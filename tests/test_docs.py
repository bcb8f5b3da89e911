"""Every command shown in README.md and docs/*.md runs, and prints what the
docs show (like doctests, for the command line), so the docs cannot drift.

The convention (also in CONTRIBUTING.md, "Examples in the docs"):

* A fenced block marked ```` ```console ```` holds commands and their output.
  A line starting with ``$ `` is a command: ``$ tilespec ARGS...`` or
  ``$ python -m tilespec ARGS...``; the lines after it, up to the next
  command or the end of the block, are exactly what it prints (standard
  output and standard error, as a terminal shows them).
* A line holding only ``...`` matches any number of lines (none included);
  ``...`` inside a line matches any text within that line.
* A command that exits with a status other than 0 ends its output with the
  line ``[exit N]``; with no such line the status must be 0 (``[exit 0]``
  may be shown).
* Timings vary from run to run: a number of seconds, milliseconds or
  microseconds (``[0.076 s]``, ``63.5 ms``, ``"seconds": 0.0069``) matches
  any other, and so do the dates of proofs (``2026-11-23 19:01:47 UTC``).
  Trailing spaces and blank lines at the end of an output are not compared.
* The commands of a block run one after another in one directory that
  holds every top-level entry of the repository (so ``tests/data/...`` is
  found) and receives the files the commands write (``-o cases.jsonl``).
  ``tilespec`` runs in this process (``tilespec.cli.main.main``), so the
  whole run takes seconds; ``cat FILE | tilespec ...`` and
  ``tilespec ... < FILE`` give it FILE as standard input.  ``head``,
  ``grep``, ``cat`` and ``python`` run as programs.
* A block whose commands need real XLA (``tilespec xla``,
  ``--against-xla``, ``python -m tilespec.xla...``), or that follows the line
  ``<!-- docs-test: integration -->``, runs in the integration variant of
  this test; after ``<!-- docs-test: slow -->``, only with ``-m slow``.
* Commands in other blocks are not run: a ```` ```sh ```` block holds shell
  (installing, jax programs).  No other block may show a ``tilespec``
  command, and an install line must name what it installs from a path:
  tilespec is not on PyPI (``pip install -e '.[xla]'`` from a clone, or a
  built wheel, ``pip install 'dist/tilespec-0.1.0-py3-none-any.whl[xla]'``).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^```\s*([\w+-]*)\s*$")
MARKER = re.compile(r"^<!--\s*docs-test:\s*(integration|slow)\s*-->\s*$")
EXIT = re.compile(r"^\[exit (\d+)\]$")
#: Programs a console block may run besides tilespec (as programs).
PROGRAMS = ("head", "grep", "cat", "python")


@dataclass(frozen=True)
class Example:
    """One command of a console block and the output the docs show."""
    command: str
    output: tuple[str, ...]
    status: int


@dataclass(frozen=True)
class Block:
    """A fenced block: where it is, its language, its lines, and its marker."""
    path: Path
    line: int
    language: str
    lines: tuple[str, ...]
    marker: str | None

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    def examples(self) -> list[Example]:
        """The block's commands, each with its shown output and status.

        >>> b = Block(ROOT / "README.md", 1, "console",
        ...           ("$ tilespec offset X 1", "17", "", "$ tilespec locate X 9",
        ...            "padding", "[exit 1]"), None)
        >>> [(e.command, e.output, e.status) for e in b.examples()]
        [('tilespec offset X 1', ('17',), 0), ('tilespec locate X 9', ('padding',), 1)]
        """
        found: list[tuple[str, list[str]]] = []
        for line in self.lines:
            if line.startswith("$ "):
                found.append((line[2:].strip(), []))
            elif found:
                found[-1][1].append(line.rstrip())
            elif line.strip():
                raise AssertionError(f"{self.where}: a console block starts with a "
                                     f"command ('$ ...'), not {line!r}")
        examples = []
        for command, output in found:
            while output and not output[-1]:
                output.pop()
            status = 0
            if output and (m := EXIT.match(output[-1])):
                status = int(m.group(1))
                output.pop()
                while output and not output[-1]:
                    output.pop()
            examples.append(Example(command, tuple(output), status))
        return examples

    @property
    def needs_xla(self) -> bool:
        return self.marker == "integration" or any(
            re.search(r"^tilespec xla\b|--against-xla|tilespec\.xla\b", e.command)
            for e in self.examples())


def blocks(paths=DOCS) -> list[Block]:
    """Every fenced block of the docs."""
    out = []
    for path in paths:
        lines = path.read_text().splitlines()
        i = 0
        while i < len(lines):
            m = FENCE.match(lines[i])
            if not m:
                i += 1
                continue
            marker = None
            before = next((x for x in reversed(lines[:i]) if x.strip()), "")
            if (mm := MARKER.match(before.strip())):
                marker = mm.group(1)
            end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "```"), None)
            assert end is not None, f"{path}:{i + 1}: a fenced block that is never closed"
            out.append(Block(path, i + 1, m.group(1), tuple(lines[i + 1:end]), marker))
            i = end + 1
    return out


def normalise(text: str) -> str:
    """What may differ from run to run, made equal: timings and the dates of
    proofs.

    >>> normalise('proved  [0.076 s]    63.5 ms "seconds": 12.5, at 2026-11-23 19:01:47 UTC')
    'proved  [ TIME s] TIME ms "seconds": TIME, at DATE'
    """
    text = re.sub(r" *\b\d+(?:\.\d+)? (s|ms|µs)\b", r" TIME \1", text)  # right-aligned too
    text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", "DATE", text)
    return re.sub(r'"seconds": \d+(?:\.\d+)?(?:e-?\d+)?', '"seconds": TIME', text)


def pattern(expected) -> re.Pattern:
    """The regular expression of an expected output: ``...`` alone on a line
    is any lines, ``...`` in a line any text.

    >>> bool(pattern(["a", "...", "z ... z"]).fullmatch("a\\nb\\nc\\nz 1 z\\n"))
    True
    >>> bool(pattern(["a", "...", "z"]).fullmatch("a\\nz\\n"))
    True
    >>> bool(pattern(["a", "b"]).fullmatch("a\\nc\\n"))
    False
    """
    parts = []
    for line in expected:
        line = normalise(line.rstrip())
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(r"[^\n]*?".join(map(re.escape, line.split("..."))) + r"\n")
    return re.compile("".join(parts))


def actual_text(text: str) -> str:
    lines = [normalise(line.rstrip()) for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return "".join(line + "\n" for line in lines)


@contextlib.contextmanager
def stdin_from(path: str | None):
    if path is None:
        yield
        return
    saved = sys.stdin
    sys.stdin = io.StringIO(Path(path).read_text())
    try:
        yield
    finally:
        sys.stdin = saved


def run(command: str) -> tuple[int, str]:
    """Run one documented command in the current directory: its exit status
    and everything it printed."""
    from tilespec.cli.main import main
    stdin = None
    if (m := re.fullmatch(r"cat (\S+) \| (.*)", command)):
        stdin, command = m.group(1), m.group(2)
    if (m := re.fullmatch(r"(.*) < (\S+)", command)):
        command, stdin = m.group(1), m.group(2)
    argv = shlex.split(command)
    if argv[:1] == ["tilespec"] or argv[:3] == ["python", "-m", "tilespec"]:
        args = argv[1:] if argv[0] == "tilespec" else argv[3:]
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out), \
                stdin_from(stdin):
            status = main(args)
        return status, out.getvalue()
    assert argv[0] in PROGRAMS and stdin is None, \
        f"{command!r}: a console block runs tilespec, or one of {PROGRAMS}"
    if argv[0] == "python":
        argv[0] = sys.executable
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout + done.stderr


def check_block(block: Block, directory: Path, monkeypatch) -> None:
    for entry in ROOT.iterdir():
        if entry.name not in (".git", ".venv") and not (directory / entry.name).exists():
            (directory / entry.name).symlink_to(entry)
    monkeypatch.chdir(directory)
    for example in block.examples():
        status, printed = run(example.command)
        shown = actual_text(printed)
        assert pattern(example.output).fullmatch(shown) and status == example.status, (
            f"{block.where}: $ {example.command}\n--- the docs show (status "
            f"{example.status}):\n" + "\n".join(example.output)
            + f"\n--- it prints (status {status}):\n{printed}")


CONSOLE = [b for b in blocks() if b.language == "console"]


def _param(block: Block):
    marks = [pytest.mark.slow] if block.marker == "slow" else []
    return pytest.param(block, id=block.where, marks=marks)


@pytest.mark.parametrize("block", [_param(b) for b in CONSOLE if not b.needs_xla])
def test_docs_command_prints_what_the_docs_show(block, tmp_path, monkeypatch):
    check_block(block, tmp_path, monkeypatch)


@pytest.mark.integration
@pytest.mark.parametrize("block", [_param(b) for b in CONSOLE if b.needs_xla])
def test_docs_command_with_real_xla_prints_what_the_docs_show(block, tmp_path, monkeypatch):
    check_block(block, tmp_path, monkeypatch)


def test_the_matching_rules_hold_on_their_examples():
    """The examples in this module's docstrings (what ``...``, timings and
    install lines match) hold."""
    import doctest
    result = doctest.testmod(sys.modules[__name__])
    assert result.attempted >= 10 and result.failed == 0


def test_the_docs_show_commands():
    """The test above has something to run, in README.md and in docs/."""
    files = {b.path.name for b in CONSOLE}
    assert "README.md" in files and len(files) >= 4, files
    assert sum(len(b.examples()) for b in CONSOLE) >= 40


def commands_outside_console(block: Block) -> list[str]:
    """Lines of a block (not a console block) that show a tilespec command.

    >>> b = Block(ROOT / "README.md", 1, "sh", ("pip install -e .",
    ...           "tilespec offset X 1   # 17", "$ python -m tilespec prove"), None)
    >>> commands_outside_console(b)
    ['tilespec offset X 1   # 17', '$ python -m tilespec prove']
    """
    return [line for line in block.lines
            if re.match(r"(\$ )?(tilespec|python3? -m tilespec)\s+[-a-z]+(\s|$)", line.strip())]


def test_every_command_shown_is_in_a_console_block():
    misplaced = [f"{b.where}: {line}" for b in blocks() if b.language != "console"
                 for line in commands_outside_console(b)]
    assert not misplaced, ("commands shown outside a ```console block (not run by the "
                           "tests):\n" + "\n".join(misplaced))


INLINE = re.compile(r"`(tilespec [a-z][\w-]*)[^`]*`")


def test_every_command_named_in_prose_has_a_tested_example():
    """A command a reader is told to type (``tilespec padding ...`` in a
    sentence) has at least one example that runs."""
    shown = {" ".join(shlex.split(e.command)[:2]).replace("python -m", "tilespec")
             for b in CONSOLE for e in b.examples()}
    named = {(m.group(1), path.name) for path in DOCS
             for m in INLINE.finditer(path.read_text())}
    missing = sorted(f"{name} ({where})" for name, where in named if name not in shown)
    assert not missing, "commands named in the docs with no console example: " + ", ".join(
        missing)


@pytest.mark.parametrize("path", [p for p in DOCS if ">>> " in p.read_text()
                                  and p.name != "python.md"],  # tests/test_api.py runs it
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_python_examples_run(path):
    """The Python examples (``>>>``) of the docs run as doctests."""
    import doctest
    result = doctest.testfile(str(path), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted and result.failed == 0


#: A file of this repository named in the docs, e.g. ``tests/xla/test_xla_cli.py``.
NAMED_FILE = re.compile(r"(?<![\w/.-])((?:tests|spec|image|testing|prover|cli|teach|codegen"
                        r"|interop|xla|tools|benchmarks|notebooks|docs)/[\w./-]*"
                        r"\.(?:py|hlo|json|ipynb|md|txt)(?:\.gz)?)")


def test_files_named_in_the_docs_exist():
    """A path the docs name (a test to run, a module to read) is there."""
    missing = [f"{path.relative_to(ROOT)}: {m.group(1)}" for path in DOCS
               for m in NAMED_FILE.finditer(path.read_text()) if not (ROOT / m.group(1)).exists()]
    assert not missing, "the docs name files that do not exist:\n" + "\n".join(missing)


#: An install from PyPI: tilespec is not published there.
FROM_PYPI = re.compile(r"^tilespec(\[[^\]]*\])?$")


def install_lines_from_pypi(text: str) -> list[str]:
    """The ``pip install`` commands of a text that install tilespec by name.

    >>> install_lines_from_pypi("pip install 'tilespec[xla]'  # jax")
    ["pip install 'tilespec[xla]'  # jax"]
    >>> install_lines_from_pypi("run: pip install jax tilespec")
    ['run: pip install jax tilespec']
    >>> install_lines_from_pypi("pip install -e '.[xla]' && "
    ...                         "pip install 'dist/tilespec-0.1.0-py3-none-any.whl[xla]'")
    []
    >>> install_lines_from_pypi("pip install cvc5 (from a clone of tilespec: "
    ...                         "pip install -e '.[cvc5]')")
    []
    >>> install_lines_from_pypi('pip install "tilespec @ git+https://example.org/tilespec"')
    []
    """
    found = []
    text = re.sub(r"pip install[ \t]*\n[ \t]*", "pip install ", text)  # wrapped prose
    for line in text.splitlines():
        for m in re.finditer(r"pip install\b", line):
            if any(FROM_PYPI.match(w) and after != "@"
                   for w, after in pairs(install_arguments(line[m.end():]))):
                found.append(line.strip())
                break
    return found


def install_arguments(rest: str) -> list[str]:
    """The words after ``pip install`` up to where the command ends (a shell
    operator, a comment, a quote or backtick that closes, or prose).

    >>> install_arguments(" -e '.[xla]' in a clone, or pip install jax")
    ['-e', '.[xla]']
    """
    words = []
    for raw in rest.split():
        if raw[0] in "(#`;&|" or raw in ("in", "or", "and", "from", "to", "then", "with"):
            break
        word = raw.strip("'\",:;()`")
        words.append(word if word == "." else word.rstrip("."))  # a sentence's full stop
        if raw[-1] in ",:;)`" or raw.endswith(("'\"", "')")):
            break
    return words


def pairs(words):
    return zip(words, words[1:] + [""])


TEXT_FILES = (".md", ".py", ".ipynb", ".toml", ".yml", ".yaml", ".json", ".txt", ".cfg")


def text_files():
    """The repository's text files, outside hidden and generated folders."""
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if not d.startswith(".")
                   and d not in ("node_modules", "build", "dist", "__pycache__")]
        for name in files:
            path = Path(folder, name)
            if path.suffix in TEXT_FILES and path != Path(__file__):
                yield path


def test_install_instructions_name_a_path_not_pypi():
    """tilespec is not on PyPI: every instruction to install it, in the docs,
    the notebooks and the messages of the code, installs from a clone or a
    built wheel."""
    wrong = [f"{path.relative_to(ROOT)}: {line}" for path in text_files()
             for line in install_lines_from_pypi(path.read_text(errors="replace"))]
    assert not wrong, ("tilespec is not on PyPI; install from a clone (pip install -e "
                       "'.[xla]') or a built wheel:\n" + "\n".join(wrong))


if __name__ == "__main__":  # list the examples: python tests/test_docs.py
    for b in CONSOLE:
        print(b.where, "(xla)" if b.needs_xla else "", b.marker or "")
        for e in b.examples():
            print("   $", e.command, f"[exit {e.status}]" if e.status else "")
    print(os.linesep.join(f"{b.where}: {x}" for b in blocks() if b.language != "console"
                          for x in commands_outside_console(b)))
