"""The kinds of searchable documents: a module of its own, without numpy, because the
window's search panel names them at start-up (numpy then loads with the index, on a
worker, after the window is shown)."""

FACT = "fact"
SUMMARY = "summary"
DAILY = "daily"
KINDS = (FACT, SUMMARY, DAILY)
