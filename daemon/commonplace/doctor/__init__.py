"""`commonplace doctor`: one line per check, each saying what to do when it fails (checks.py);
and `python -m commonplace.doctor.imports`, which imports every module of an installed program.

May import: assistant, attachments, calendar, config, daemon, firstrun, llm, runtime, tidy,
vault, weather.
"""
