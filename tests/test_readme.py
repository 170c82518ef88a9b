"""Every ``>>>`` example in README.md runs and prints what the README says."""

from __future__ import annotations

import doctest
import re
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
