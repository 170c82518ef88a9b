"""Files the command line writes: folders are created when missing, and named."""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["make_folder"]


def make_folder(folder: Path) -> None:
    """Create ``folder`` (and its parents) if missing, and say so on stderr."""
    if folder.is_dir():
        return
    folder.mkdir(parents=True, exist_ok=True)
    print(f"goldnoise: created the folder {folder}", file=sys.stderr)
