"""Biathlon Mania: its data (load, validate, compile), playing races, event logs, exact answers.
The rules live in kernels/mania; docs/mania/rules.md states them."""
from .compile import ManiaBundle, compile_data, data_hash, load_bundle
from .load import ManiaData, default_data_dir, load_data
from .play import EventLogOverflow, make_setup, play_block, play_one

__all__ = ["EventLogOverflow", "ManiaBundle", "ManiaData", "compile_data", "data_hash",
           "default_data_dir", "load_bundle", "load_data", "make_setup", "play_block", "play_one"]
