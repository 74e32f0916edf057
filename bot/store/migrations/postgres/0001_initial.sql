-- Users own everything else; every write first locks the user's row (see postgres.py).
CREATE TABLE users (
    user_id BIGINT PRIMARY KEY,
    language TEXT
);

-- A snapshot of each saved paper; `id` orders the list (newest first) without clock ties.
CREATE TABLE saved_papers (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    paper_id TEXT NOT NULL,
    title TEXT NOT NULL,
    authors TEXT NOT NULL,
    year INTEGER,
    venue TEXT NOT NULL,
    url TEXT NOT NULL,
    doi TEXT NOT NULL,
    saved_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (user_id, paper_id)
);

CREATE INDEX saved_papers_by_user ON saved_papers (user_id, id);

CREATE TABLE topics (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    topic TEXT NOT NULL,
    topic_key TEXT NOT NULL,
    UNIQUE (user_id, topic_key)
);
