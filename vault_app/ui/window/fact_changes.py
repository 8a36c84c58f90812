"""A fact that changed on disk while the fact dialog edits it: what is on disk now, and the
bar that asks the user what to do.

`read_lineage` (worker thread) reads the edited fact again and follows its lineage to the
active version, into archives or another entity if it moved; `DiskFact.differs_from` says
whether that is still the version the form knew (`edited_fields`: what the form edits, not
the access counts readers update). `FactChangedBar` shows their version with "Use theirs"
and "Keep mine"; what each does is the dialog's (`fact_dialog`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6 import QtCore, QtWidgets

from vault_app.core import errors, models, vault
from vault_app.ui.widgets.conflicts import Banner

Qt = QtCore.Qt


@dataclass(frozen=True)
class DiskFact:
    """A fact as it is now on disk, and the active version its lineage leads to."""

    fact: models.Fact | None  # None: the fact is no longer found in the vault
    head: models.Fact | None  # the active version (maybe `fact` itself); None: withdrawn
    address: str  # the entity holding `head` (else the one that was asked)
    error: errors.CorruptFileError | None = None  # the entity's facts cannot be read

    def differs_from(self, fact: models.Fact) -> bool:
        """Whether `fact` is no longer the active version, as the form knew it."""
        if self.error is not None:
            return False
        if self.head is None:
            return True
        return self.head.id != fact.id or edited_fields(self.head) != edited_fields(fact)


def edited_fields(fact: models.Fact) -> tuple[Any, ...]:
    """What the form edits of a fact (not its access counts, which readers update)."""
    return (
        fact.fact,
        fact.category,
        tuple(fact.related_entities),
        float(fact.confidence),
        fact.source_text,
    )


def read_lineage(v: vault.Vault, address: str, fact_id: str) -> DiskFact:
    """Read `fact_id` from `address` (worker thread) and follow `supersededBy` to the
    active version; a fact or successor found elsewhere (archived, moved) is followed."""
    try:
        view: vault.EntityFacts | None = v.entity(address)
    except errors.NotFoundError:
        view = None
    if view is not None and view.error is not None:
        return DiskFact(None, None, address, view.error)
    local = {fact.id: fact for fact in view.facts} if view is not None else {}

    def find(fid: str) -> tuple[str, models.Fact] | None:
        if fid in local:
            return address, local[fid]
        try:
            ref, fact = v.fact(fid)
        except (errors.NotFoundError, errors.CorruptFileError):  # (an entry left out)
            return None
        return str(ref), fact

    found = find(fact_id)
    if found is None:
        return DiskFact(None, None, address)
    where, fact = found
    places = {fact.id: where}

    def successor(fid: str) -> models.Fact | None:
        hit = find(fid)
        if hit is None:
            return None
        places[hit[1].id] = hit[0]
        return hit[1]

    step = models.walk_lineage(fact, successor, older=False).chain[-1]
    return DiskFact(fact, step if step.is_active else None, places[step.id])


class FactChangedBar(Banner):
    """Inside the fact dialog: the fact changed on disk while it was being edited."""

    useTheirs = QtCore.Signal()
    keepMine = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("#e8a200", parent)
        self.label = QtWidgets.QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setWordWrap(True)  # takes the width it is given, not its narrow hint
        self.label.setSizePolicy(
            QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Preferred
        )
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.theirs_button = QtWidgets.QPushButton("&Use theirs")
        self.mine_button = QtWidgets.QPushButton("&Keep mine")
        for button in (self.theirs_button, self.mine_button):
            button.setAutoDefault(False)
        self.theirs_button.clicked.connect(self.useTheirs)
        self.mine_button.clicked.connect(self.keepMine)
        icon = QtWidgets.QLabel()
        warning = self.style().standardIcon(QtWidgets.QStyle.StandardPixmap.SP_MessageBoxWarning)
        icon.setPixmap(warning.pixmap(20, 20))
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(10, 6, 6, 6)
        row.addWidget(icon)
        row.addWidget(self.label, 1)
        buttons = QtWidgets.QVBoxLayout()
        buttons.addWidget(self.theirs_button)
        buttons.addWidget(self.mine_button)
        row.addLayout(buttons)
        self.setAccessibleName("Fact changed on disk")
        self.hide()

    def show_change(self, disk: DiskFact) -> None:
        head = disk.head
        if head is None:
            gone = "is no longer in the vault" if disk.fact is None else "was withdrawn"
            self.label.setText(f"This fact {gone} on disk, and it has no newer version.")
            self.theirs_button.setToolTip("Close this form: there is no version left to edit")
            self.mine_button.setToolTip("Keep your text; saving adds it as a new fact")
        else:
            self.label.setText(f"This fact was changed on disk: “{head.fact}”")
            self.theirs_button.setToolTip(
                "Put their version in the form (Alt+U). Ctrl+Z in the Fact field brings "
                "your text back."
            )
            self.mine_button.setToolTip(
                "Keep your text (Alt+K); saving writes it as the next version, after theirs"
            )
        self.show()
