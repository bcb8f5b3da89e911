"""The mixed-radix lemma is proved and cited even where the proof cache keeps
nothing (a cache that cannot be written, or one that forgets)."""

from tilespec.prover.core import cache, theorems


def test_mixed_radix_lemma_is_proved_when_the_cache_keeps_nothing(monkeypatch):
    monkeypatch.setattr(cache, "lookup", lambda question, digest, needs=(): None)
    monkeypatch.setattr(cache, "store", lambda question, digest, record: None)
    record = theorems.mixed_radix(2)
    assert record["status"] == "proved", record
    assert theorems.cited_lemma(2).status == "proved"
