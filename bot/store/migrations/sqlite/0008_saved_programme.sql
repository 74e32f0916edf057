-- What exports say of a saved paper's place in the conference programme, kept with the
-- snapshot so it outlives the corpus: its tier ("oral", "spotlight", "poster" or ""), its
-- presentations (a JSON list of {kind, session, start, end, room, position, event}, times in
-- ISO 8601 with the venue's offset) and its authors' institutions (a JSON list of names).
ALTER TABLE saved_papers ADD COLUMN status TEXT NOT NULL DEFAULT '';
ALTER TABLE saved_papers ADD COLUMN presentations TEXT NOT NULL DEFAULT '[]';
ALTER TABLE saved_papers ADD COLUMN institutions TEXT NOT NULL DEFAULT '[]'
