"""The eval suite: measure search, tidying, answers and the digest against a real model server.

`commonplace eval <suite>` runs a suite (runner.py) over its dataset in eval_suite/datasets/,
keeps every output under eval_suite/runs/, and writes a sheet for a person's grades
(sheets.py); the program's own grades (grading.py) are a first guess, never the truth.

May import: ask, assistant, basics, calendar, capture, config, digest, index, llm, speech, tidy,
vault.
"""
