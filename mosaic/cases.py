"""The kernels of the reports issue 34 names, as real compilers answered
them: which libtpu refused a reported kernel with the report's message, and
which compiles it.  Recorded with ``tools/pallas_corpus.py`` (``--grid
topp``: jax-ml/jax#34001's kernel under jax 0.8.1's libtpu and today's;
``--grid issues``: jax-ml/jax#39366's gathers); tests/mosaic/test_issue_cases.py
checks this table against those records (tests/data/pallas/topp.json.gz,
issues.json.gz), so it says what the compilers said.

A message matched to a reported case brings the compilers' answers into the
report: where the libtpu of a report refused what libtpu 0.0.42.1 compiles,
the model follows 0.0.42.1 and names the difference.

>>> case = CASES[0]
>>> case.report, [a.accepted for a in case.answers_for((128, 256))]
('jax-ml/jax#34001', [False, False, False, False, True, True, True])
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .messages import Message

__all__ = ["CASES", "Answer", "ReportedCase", "reported_case"]


@dataclass(frozen=True)
class Answer:
    """One compiler's answer to a reported kernel of one shape on one chip."""

    shape: tuple[int, ...]
    chip: str
    libtpu: str
    jax: str
    accepted: bool

    @property
    def compiler(self) -> str:
        """``libtpu 0.0.30 (jax 0.8.1)``."""
        return f"libtpu {self.libtpu} (jax {self.jax})"


@dataclass(frozen=True)
class ReportedCase:
    """A reported kernel, the message its report shows, and the compilers'
    recorded answers to it."""

    report: str
    #: the kernel's name in the record (tools/pallas_corpus.py)
    kernel: str
    #: what the kernel does, in a phrase
    what: str
    #: the check of the report's message, the MLIR operation it names, and a
    #: regular expression the message matches
    check: str
    operation: str | None
    signature: str
    answers: tuple[Answer, ...]

    def matches(self, message: Message) -> bool:
        """``message`` is the one this case's report shows."""
        return (message.check == self.check and message.operation == self.operation
                and re.search(self.signature, message.text) is not None)

    def answers_for(self, shape) -> tuple[Answer, ...]:
        """The answers for the kernel of ``shape``, oldest compiler first."""
        return tuple(sorted((a for a in self.answers if a.shape == tuple(shape)),
                            key=lambda a: (_version(a.libtpu), _version(a.jax), a.chip)))

    def sentences(self, shape) -> tuple[str, ...]:
        """What the compilers said of the kernel of ``shape`` (of every
        recorded shape when ``shape`` is not one), one sentence a compiler."""
        answers = self.answers_for(shape) or tuple(
            sorted(self.answers, key=lambda a: (_version(a.libtpu), _version(a.jax), a.shape,
                                                a.chip)))
        out = []
        for compiler in dict.fromkeys(a.compiler for a in answers):
            mine = [a for a in answers if a.compiler == compiler]
            chips = ", ".join(dict.fromkeys(a.chip for a in mine))
            said = []
            for accepted, verb in ((False, "refused {} with this message"), (True, "compiled {}")):
                shapes = [a.shape for a in mine if a.accepted == accepted]
                if shapes:
                    said.append(verb.format("it" if self.answers_for(shape) else " ".join(
                        "(" + ",".join(map(str, s)) + ")" for s in dict.fromkeys(shapes))))
            out.append(f"{compiler} on {chips}: {'; '.join(said)}")
        return tuple(out)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text))


def _answers(libtpu: str, jax: str, chips, accepted: dict) -> tuple[Answer, ...]:
    return tuple(Answer(shape, chip, libtpu, jax, ok)
                 for chip in chips for shape, ok in accepted.items())


#: jax-ml/jax#34001's kernel over the (n, b) its report tried: the three it
#: names good and three it names bad (tools/pallas_corpus.py --grid topp).
_TOPP_OLD = {(128, 128): True, (128, 193): True, (137, 256): True,
             (128, 256): False, (128, 384): False, (256, 256): False}

CASES: tuple[ReportedCase, ...] = (
    ReportedCase(
        "jax-ml/jax#34001", "jax-34001-topp",
        "a (1,b) row of indices broadcast to (n,b), then a gather of the block's rows by them",
        "invalid-input-layout", "vector.broadcast",
        r'in_layout = \[#tpu\.vpad<"32,\{\*,128\},\(8,128\)">\].*\(vector<1x128xi32>\) -> '
        r"vector<8x128xi32>",
        _answers("0.0.30", "0.8.1", ("v5e",), _TOPP_OLD)
        + _answers("0.0.34", "0.9.0", ("v5e",), _TOPP_OLD)
        + _answers("0.0.37", "0.9.2", ("v5e",), _TOPP_OLD)
        + _answers("0.0.40", "0.10.0", ("v5e",), _TOPP_OLD)
        + _answers("0.0.41", "0.10.1", ("v5e",), {s: True for s in _TOPP_OLD})
        + _answers("0.0.42.1", "0.10.2", ("v5e",), {s: True for s in _TOPP_OLD})
        # today's libtpu under the report's jax: the change is the compiler's
        + _answers("0.0.42.1", "0.8.1", ("v5e",), {s: True for s in _TOPP_OLD})),
    ReportedCase(
        "jax-ml/jax#39366", "jax-39366-flat-take",
        "a gather from a rank-1 payload by offsets flattened to rank 1",
        "abort", None, r"arr\.size\(\) >= layout_rank\(implicit_dim\) \(1 vs\. 2\)",
        _answers("0.0.42.1", "0.10.2", ("v4", "v5e", "v6e"), {(32, 128): False})),
    ReportedCase(
        "jax-ml/jax#39366", "jax-39366-take",
        "a gather from a rank-1 payload by rank-1 offsets",
        "invalid-input-layout", "tpu.dynamic_gather",
        r'in_layout = \[#tpu\.vpad<"32,\{0,0\},\(8,128\)">',
        _answers("0.0.42.1", "0.10.2", ("v4", "v5e", "v6e"), {(128,): False})),
)


def reported_case(message: Message | None) -> ReportedCase | None:
    """The reported case whose message ``message`` is, if any."""
    if message is None:
        return None
    return next((c for c in CASES if c.matches(message)), None)
