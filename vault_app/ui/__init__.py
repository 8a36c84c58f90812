"""The PySide6 desktop app over the core, search and watch libraries (spec §8).

Design
------
Everything the window knows about the vault goes through one `session.Session` (a
QObject): it owns the `core.vault.Vault`, the search engine, a QUndoStack and two thread
pools, and it announces what changed through signals. Widgets never touch the disk
themselves and never block the GUI thread:

* `session.Session.run(fn, on_done, on_error)` runs any slow call (scan, entity read,
  search, context build, synthesis dry run) on a worker thread and hands the result back
  on the GUI thread.
* `session.Session.write(...)` runs a write on the single *writer* thread (so writes stay
  in the order the user made them), then emits `entityChanged` / `documentChanged` /
  `dailyChanged` so that only the affected views reload. A refused or failed write comes
  back as `session.Session.error` in plain words (`session.describe`), never as a crash.
* Every edit made in the window is a QUndoCommand (`commands`) pushed on
  `session.undo_stack`; undo never deletes a fact (an added fact is retracted, a
  superseded one reinstated; see `core.vault.Vault.set_fact_status`).

Modules
-------
session      the Session, workers, plain-words error messages
models/      Qt item models: sidebar tree, facts table (+ filter proxy), tier badge, flat lists
entity_page  an entity: header, rendered summary (edit/save), the facts table with filters
fact_lineage under the facts table: the selected fact's history and related entities
fact_dialog  add / supersede a fact, with validation and related-entity completion
fact_changes the fact dialog's live sync: the fact as on disk now, and its changed bar
related_entities  the addresses the last scan knows, relatedEntities ids, their completer
commands     the QUndoCommands for every edit
search_panel the search dock (Ctrl+Shift+F): mode, filters, debounced results
search_results  the dock's results: rows built on the worker, their model and delegate
documents    markdown documents (TACIT, CONTEXT, AGENTS.md, summary): rendered / edit / save
document_target  which document a pane shows, and how it is read, saved and started
conflicts    tinted banners; conflict bar, merge note, conflict highlighting, diff dialog
daily        daily notes: calendar marking days with notes, the day's entries, append box
context_view what the context builder would give an agent, with its budget meters
dashboard    decay dashboard: tier chart, facts going cold soon, synthesis with diff preview
             (its figures come from `core.outlook`), laid out from the three below
tier_chart   the dashboard's chart: facts per tier, one bar per scope
going_cold   the dashboard's table of the facts going cold
synthesis_preview  the summaries a synthesis would change, each with a coloured diff
waiting_names  the names the heartbeat met but made no entity of yet, and Keep now
switcher     the quick switcher (Ctrl+P)
settings     the settings dialog (decay thresholds, synthesis, model, access, theme)
themes       light and dark palettes
main_window  the main window: sidebar, pages, search dock, menus
recent_vaults  the last and recent vaults, in QSettings (File › Open recent)
activity_page  the Activity page (Ctrl+Shift+L): the heartbeat's runs and the recent writes
             of agents, the heartbeat and people, filterable, live; opens what a write changed
             (a vault's logs, or a neighbour's folder's audit log: `VaultActivity`,
             `FolderActivity`)
review_page  the Review page (Ctrl+Shift+R): agent writes the injection scan held back,
             each as a diff with who, when and why; approve or reject; the count badge
review_store  where the Review page's queue is and how a decision is applied: a vault's
             (`core.review`) or a neighbour's folder's (`core.neighbours.agents`)
heartbeat_runner  the app runs the heartbeat's schedule (a worker thread, the lease) when
             nothing else does
agent_page   an agent's page: TACIT, CONTEXT, daily notes, context preview
status_bar   the status bar: vault, counts, live sync, search index
app          the composition root: QApplication, settings, vault, first window (`run`)
"""
