"""Span readers and statistics against seqeval and scikit-learn on real CoNLL-2003 files.

Data (not bundled: the CoNLL-2003 text is Reuters' and licensed): the English test
set as published by the shared task (four columns: token, POS, chunk, NER; BIO tags)
and CoNLL++ (Wang et al. 2019, "CrossWeigh", EMNLP; the same test set with 309
label corrections). Each file is read as one annotator by
:func:`agreement.spans.read_conll` (the NER column, the last of four).

Compared on the same two files:

- span F1, pooled and per label (exact match), against ``seqeval``'s strict micro
  and per-label F1 (Ramshaw and Marcus's BIO spans, one file as the reference);
- token Cohen's κ, against ``sklearn.metrics.cohen_kappa_score`` on the raw tags,
  with goldnoise's ``token_agreement`` both from the decoded spans (the default)
  and from the raw tags (``tags="raw"``); the two readings agree on files whose
  tags are valid BIO, and differ where an ``I-`` has no ``B-`` before it (the
  result's notes then say so);
- the original retagged IOB1 (as the shared task published it: ``I-`` opens a span,
  ``B-`` only between two adjacent spans of one label), pooled F1 against seqeval's
  default (conlleval) reading of the same tags.

Run: ``PYTHONPATH=. python benchmarks/crosscheck_conll.py ORIGINAL CONLLPP``
(each file a CoNLL-2003 test file; skipped with a message when a path is missing).
"""

from __future__ import annotations

import sys
import tempfile
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import write_section

from _goldnoise_lib.errors import GoldnoiseWarning
from agreement.spans import read_conll, span_agreement, token_agreement


def _sentences(path: Path) -> list[list[str]]:
    out, cur = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("-DOCSTART-"):
            continue
        if not line.strip():
            if cur:
                out.append(cur)
                cur = []
        else:
            cur.append(line.split()[-1])
    if cur:
        out.append(cur)
    return out


def _to_iob1(path: Path, out: Path) -> None:
    """The same file tagged IOB1 (as the shared task's eng.testb was published):
    ``B-`` only where a span follows a span of the same label."""
    lines, prev = [], "O"
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("-DOCSTART-"):
            lines.append(line)
            prev = "O"
            continue
        cols = line.split()
        tag = cols[-1]
        if tag.startswith("B-") and not (prev != "O" and prev[2:] == tag[2:]):
            cols[-1] = "I-" + tag[2:]
        prev = tag
        lines.append(" ".join(cols))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(original: Path, conllpp: Path) -> str:
    from seqeval.metrics import classification_report, f1_score
    from sklearn.metrics import cohen_kappa_score

    spans = read_conll([original, conllpp], annotators=["original", "conllpp"])
    res = span_agreement(spans)
    labels = res.by_label
    a, b = _sentences(original), _sentences(conllpp)
    report = classification_report(a, b, digits=6, output_dict=True)
    flat_a = [t for s in a for t in s]
    flat_b = [t for s in b for t in s]
    rows = ["| statistic | goldnoise | reference | reference value |",
            "|---|---|---|---|",
            f"| pooled span F1 (exact) | {res.f1:.6f} | seqeval strict micro F1 | "
            f"{f1_score(a, b, mode='strict'):.6f} |"]
    for lab, row in labels.iterrows():
        rows.append(f"| F1 {lab} | {row['f1']:.6f} | seqeval {lab} F1 | "
                    f"{report[lab]['f1-score']:.6f} |")
    k_spans = token_agreement(spans).loc["Cohen's kappa", "value"]
    k_raw = token_agreement(spans, tags="raw").loc["Cohen's kappa", "value"]
    k_ref = cohen_kappa_score(flat_a, flat_b)
    rows.append(f"| token Cohen's κ (tags from spans) | {k_spans:.6f} | "
                f"sklearn cohen_kappa_score, raw tags | {k_ref:.6f} |")
    rows.append(f"| token Cohen's κ (`tags=\"raw\"`) | {k_raw:.6f} | "
                f"sklearn cohen_kappa_score, raw tags | {k_ref:.6f} |")
    with tempfile.TemporaryDirectory() as tmp:
        iob1 = Path(tmp) / "original_iob1.txt"
        _to_iob1(original, iob1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", GoldnoiseWarning)  # IOB1's orphan I- tags
            f1_iob1 = span_agreement(read_conll([iob1, conllpp])).f1
        a1 = _sentences(iob1)
    rows.append(f"| pooled span F1, original retagged IOB1 | {f1_iob1:.6f} | "
                f"seqeval default micro F1, IOB1 | {f1_score(a1, b):.6f} |")
    body = ("CoNLL-2003 English test set, original against CoNLL++ (each file one "
            f"annotator; {len(flat_a)} tokens, {len(a)} sentences): goldnoise's span "
            "readers and statistics beside seqeval 1.2 and scikit-learn on the same "
            "files.\n\n" + "\n".join(rows) + "\n")
    return body


if __name__ == "__main__":
    paths = [Path(p) for p in sys.argv[1:3]]
    if len(paths) != 2 or not all(p.is_file() for p in paths):
        print("usage: crosscheck_conll.py ORIGINAL_TEST CONLLPP_TEST (both CoNLL-2003 "
              "test files; not bundled)")
        sys.exit(0)
    text = main(*paths)
    print(text)
    write_section("crosscheck_conll", text)
