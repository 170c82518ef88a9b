"""Every ``>>>`` example in README.md runs and prints what the README says."""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_examples_run_as_printed():
    text = README.read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    src = "\n\n".join(blocks)
    test = doctest.DocTestParser().get_doctest(src, {}, "README", str(README), 0)
    runner = doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False
    )
    failures = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
    assert runner.tries > 25  # the README's examples were all found


def test_readme_commands_match_ci():
    # The README's test command is what .ci/run runs, word for word.
    ci = (README.parent / ".ci" / "run").read_text()
    command = 'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[test]" && pytest'
    assert command in README.read_text()
    assert command in ci


def test_readme_console_examples_print_what_the_readme_shows():
    # Each ```console block: "$ goldnoise ..." and the output it prints, word for word,
    # run through the installed console script.
    text = README.read_text()
    blocks = re.findall(r"```console\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 2
    script = Path(sys.executable).parent / "goldnoise"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "goldnoise"]
    env = {**os.environ, "PYTHONPATH": str(README.parent)}
    for block in blocks:
        first, *expected = block.rstrip("\n").split("\n")
        assert first.startswith("$ goldnoise "), first
        argv = shlex.split(first.removeprefix("$ goldnoise "))
        out = subprocess.run([*command, *argv], capture_output=True, text=True, env=env,
                             timeout=600)
        assert out.returncode == 0, out.stderr
        got = [line.rstrip() for line in out.stdout.rstrip("\n").split("\n")]
        assert got == [line.rstrip() for line in expected], first


def test_readme_audit_output_is_what_the_command_prints():
    text = README.read_text()
    printed = text.split("The audit prints:\n\n```text\n", 1)[1].split("```", 1)[0]
    script = Path(sys.executable).parent / "goldnoise"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "goldnoise"]
    out = subprocess.run([*command, "audit", "--example", "fleiss1971"], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(README.parent)},
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout == printed
