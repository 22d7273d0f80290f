"""The checkouts a side-by-side bench compares, given as ``NAME=DIR`` (``git archive REV | tar -x
-C DIR``), compiled first: this machine writes no bytecode as it imports, so a fresh process run
from a bare checkout would compile every module it loads, as an installed package never does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def compiled_checkouts(specs: list[str]) -> list[tuple[str, str]]:
    """(name, folder) for each ``NAME=DIR``, each folder's ``indexer`` compiled."""
    checkouts = [(name, tree) for name, tree in (spec.split("=", 1) for spec in specs)]
    for _, tree in checkouts:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(tree) / "indexer")], check=True,
                       stdout=subprocess.DEVNULL)
    return checkouts
