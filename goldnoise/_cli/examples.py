"""``goldnoise examples``: the bundled data sets."""

from __future__ import annotations

import argparse

from _goldnoise_lib.report import report_table, section_from_result
from goldnoise._cli._input import EXAMPLES
from goldnoise.report import Column, Report

HELP = "list the bundled real data sets (use one with --example NAME)"
COMPILES = False  # nothing to compute: no notice of compiling kernels


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options of its own."""


def run(args: argparse.Namespace) -> Report:
    report = Report("examples", "goldnoise examples: bundled data sets", primary="examples/examples")
    report.add(section_from_result(
        None, "examples", "Bundled data sets (goldnoise audit --example NAME)",
        tables=[report_table("examples", [Column("name", "name", align="<"),
                                          Column("description", "what", align="<")],
                             [{"name": k, "description": v} for k, v in EXAMPLES.items()])]))
    return report
