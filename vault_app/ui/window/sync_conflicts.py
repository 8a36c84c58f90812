"""Syncthing conflicts the watcher could not merge, in the window: said, and merged by hand.

The watcher merges a conflict copy as it arrives (`core.sync_files`); a document changed
on the same lines on two devices is left for a person and reported
(`Session.syncConflicts`). The window says so in its message bar — which file, that both
devices changed the same lines — with **Merge…**: the two versions cut into changes
(`core.merge.plan`, against the ancestor `sync_files.plan` chooses), each to keep from this
device, the other or both (`diff_view.MergeDialog`), then written over exactly the version
it was merged against (`sync_files.resolve`: refused if the file moved on meanwhile) and
the copy put away. A result with a change still marked is not written, and a merge
cancelled or refused leaves the message (Merge… again) until the conflict is resolved.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from vault_app.core import merge, sync_files
from vault_app.ui.widgets.diff_view import MergeDialog

if TYPE_CHECKING:
    from vault_app.ui.main_window import MainWindow

KEY = "sync-conflict"


def install(window: MainWindow) -> None:
    window.session.syncConflicts.connect(lambda copies: show(window, copies))


def show(window: MainWindow, copies: tuple[str, ...]) -> None:
    """One message for each copy left for a person, with Merge…."""
    root = window.session.vault.root
    for relative in copies:
        copy = root / relative

        def merge_it(c: Path = copy) -> None:
            open_merge(window, c)

        original = sync_files.original_of(copy)
        name = window.session.vault.paths.relative(original) if original else relative
        window.message_bar.dismiss_key(f"{KEY}:{relative}")  # said once, the latest
        window.message_bar.show_message(
            "A sync conflict needs you",
            f"{name} was changed on this device and on another at the same time, on the "
            "same lines. Nothing is lost: the other device's version waits beside it "
            f"({copy.name}). Merge… shows both, change by change.",
            ("Merge…", merge_it),
            key=f"{KEY}:{relative}",
        )


def open_merge(window: MainWindow, copy: Path) -> None:
    """Read both versions and their ancestor on a worker, then show the merge dialog."""
    session = window.session
    session.run(
        lambda: sync_files.plan(session.vault, copy),
        lambda planned: _choose(window, copy, planned),
    )


def _choose(window: MainWindow, copy: Path, planned: tuple[str, str | None, str, str]) -> None:
    base, digest, ours, theirs = planned
    original = sync_files.original_of(copy)
    name = original.name if original else copy.name
    dialog = MergeDialog(
        name,
        merge.plan(base, ours, theirs),
        window,
        why=f"{name} was changed here (mine) and on another device (theirs) at once.",
        apply_text="Merge",
        apply_tip="Write the merged text to the file; the other version is kept in .vault/sync",
    )
    window.sync_merge_dialog = dialog

    def done(result: int) -> None:
        window.sync_merge_dialog = None
        if result:
            _write(window, copy, dialog.merged(), digest)
        else:  # cancelled: the conflict is still there, and said so again
            show(window, (window.session.vault.paths.relative(copy),))

    dialog.finished.connect(done)
    dialog.open()


def _write(window: MainWindow, copy: Path, merged: merge.MergeResult, digest: str | None) -> None:
    session = window.session
    if merged.conflicts:
        show(window, (session.vault.paths.relative(copy),))  # under the reason, still there
        session.error.emit(
            "Not merged yet",
            f"{merged.conflicts} change{'s are' if merged.conflicts > 1 else ' is'} still "
            "marked: choose this device's, the other's or both for each, then Merge.",
        )
        return
    original = sync_files.original_of(copy)

    def done(_kept: Any) -> None:
        window.message_bar.dismiss_key(f"{KEY}:{session.vault.paths.relative(copy)}")
        session.notice.emit(
            f"Merged {original.name if original else copy.name}",
            "Both devices' changes are in it; the other device's version is kept in "
            ".vault/sync/merged.",
        )

    def failed(exc: BaseException) -> None:  # the file moved on meanwhile, say: again
        show(window, (session.vault.paths.relative(copy),))
        session.report(exc)

    session.write(
        lambda v: sync_files.resolve(v, copy, merged.text, expected=digest),
        done,
        failed,
        documents=(original,) if original else (),
        rescan=True,
    )
