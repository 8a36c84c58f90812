"""The labeled search evaluation set (see build.py)."""
