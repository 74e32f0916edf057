-- A title the bot derived from the abstract is marked, so exports never pass it off
-- as the authors' title (1 = derived).
ALTER TABLE saved_papers ADD COLUMN title_derived INTEGER NOT NULL DEFAULT 0;
