"""What a command found, written out: text, the JSON envelope
(docs/json.md) and SARIF 2.1.0, each rendered from the typed values the
prover returns and written as they come (:mod:`.envelope`, :mod:`.hlo`)."""
