"""Find ICML 2026 papers from a chat: BM25 search behind a Telegram bot."""
