"""``goldnoise examples``: the bundled data sets."""

from __future__ import annotations

import argparse

from goldnoise._cli._input import EXAMPLES
from goldnoise.report import Column, Report, Section, Table

HELP = "list the bundled real data sets (use one with --example NAME)"
COMPILES = False  # nothing to compute: no notice of compiling kernels


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options of its own."""


def run(args: argparse.Namespace) -> Report:
    report = Report("examples", "goldnoise examples: bundled data sets", primary="examples/examples")
    section = report.add(Section("examples", "Bundled data sets (goldnoise audit --example NAME)"))
    section.tables.append(Table("examples", [Column("name", "name", align="<"),
                                             Column("description", "what", align="<")],
                                [{"name": k, "description": v} for k, v in EXAMPLES.items()]))
    return report
