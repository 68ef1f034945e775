"""``cuvil-debug quant``: the accuracy report of an int8 / bf16 build (docs/QUANT.md)."""
