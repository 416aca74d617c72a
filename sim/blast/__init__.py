"""Biathlon Blast: its data format (load, validate, compile). The rules live in kernels/blast."""
from .compile import CompiledBundle, compile_data, data_hash, load_bundle
from .load import default_data_dir, load_data

__all__ = ["CompiledBundle", "compile_data", "data_hash", "default_data_dir", "load_bundle", "load_data"]
