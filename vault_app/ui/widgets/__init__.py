"""Widgets the pages are made of: tables, charts, banners, editors, the status bar."""
