-- The clock a user reads times on (/timezone): an IANA name ("Europe/Berlin") or a fixed
-- offset ("+02:00"), as `bot.corpus.parse_zone` writes it; NULL: the venue's clock alone.
ALTER TABLE users ADD COLUMN timezone TEXT CHECK (length(timezone) <= 64)
