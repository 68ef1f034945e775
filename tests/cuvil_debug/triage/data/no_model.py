"""Defines helpers but no model."""


def helper():
    return 1
