"""Ranking: BM25 over the analysed papers, the `Index`, filters, hits and their confidence."""
