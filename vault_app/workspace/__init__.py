"""The workspace: a vault or a neighbour's folder, open for the faces.

The layer between the headless packages (core, search, watch, heartbeat) and the three
faces (the CLI, the window, the MCP server). It holds what every face needs and would
otherwise write itself:

* the open vault or folder as one object (`open_workspace`), the PARA-or-folder choice
  made once, when it opens: `VaultWorkspace` (a PARA vault, a `Vault` per agent) or
  `FolderWorkspace` (a Hermes home, a PicoClaw workspace, a MicroClaw runtime, as it is);
* the search engine's life, BM25 first and semantic when ready, with the notice
  meanwhile (`engine_life`), and the one mode fallback (the engine's own);
* search, then count an agent's hits as accessed (`VaultWorkspace.search`), and the
  scope an agent's search keeps to (`scope_for`, by the access policy);
* a watcher batch read as re-indexing (`reindex`);
* the heartbeat's embedding over the loaded model (`heartbeat_embed`);
* the review queue, a vault's or a folder's, with the same calls (`reviews`);
* the arguments faces receive as strings: dates, days, search filters (`arguments`).

No Qt here (a test proves it): the window observes a workspace, it does not own one.
Importing this package costs nothing: the engine (numpy, scipy, the model) is imported
when a workspace opens its index.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from vault_app.core import decay
    from vault_app.workspace.folder_workspace import FolderWorkspace
    from vault_app.workspace.vault_workspace import VaultWorkspace

    Workspace: TypeAlias = "VaultWorkspace | FolderWorkspace"


def open_workspace(
    root: Path | str,
    *,
    actor: str = "mcp",
    semantic: bool | None = None,
    clock: decay.Clock | None = None,
    watch: bool = True,
) -> Workspace:
    """The vault or neighbour's folder at `root` as a workspace: a `FolderWorkspace` when
    it is a neighbour's folder (detected by `core.neighbours`), else a `VaultWorkspace`
    (a path that is no vault is refused by `Vault` with the reason). `watch`: follow
    outside writes (a vault; a folder is re-read at each search). `clock`: the
    system's when not given."""
    from vault_app.core import decay, errors, layout
    from vault_app.core.neighbours import detect
    from vault_app.workspace import folder_workspace, vault_workspace

    clock = clock or decay.system_clock
    path = Path(root).expanduser()
    if path.is_dir() and detect.detect(path).format != detect.PARA:
        return folder_workspace.FolderWorkspace(path, semantic=semantic, clock=clock, actor=actor)
    if not layout.is_vault(path):
        raise errors.NotFoundError(f"no vault at {path}")
    return vault_workspace.VaultWorkspace(
        path, semantic=semantic, clock=clock, watch=watch, actor=actor
    )
