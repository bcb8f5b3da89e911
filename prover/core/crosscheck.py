"""A second opinion: cvc5 re-checks Z3's answers on the same SMT-LIB text.

Every solver query of tilespec goes through :mod:`prover.core.solve`, which
hands Z3 one formula (or one script of ``check-sat`` commands).  Inside
:func:`cross_checking`, each ``sat`` or ``unsat`` answer Z3 gives is checked
again by cvc5, an independent solver, on the SMT-LIB text of that very
query (the text tilespec wrote, or Z3's printing of the formula it was
given), in a fresh cvc5 solver with a time limit:

* cvc5 agrees: counted in :attr:`Record.agreed`;
* cvc5 says ``unknown`` (or runs out of time): reported in
  :attr:`Record.unknown`, with the reason; this is not a disagreement;
* cvc5 gives the opposite answer: :class:`SolverDisagreement`, a
  :class:`~prover.result.ProverBug` (exit 4 on the command line).  One of
  the two solvers, or the text, is wrong; no verdict is given.

>>> from tilespec.spec.text import parse_array_shape as shape
>>> from tilespec.prover.bitcast import prove_reading
>>> with cross_checking() as record:
...     r = prove_reading(shape("f32[m,n]{1,0:T(8,128)}"), shape("f32[1,m,n]{2,1,0:T(8,128)}"))
>>> r.status, record.disagreements, record.checked > 0
('proved', 0, True)
>>> cvc5_answers("(declare-const x Int)(assert (> x 2))(check-sat)(assert (< x 1))(check-sat)", 5)
['sat', 'unsat']
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from dataclasses import dataclass, field

from ...spec import TilespecError
from ..result import ProverBug


class SolverDisagreement(ProverBug):
    """Z3 and cvc5 gave opposite answers (sat / unsat) to the same query."""


class CrossCheckUnavailable(TilespecError):
    """cvc5 is not installed (it is the optional extra ``tilespec[cvc5]``)."""


@dataclass
class Record:
    """What the cross-check saw during one run."""

    checked: int = 0
    agreed: int = 0
    unknown: list = field(default_factory=list)    # cvc5's reasons
    disagreements: int = 0

    def summary(self) -> str:
        """One line for a person.

        >>> Record(3, 2, ["timeout"]).summary()
        'cross-check: 3 answers of Z3 re-checked by cvc5: 2 agree, 1 unknown to cvc5 (timeout), 0 disagree'
        """
        reasons = ", ".join(sorted(set(self.unknown)))
        unknown = f"{len(self.unknown)} unknown to cvc5" + (f" ({reasons})" if reasons else "")
        return (f"cross-check: {self.checked} answers of Z3 re-checked by cvc5: "
                f"{self.agreed} agree, {unknown}, {self.disagreements} disagree")

    def to_json(self) -> dict:
        return {"checked": self.checked, "agreed": self.agreed,
                "unknown": len(self.unknown), "disagreements": self.disagreements}


_ACTIVE: contextvars.ContextVar = contextvars.ContextVar("tilespec_cross_check",
                                                         default=None)


@contextmanager
def cross_checking():
    """Re-check every sat/unsat answer of Z3 inside the block with cvc5;
    yields the :class:`Record`.  Without cvc5: :class:`CrossCheckUnavailable`."""
    import importlib.util
    if importlib.util.find_spec("cvc5") is None:
        raise CrossCheckUnavailable("the cross-check needs cvc5: "
                                    "pip install cvc5 (in a clone of tilespec: pip install -e '.[cvc5]')")
    record = Record()
    token = _ACTIVE.set(record)
    try:
        yield record
    finally:
        _ACTIVE.reset(token)


def active() -> Record | None:
    """The record of the enclosing :func:`cross_checking`, or None."""
    return _ACTIVE.get()


def cvc5_answers(text: str, timeout: float) -> list[str]:
    """cvc5's answer to each ``check-sat`` of an SMT-LIB script, in a fresh
    solver, ``timeout`` seconds per check: 'sat', 'unsat' or
    'unknown (<reason>)'."""
    import cvc5
    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    solver.setOption("incremental", "true")
    solver.setOption("tlimit-per", str(max(1, int(timeout * 1000))))
    solver.setLogic("ALL")
    symbols = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, symbols)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "tilespec")
    answers = []
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        if command.getCommandName() != "check-sat":
            command.invoke(solver, symbols)
            continue
        result = solver.checkSat()
        if result.isSat():
            answers.append("sat")
        elif result.isUnsat():
            answers.append("unsat")
        else:
            why = str(result.getUnknownExplanation()).rsplit(".", 1)[-1].lower()
            answers.append(f"unknown ({why})")
    return answers


def confirm(text: str, z3_answers, timeout: float) -> None:
    """Within :func:`cross_checking`: compare Z3's answers to the script
    ``text`` (one per ``check-sat``) with cvc5's; raise
    :class:`SolverDisagreement` on opposite answers.  Outside it: nothing."""
    record = active()
    if record is None:
        return
    z3_answers = list(z3_answers)
    if not any(a in ("sat", "unsat") for a in z3_answers):
        return
    try:
        theirs = cvc5_answers(text, timeout)
    except Exception as e:      # cvc5 could not read or run it: reported, not a verdict
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        record.checked += sum(a in ("sat", "unsat") for a in z3_answers)
        record.unknown += [f"cvc5 failed: {first[:120]}"] * sum(
            a in ("sat", "unsat") for a in z3_answers)
        return
    if len(theirs) != len(z3_answers):
        raise ProverBug(f"cross-check: cvc5 gave {len(theirs)} answers to a script "
                        f"Z3 answered {len(z3_answers)} times")
    for k, (ours, other) in enumerate(zip(z3_answers, theirs)):
        if ours not in ("sat", "unsat"):
            continue
        record.checked += 1
        if other == ours:
            record.agreed += 1
        elif other in ("sat", "unsat"):
            record.disagreements += 1
            raise SolverDisagreement(
                f"Z3 says {ours} and cvc5 says {other} on the same query "
                f"(check {k + 1} of {len(z3_answers)}): a bug in a solver or in "
                "tilespec's encoding, no verdict given")
        else:
            record.unknown.append(other)
