"""Pure pieces for real paper lists (issue 9), to be moved into `bot.corpus` by the lead."""
