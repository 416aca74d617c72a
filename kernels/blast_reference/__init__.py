"""The Biathlon Blast strength reference (search.py): a package of its own, so that the disk cache
(kernels.cache) recompiles it, and not the heuristic players' race kernels, when only the search
changes; it builds on kernels/blast, whose changes recompile it too."""
