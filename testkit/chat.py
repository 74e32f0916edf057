"""A conversation with the bot's `Application` in-process: updates are fed straight to it and
its answers read off the fake Bot API's recorded calls."""

from __future__ import annotations

from typing import Any

from telegram import Update
from telegram.ext import Application

from testkit.fake_bot_api import ApiCall, FakeBotApi, parse_html
from testkit.updates import Updates

USER = 1001


class Chat:
    """Sends updates to the Application and taps buttons on the fake API's messages."""

    def __init__(self, app: Application, api: FakeBotApi) -> None:
        self.app, self.api = app, api
        self.updates = Updates()
        self.ids = iter(range(1, 1_000_000))

    async def send(self, text: str, user: int = USER, chat_type: str = "private") -> None:
        """A message from `user`, in their private chat or in a group."""
        chat = user if chat_type == "private" else -100
        await self.feed(self.updates.message(text, chat_id=chat, user_id=user, chat_type=chat_type))

    async def tap(self, data: str, on: ApiCall, user: int = USER) -> None:
        """Tap a button carrying `data` on the message `on` sent, as `user`."""
        message = self.api.message_json(on.result["chat"]["id"], on.result["message_id"])
        await self.feed(self.updates.callback(data, message=message, user_id=user))

    async def feed(self, payload: dict[str, Any]) -> None:
        """Any update payload, numbered in order."""
        update = Update.de_json({"update_id": next(self.ids), **payload}, self.app.bot)
        await self.app.process_update(update)

    def last(self, method: str = "sendMessage") -> ApiCall:
        return self.api.calls_of(method)[-1]

    def last_text(self, method: str = "sendMessage") -> str:
        return parse_html(self.last(method).params["text"])

    def toast(self) -> str:
        return str(self.last("answerCallbackQuery").params.get("text") or "")
