"""The window's dialogs: the fact editor, settings, the palette and the quick switcher,
restoring from backups, the synthesis preview, new entity and new vault."""
