"""Figures the reliability tests want visible at the end of a pytest run (cases fuzzed, failures, recovery times):
tests append lines here and tests/reliability/conftest.py prints them in the terminal summary."""

from __future__ import annotations

LINES: list[str] = []


def note(line: str) -> None:
    LINES.append(line)
    print(line)  # also in the test's captured output
