"""How long a shared link's page takes to turn into a clipping (trafilatura), on this machine.

Run: PYTHONPATH=daemon:. python eval_suite/bench_clipping.py
"""

from __future__ import annotations

import time


def main() -> None:
    started = time.perf_counter()
    import trafilatura  # noqa: F401  (the import the first clipping pays once)

    imported = time.perf_counter() - started
    from tests.share.conftest import ARTICLE

    from commonplace.capture.clipping import extract_text

    paragraph = "<p>Paragraph {} about pruning roses in late winter, above an outward bud.</p>"
    big = "<html><body><article>" + "".join(paragraph.format(i) for i in range(2000))
    big += "</article></body></html>"
    print(f"trafilatura import: {imported * 1000:.0f} ms")
    for name, page, runs in (
        ("article, 1 KB", ARTICLE, 20),
        (f"page, {len(big) // 1024} KB", big, 3),
    ):
        started = time.perf_counter()
        for _ in range(runs):
            extract_text(page, "https://garden.example/x")
        each = (time.perf_counter() - started) / runs
        print(f"{name}: {each * 1000:.1f} ms per extraction")


if __name__ == "__main__":
    main()
