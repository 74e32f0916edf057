"""All disk state of the index: cache files, the corpus key and stamps, the columns of papers.

`cache.load_corpus_and_index` is the start-up path; `cache_file` the file format;
`key` the cache directory and a corpus's key (`stamps` spares re-hashing unchanged files);
`papers` and `columns` store papers as typed columns and read them back lazily.
Nothing is imported here, so `Index` can use `columns` without a cycle.
"""
