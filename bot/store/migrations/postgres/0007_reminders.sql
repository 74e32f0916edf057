-- A user's reminder lead: minutes before each saved paper's presentation. No row: reminders
-- are off (the default). `language` is the one the user was answered in when they turned
-- reminders on, for a user who never chose one with /lang (users.language wins).
CREATE TABLE reminder_settings (
    user_id BIGINT PRIMARY KEY,
    minutes INTEGER NOT NULL CHECK (minutes BETWEEN 1 AND 120),
    language TEXT CHECK (length(language) <= 16)
);

-- Which (user, paper, presentation) reminders were sent: a replica sends a reminder only if
-- it inserts the row, so restarts, reloads and replicas remind of a presentation once.
-- Rows outlive removing the paper: saving it again does not remind of it twice.
CREATE TABLE sent_reminders (
    user_id BIGINT NOT NULL,
    paper_id TEXT NOT NULL CHECK (length(paper_id) BETWEEN 1 AND 64),
    presentation_key TEXT NOT NULL CHECK (length(presentation_key) BETWEEN 1 AND 64),
    sent_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, paper_id, presentation_key)
)
