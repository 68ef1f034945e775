"""cuvil_debug: the toolkit around the Cuvil compiler (model loading, IR tools, CLI)."""

from .loader import LoadedModel, ModelLoadError, load_model

__all__ = ["LoadedModel", "ModelLoadError", "load_model"]
