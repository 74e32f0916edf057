"""Update payloads as Telegram sends them: messages, stickers, button presses, inline queries."""

from __future__ import annotations

import copy
import itertools
import re
import time
from typing import Any

from testkit.telegram_html import utf16_len


class Updates:
    """Builds update dicts like Telegram's (users, chats, entities with UTF-16 offsets)."""

    def __init__(
        self,
        bot_username: str = "icml_papers_bot",
        bot_id: int = 123456,
        *,
        language_code: str | None = None,
    ) -> None:
        self.bot_username = bot_username
        self.bot_id = bot_id
        self.language_code = language_code
        """The senders' Telegram language (IETF tag, e.g. "zh-hans"); None sends none."""
        self._message_ids = itertools.count(1)
        self._query_ids = itertools.count(1)

    def speaking(self, language_code: str | None) -> Updates:
        """These updates from senders whose Telegram is in `language_code` (ids stay unique)."""
        other = copy.copy(self)  # shares the id counters: Telegram's ids never repeat
        other.language_code = language_code
        return other

    @staticmethod
    def user(
        user_id: int = 1001,
        *,
        is_bot: bool = False,
        name: str = "Ada",
        language_code: str | None = None,
    ) -> dict[str, Any]:
        """A user, with a `language_code` when given (as Telegram sends for most users)."""
        user: dict[str, Any] = {
            "id": user_id,
            "is_bot": is_bot,
            "first_name": name,
            "username": f"u{user_id}",
        }
        if language_code is not None:
            user["language_code"] = language_code
        return user

    @staticmethod
    def chat(chat_id: int, chat_type: str = "private") -> dict[str, Any]:
        """A chat; groups get a title."""
        chat: dict[str, Any] = {"id": chat_id, "type": chat_type}
        if chat_type == "private":
            chat["first_name"] = "Ada"
        else:
            chat["title"] = "ML reading group"
        return chat

    @staticmethod
    def entities(text: str) -> list[dict[str, Any]]:
        """bot_command at the start, and @mentions, as Telegram detects them."""
        found = []

        def add(kind: str, start: int, end: int) -> None:
            offset = utf16_len(text[:start])
            found.append({"type": kind, "offset": offset, "length": utf16_len(text[start:end])})

        command = re.match(r"/[A-Za-z0-9_]{1,64}(@[A-Za-z0-9_]{3,32})?", text)
        if command:
            add("bot_command", 0, command.end())
        for mention in re.finditer(r"(?<![\w@])@[A-Za-z0-9_]{5,32}", text):
            add("mention", mention.start(), mention.end())
        return found

    def message(
        self,
        text: str,
        *,
        chat_id: int = 1001,
        chat_type: str = "private",
        user_id: int | None = None,
        from_bot: bool = False,
        reply_to: dict[str, Any] | None = None,
        edited: bool = False,
        message_id: int | None = None,
    ) -> dict[str, Any]:
        """A `message` (or `edited_message`) update carrying `text`."""
        message: dict[str, Any] = {
            "message_id": message_id if message_id is not None else next(self._message_ids),
            "date": int(time.time()),
            "chat": self.chat(chat_id, chat_type),
            "from": self.user(
                user_id if user_id is not None else abs(chat_id),
                is_bot=from_bot,
                language_code=self.language_code,
            ),
            "text": text,
        }
        entities = self.entities(text)
        if entities:
            message["entities"] = entities
        if reply_to is not None:
            message["reply_to_message"] = reply_to
        if edited:
            message["edit_date"] = int(time.time())
        return {"edited_message" if edited else "message": message}

    def sticker(self, *, chat_id: int = 1001) -> dict[str, Any]:
        """A private sticker message (no text)."""
        return {
            "message": {
                "message_id": next(self._message_ids),
                "date": int(time.time()),
                "chat": self.chat(chat_id),
                "from": self.user(chat_id, language_code=self.language_code),
                "sticker": {
                    "file_id": "CAAC",
                    "file_unique_id": "AgAD",
                    "type": "regular",
                    "width": 512,
                    "height": 512,
                    "is_animated": False,
                    "is_video": False,
                },
            }
        }

    def callback(
        self, data: str, *, message: dict[str, Any] | None, user_id: int = 1001
    ) -> dict[str, Any]:
        """A `callback_query` update for a button on `message` (None: an inaccessible one)."""
        query: dict[str, Any] = {
            "id": f"cq{next(self._query_ids)}",
            "from": self.user(user_id, language_code=self.language_code),
            "chat_instance": "ci-1",
            "data": data,
        }
        if message is not None:
            query["message"] = message
        return {"callback_query": query}

    def inline(self, query: str, *, user_id: int = 1001) -> dict[str, Any]:
        """An `inline_query` update."""
        return {
            "inline_query": {
                "id": f"iq{next(self._query_ids)}",
                "from": self.user(user_id, language_code=self.language_code),
                "query": query,
                "offset": "",
            }
        }
