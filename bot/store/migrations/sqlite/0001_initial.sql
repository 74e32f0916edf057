-- Users own everything else: deleting the row (forget_user) cascades.
CREATE TABLE users (
    user_id INTEGER PRIMARY KEY,
    language TEXT
);

-- A snapshot of each saved paper; `id` orders the list (newest first) without clock ties.
CREATE TABLE saved_papers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    paper_id TEXT NOT NULL,
    title TEXT NOT NULL,
    authors TEXT NOT NULL,
    year INTEGER,
    venue TEXT NOT NULL,
    url TEXT NOT NULL,
    doi TEXT NOT NULL,
    saved_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (user_id, paper_id)
);

CREATE INDEX saved_papers_by_user ON saved_papers (user_id, id);

CREATE TABLE topics (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (user_id) ON DELETE CASCADE,
    topic TEXT NOT NULL,
    topic_key TEXT NOT NULL,
    UNIQUE (user_id, topic_key)
);
