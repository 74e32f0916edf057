"""How the index cache is stored: the file format (`cache_file`) and papers as columns."""
