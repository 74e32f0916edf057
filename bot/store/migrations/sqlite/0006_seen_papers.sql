-- Every paper id an index served before it was replaced by a reload. Topic alerts
-- announce only ids never served, so restoring a corpus after a half-copied reload (the
-- missing papers come back) never re-alerts followers. Numbered 6: 0005 came first, and a
-- database at version 5 applies only migrations above it.
CREATE TABLE seen_papers (
    paper_id TEXT PRIMARY KEY
)
