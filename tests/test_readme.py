"""The README and the guide pages (docs/**/*.md) show what the code does.

* every ```python / ```pycon block runs on its own (fresh names, an empty working folder)
  and prints what the page shows (doctest);
* every ```console block runs its ``$ goldnoise ...`` commands (in a folder holding the
  files the page shows as ```{code-block} ... :caption: NAME blocks) and prints, line for
  line, what the page shows; a command with output shown anywhere else is an error;
* an output excerpt (a ```text block after ``<!-- excerpt of: COMMAND -->``) appears in what
  COMMAND prints, in order; with ``excerpt of, in DIR:`` the command runs in the shared
  crowd data's DIR (skipped without it);
* every ``goldnoise ...`` line of a ```bash block is accepted by the command's parser;
* every time figure says where it was measured; the input options and layouts are all
  documented; the README lists every verb; the README's test command is what CI runs.
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
GUIDE = DOCS / "guide"

FENCE = re.compile(r"^```(\{code-block\}[^\n]*|[\w-]*)\n(.*?)^```$", re.S | re.M)
CAPTION = re.compile(r"^:caption: (\S+)\n\n", re.M)
EXCERPT = re.compile(r"<!-- excerpt of(?:, in (\S+))?: (goldnoise [^\n]*?) -->\n\n```text\n(.*?)```",
                     re.S)


def pages() -> list[Path]:
    # docs/benchmarks/ is written from benchmarks/RESULTS.md at every build (not a page of
    # its own text); the API stubs are written from the docstrings
    docs = [p for p in sorted(DOCS.rglob("*.md"))
            if "_build" not in p.parts and "generated" not in p.parts
            and p.parent != DOCS / "benchmarks"]
    return [README, *docs]


def blocks(kinds: tuple[str, ...]) -> list[tuple[Path, int, str, str]]:
    """(page, line, kind, body) of every fenced block of one of ``kinds``."""
    out = []
    for page in pages():
        text = page.read_text()
        for m in FENCE.finditer(text):
            if m.group(1) in kinds:
                out.append((page, text[:m.start()].count("\n") + 1, m.group(1), m.group(2)))
    return out


def _id(block: tuple[Path, int, str, str]) -> str:
    return f"{block[0].relative_to(ROOT)}:{block[1]}"


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``goldnoise *argv`` in this process (``main``, output captured; an interpreter a
    command cost a second of CPU), in ``cwd``."""
    import contextlib
    import io

    from goldnoise._cli import main

    stdout, stderr, here = io.StringIO(), io.StringIO(), Path.cwd()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        try:
            os.chdir(cwd)
            status = main(list(argv))
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
        finally:
            os.chdir(here)
    return subprocess.CompletedProcess(["goldnoise", *argv], status, stdout.getvalue(),
                                       stderr.getvalue())


def page_files(page: Path) -> dict[str, str]:
    """The files a page shows as ```{code-block} blocks with a :caption:."""
    files = {}
    for m in FENCE.finditer(page.read_text()):
        if m.group(1).startswith("{code-block}"):
            cap = CAPTION.match(m.group(2))
            if cap:
                files[cap.group(1)] = m.group(2)[cap.end():]
    return files


PYTHON = blocks(("python", "pycon"))
CONSOLE = blocks(("console",))
BASH = blocks(("bash",))


def test_the_pages_are_found():
    names = {p.name for p in pages()}
    assert {"README.md", "index.md", "noise-bound.md", "reannotation.md"} <= names
    assert len(PYTHON) >= 30 and len(CONSOLE) >= 12


@pytest.mark.parametrize("block", PYTHON, ids=_id)
def test_python_block_runs_alone_and_prints_what_is_shown(block, tmp_path, monkeypatch):
    page, line, _, body = block
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(body, {}, _id(block), str(page), line)
    assert test.examples, f"{_id(block)}: a code block without >>> examples is never run"
    runner = doctest.DocTestRunner(
        optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, verbose=False)
    failures: list[str] = []
    runner.run(test, out=failures.append, clear_globs=True)
    assert runner.failures == 0, "".join(failures)


@pytest.mark.parametrize("block", CONSOLE, ids=_id)
def test_console_block_prints_what_is_shown(block, tmp_path):
    page, _, _, body = block
    for name, text in page_files(page).items():
        (tmp_path / name).write_text(text)
    lines = body.rstrip("\n").split("\n")
    starts = [i for i, text in enumerate(lines) if text.startswith("$ ")]
    assert starts and starts[0] == 0, f"{_id(block)}: a console block starts with '$ goldnoise'"
    for k, i in enumerate(starts):
        argv = shlex.split(lines[i][2:])
        assert argv[0] == "goldnoise", lines[i]
        shown = lines[i + 1: starts[k + 1] if k + 1 < len(starts) else len(lines)]
        out = _run(argv[1:], tmp_path)
        assert out.returncode == 0, out.stderr
        got = [text.rstrip() for text in out.stdout.rstrip("\n").split("\n")]
        assert got == [text.rstrip() for text in shown], lines[i]


def test_no_command_output_is_shown_without_being_run():
    # Output pasted under "$ goldnoise ..." in a text block is never checked and goes stale
    # (a 'simulate' example once showed another run's numbers, tie order and voter names).
    for page, line, kind, body in blocks(("text", "", "bash", "python", "pycon")):
        for text in body.split("\n"):
            assert not text.startswith("$ goldnoise"), (
                f"{page.name}:{line}: '$ goldnoise' in a {kind or 'plain'} block; "
                "use a console block (its output is compared) or a bash block without output")


def _excerpts() -> list[tuple[Path, str | None, str, str]]:
    return [(page, m.group(1), m.group(2), m.group(3))
            for page in pages() for m in EXCERPT.finditer(page.read_text())]


