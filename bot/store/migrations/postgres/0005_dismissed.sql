-- Papers a user marked "not interested" in their recommendations; they never come
-- back and they shape later ones. /forget deletes them.
CREATE TABLE dismissed_papers (
    user_id BIGINT NOT NULL,
    paper_id TEXT NOT NULL,
    dismissed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, paper_id)
)
