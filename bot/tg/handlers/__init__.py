"""Telegram handlers: thin async glue from an update to the index and back as HTML."""
