"""The window's pages: what the page area shows, one view of the vault each (an entity, an
agent, the daily notes, the dashboard, Activity, the review queue...), and the search dock."""
