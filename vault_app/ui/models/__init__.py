"""Qt item models over the core; they adapt core objects and never touch widgets (views
render; `entity_page` wires).

base        the item data roles, the tier colours, the `ReadOnlyColumns` mixin (header and
            flags of a read-only model with named columns) and `RowListModel` (flat lists:
            search results, the quick switcher's matches); `draw_item_frame`, an item's
            background as the style draws it, for delegates that paint their own text
sidebar     `SidebarModel`: the vault as a tree with fact counts, updated in place
facts       `FactsModel`, the facts of one entity, and `FactsFilterProxy`
tier_badge  `TierBadgeDelegate`: a tier painted as a coloured pill
activity    the Activity page's tables (`RunsModel`, `WritesModel`) and their `Filter`

The names the views use are importable from here too (`models.FactsModel`).
"""

from vault_app.ui.models.base import (
    FACT_ROLE,
    NODE_ROLE,
    SORT_ROLE,
    TIER_COLOURS,
    TIER_ROLE,
    ReadOnlyColumns,
    RowListModel,
    disabled_text,
    draw_item_frame,
)
from vault_app.ui.models.facts import FactsFilterProxy, FactsModel, is_retracted, status_text
from vault_app.ui.models.sidebar import PROBLEM_COLOUR, Node, SidebarModel
from vault_app.ui.models.tier_badge import TierBadgeDelegate, badge_text_colour

__all__ = [
    "FACT_ROLE",
    "NODE_ROLE",
    "PROBLEM_COLOUR",
    "SORT_ROLE",
    "TIER_COLOURS",
    "TIER_ROLE",
    "FactsFilterProxy",
    "FactsModel",
    "Node",
    "ReadOnlyColumns",
    "RowListModel",
    "SidebarModel",
    "TierBadgeDelegate",
    "badge_text_colour",
    "disabled_text",
    "draw_item_frame",
    "is_retracted",
    "status_text",
]
