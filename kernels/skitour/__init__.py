"""Ski Tour: Biathlon kernels: integer constants (consts) and pure rule functions (rules).

The rules they implement are written out in docs/skitour/rules.md; the data they read is compiled by
`sim.skitour.compile`.
"""
