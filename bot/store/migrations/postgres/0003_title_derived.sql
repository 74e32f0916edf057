-- A title the bot derived from the abstract is marked, so exports never pass it off
-- as the authors' title.
ALTER TABLE saved_papers ADD COLUMN title_derived BOOLEAN NOT NULL DEFAULT FALSE