def _in_order(shown: str, printed: str) -> bool:
    """The chunks of ``shown`` between lines '...' occur in ``printed``, in order."""
    at = 0
    for chunk in re.split(r"^\s*\.\.\.\s*$\n?", shown, flags=re.M):
        chunk = chunk.strip("\n")
        if not chunk:
            continue
        at = printed.find(chunk, at)
        if at < 0:
            return False
        at += len(chunk)
    return True


@pytest.mark.parametrize("excerpt", [e for e in _excerpts() if e[1] is None],
                         ids=lambda e: f"{e[0].name}: {e[2]}")
def test_output_excerpt_is_what_the_command_prints(excerpt, tmp_path):
    page, _, command, shown = excerpt
    out = _run(shlex.split(command)[1:], tmp_path)
    assert out.returncode == 0, out.stderr
    assert _in_order(shown, out.stdout), f"{page.name}: {command}\n{out.stdout}"


@pytest.mark.shared_data
@pytest.mark.parametrize("excerpt", [e for e in _excerpts() if e[1] is not None],
                         ids=lambda e: f"{e[0].name}: {e[1]}")
def test_output_excerpt_on_crowd_data_is_what_the_command_prints(excerpt, shared_data):
    page, folder, command, shown = excerpt
    out = _run(shlex.split(command)[1:], shared_data / folder)
    assert out.returncode == 0, out.stderr
    assert _in_order(shown, out.stdout), f"{page.name}: {command}\n{out.stdout}"


def test_excerpts_are_found():
    assert any(e[1] is None for e in _excerpts()) and any(e[1] for e in _excerpts())


def _goldnoise_commands(body: str) -> list[str]:
    joined = re.sub(r"\\\n\s*", " ", body)
    out = []
    for line in joined.split("\n"):
        line = line.split("  #", 1)[0]
        for part in line.split("&&"):
            part = part.strip()
            if part.startswith("goldnoise "):
                out.append(part)
    return out


def test_every_bash_command_is_accepted_by_the_parser(capsys):
    from goldnoise._cli import build_parser

    parser = build_parser()
    seen = 0
    for page, line, _, body in BASH:
        for command in _goldnoise_commands(body):
            try:
                parser.parse_args(shlex.split(command)[1:])
            except SystemExit:
                pytest.fail(f"{page.name}:{line}: the parser refuses {command!r}: "
                            f"{capsys.readouterr().err}")
            seen += 1
    assert seen >= 15


TIME = re.compile(r"\b\d[\d.,]*\s?(?:µs|ms|s|seconds?|minutes?|hours?)\b(?! \d)")


def _prose(text: str) -> list[str]:
    """Paragraphs outside fenced blocks and tables."""
    text = FENCE.sub("", text)
    return [p for p in re.split(r"\n\s*\n", text)
            if p.strip() and not p.lstrip().startswith("|")]


def test_every_time_figure_says_where_it_was_measured():
    # A time without its source goes stale ("3.4 s on 2 cores" measured 8 s of CPU).
    for page in pages():
        if page.name in ("benchmarks.md", "changelog.md"):
            continue
        for paragraph in _prose(page.read_text()):
            if TIME.search(paragraph):
                assert re.search(r"measured|benchmarks|bench_\w+\.py", paragraph), (
                    f"{page.name}: a time figure without where it was measured:\n{paragraph}")


def test_every_input_option_and_layout_is_documented():
    # --layout contingency, --weight and --drop were once never mentioned.
    from goldnoise._cli import build_parser

    audit = build_parser()._subparsers._group_actions[0].choices["audit"]
    group = next(g for g in audit._action_groups if g.title == "input")
    guide = "\n".join(p.read_text() for p in sorted(GUIDE.glob("*.md")))
    for action in group._group_actions:
        for option in action.option_strings:
            assert f"`{option}" in guide, option
        if "--layout" in action.option_strings:
            for choice in action.choices:
                assert f"`{choice}`" in guide or f"--layout {choice}" in guide, choice


def test_readme_lists_every_verb_and_points_to_the_guide():
    from goldnoise._cli import VERBS

    text = README.read_text()
    for verb in VERBS:
        assert f"`{verb}`" in text or f"goldnoise {verb}" in text, verb
    assert "docs/" in text and "sphinx-build" in text


def test_guide_tables_of_packages_and_verbs_are_generated():
    # The hand-kept tables once lacked consistency, replay and a dozen functions: they are
    # written from the package indexes and the verb registry when the site is built
    # (tests/test_docs.py checks the built page holds every name).
    text = (GUIDE / "packages.md").read_text()
    assert "{goldnoise-packages}" in text and "{goldnoise-verbs}" in text


def test_the_replay_example_states_its_time():
    text = (GUIDE / "reannotation.md").read_text()
    block = text.index("compare_policies(x,")
    after = text[block:].split("```", 1)[1].split("\n\n")[1]
    assert "compare_policies" in text and "measured" in after and TIME.search(after), after


def test_readme_is_short_and_starts_with_the_set_up_commands():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    first = ("python3 -m venv .venv && . .venv/bin/activate && pip install -e . && "
             "goldnoise audit --example fleiss1971")
    commands = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    assert commands[0].strip() == first
    assert commands[1].strip() == TEST_COMMAND


TEST_COMMAND = ('python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[test,docs]" '
                "&& pytest")


def test_readme_commands_match_ci():
    # The README's test command is what .ci/run runs, word for word.
    ci = (ROOT / ".ci" / "run").read_text()
    assert TEST_COMMAND in README.read_text()
    assert TEST_COMMAND in ci
