"""Mosaic (Pallas on TPU) layouts."""
