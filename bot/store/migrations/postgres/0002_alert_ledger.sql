-- Which (user, paper) alerts were sent: a replica sends an alert only if it inserts the row,
-- so replicas reloading onto one database tell a follower about a paper once.
CREATE TABLE sent_alerts (
    user_id BIGINT NOT NULL,
    paper_id TEXT NOT NULL,
    sent_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, paper_id)
)
