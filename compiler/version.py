"""Cuvil's version: one low module every floor may read (debug info, cache keys, bundles)."""

__version__ = "0.1.0"
