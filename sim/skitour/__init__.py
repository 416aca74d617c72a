"""Ski Tour: Biathlon: its data format (load, validate, compile), playing races (play), players
(personas), the event log as text (eventlog) and the registered game (game). The rules live in
kernels/skitour."""
from .compile import SkiTourBundle, compile_data, data_hash, load_bundle
from .load import default_data_dir, load_data

__all__ = ["SkiTourBundle", "compile_data", "data_hash", "default_data_dir", "load_bundle", "load_data"]
