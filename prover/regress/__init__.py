"""Regression cases from the spec (:mod:`.cases`), written as JSON lines, pytest
or GoogleTest (:mod:`.formats`), or as a pytest module for a user's own
function (:mod:`.target`)."""
