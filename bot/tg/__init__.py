"""The Telegram side: the Application, its typed state, handlers, admin, limits, webhook."""
