"""Dates of LoCoMo sessions ("1:14 pm on 25 May, 2023") reduced to the day, which dated headings carry."""

from __future__ import annotations

import re

DAY = re.compile(r"(\d{1,2}\s+[A-Z][a-z]+,?\s+\d{4})")


def day_of(date_time: str) -> str:
    m = DAY.search(date_time)
    return m.group(1) if m else date_time.strip()


def session_heading(index: int, date_time: str) -> str:
    return f"{day_of(date_time)} (session {index})"
