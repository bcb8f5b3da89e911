"""Figures of a layout: the logical array beside its memory, as SVG, PNG or
an HTML page (:func:`tilespec.teach.draw.figure.draw`)."""
