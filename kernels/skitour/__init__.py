"""Ski Tour: Biathlon kernels: integer constants (consts), pure rule functions (rules), the race
engine (engine: `play_races_nb`) and the decision interface of the players (players).

The rules they implement are written out in docs/skitour/rules.md, the event log the engine writes
in docs/skitour/event-log.md; the data they read is compiled by `sim.skitour.compile`.
"""
