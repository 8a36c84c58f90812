"""The main window's behaviours beside its layout: opening and switching vaults, the
first-run and error states, navigation, what agents changed since you looked, links kept
current, the documents' targets, signals that quit."""
