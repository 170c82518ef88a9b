"""The easy/hard annotation model and what follows from it (SPEC §2).
"""

__all__: list[str] = []
