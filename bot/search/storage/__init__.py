"""How the index cache is stored: the file format (`cache_file`) and papers as columns
(`columns`). `bot.search.cache` decides where the cache lives and when it is used."""
