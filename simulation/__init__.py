"""Simulation, the bootstrap and model cross-checks (SPEC §3).
"""

__all__: list[str] = []
