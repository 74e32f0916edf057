"""The Bot API methods the fake server answers, with Telegram's checks and error answers."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

from testkit.telegram_html import (
    MAX_BUTTONS,
    MAX_BUTTONS_PER_ROW,
    MAX_CALLBACK_ANSWER_CHARS,
    MAX_INLINE_RESULTS,
    MAX_MESSAGE_CHARS,
    HtmlError,
    parse_html,
    utf16_len,
)

_WEBHOOK_SECRET = re.compile(r"^[A-Za-z0-9_-]{1,256}$")


MAX_CAPTION_CHARS = 1024  # Bot API: a document's caption, after entity parsing


@dataclass(frozen=True)
class UploadedFile:
    """A file the bot uploaded in a multipart request (e.g. sendDocument's `document`)."""

    filename: str
    content_type: str
    data: bytes


class ApiError(Exception):
    """An error answer: HTTP status = error_code, Telegram's envelope."""

    def __init__(self, code: int, description: str, retry_after: int | None = None) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
        self.retry_after = retry_after

    def envelope(self) -> dict[str, Any]:
        """The JSON body Telegram sends for this error."""
        body: dict[str, Any] = {
            "ok": False,
            "error_code": self.code,
            "description": self.description,
        }
        if self.retry_after is not None:
            body["parameters"] = {"retry_after": self.retry_after}
        return body


def bad_request(detail: str) -> ApiError:
    """A 400 like Telegram's."""
    return ApiError(400, f"Bad Request: {detail}")


class BotApiMethods:
    """`_m_<method>` answers, mixed into FakeBotApi: they use its state (`bot`, `messages`)."""

    def _dispatch(self, method: str, params: dict[str, Any]) -> Any:
        handler = getattr(self, f"_m_{method.lower()}", None)
        if handler is None:
            raise ApiError(404, "Not Found: method not found")
        return handler(params)

    def _m_getme(self, params: dict[str, Any]) -> Any:
        return self.bot

    def _m_setwebhook(self, params: dict[str, Any]) -> Any:
        url = str(params.get("url") or "")
        if url and not url.startswith("https://"):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        secret = params.get("secret_token")
        if secret is not None and not _WEBHOOK_SECRET.match(str(secret)):
            raise bad_request("secret token contains unallowed characters")
        allowed = params.get("allowed_updates")
        if allowed is not None and not isinstance(allowed, list):
            raise bad_request("allowed_updates must be an Array")
        with self._condition:
            self.webhook = {"url": url, "secret_token": secret, "allowed_updates": allowed}
            if not url:
                self.webhook = {}
        return True

    def _m_deletewebhook(self, params: dict[str, Any]) -> Any:
        with self._condition:
            self.webhook = {}
            if str(params.get("drop_pending_updates")).lower() == "true":
                self._updates.clear()
        return True

    def _m_getwebhookinfo(self, params: dict[str, Any]) -> Any:
        with self._condition:
            url = self.webhook.get("url", "")
            pending = len(self._updates)
        return {"url": url, "has_custom_certificate": False, "pending_update_count": pending}

    def _m_close(self, params: dict[str, Any]) -> Any:
        return True

    def _m_logout(self, params: dict[str, Any]) -> Any:
        return True

    def _m_setmycommands(self, params: dict[str, Any]) -> Any:
        commands = params.get("commands")
        if not isinstance(commands, list) or len(commands) > 100:
            raise bad_request("commands must be a list of at most 100 BotCommand")
        for command in commands:
            name = command.get("command", "")
            description = command.get("description", "")
            if not re.match(r"^[a-z0-9_]{1,32}$", name):
                raise bad_request("BOT_COMMAND_INVALID")
            if not 1 <= len(description) <= 256:
                raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        self.commands = commands
        return True

    def _m_getmycommands(self, params: dict[str, Any]) -> Any:
        return self.commands

    def _m_getupdates(self, params: dict[str, Any]) -> Any:
        if self.webhook:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        self.first_get_updates.set()
        offset = int(params.get("offset") or 0)
        limit = int(params.get("limit") or 100)
        timeout = float(params.get("timeout") or 0)
        deadline = time.monotonic() + timeout
        with self._condition:
            if offset:
                # Telegram forgets every update below `offset`: they are confirmed.
                self._updates = [u for u in self._updates if u["update_id"] >= offset]
                self._condition.notify_all()
            while not self._updates and not self._stopping:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._condition.wait(remaining)
            batch = [json.loads(json.dumps(u)) for u in self._updates[:limit]]
            now = time.monotonic()
            for update in batch:
                self.delivered_at.setdefault(update["update_id"], now)
            self._condition.notify_all()
            return batch

    def _chat(self, chat_id: Any) -> dict[str, Any]:
        if not isinstance(chat_id, int):
            raise bad_request("chat not found")
        if chat_id in self.blocked:
            raise ApiError(403, "Forbidden: bot was blocked by the user")
        return self.chats.get(chat_id, {"id": chat_id, "type": "private", "first_name": "User"})

    def _checked_text(self, params: dict[str, Any], key: str = "text") -> tuple[str, str]:
        text = params.get(key)
        if not isinstance(text, str) or not text:
            raise bad_request("message text is empty")
        mode = str(params.get("parse_mode") or "").lower()
        if mode == "html":
            try:
                plain = parse_html(text)
            except HtmlError as exc:
                raise bad_request(f"can't parse entities: {exc}") from None
        elif mode:
            raise bad_request(f"unsupported parse_mode {mode!r} in this fake")
        else:
            plain = text
        if not plain.strip():
            raise bad_request("message text is empty")
        if utf16_len(plain) > MAX_MESSAGE_CHARS:
            raise bad_request("message is too long")
        return text, plain

    @staticmethod
    def _check_markup(markup: Any) -> None:
        if markup is None:
            return
        rows = markup.get("inline_keyboard") if isinstance(markup, dict) else None
        if not isinstance(rows, list):
            raise bad_request(
                'field "inline_keyboard" of the InlineKeyboardMarkup must be an Array'
            )
        if sum(len(row) for row in rows) > MAX_BUTTONS:
            raise bad_request("too many buttons")
        for row in rows:
            if len(row) > MAX_BUTTONS_PER_ROW:
                raise bad_request("too many buttons in a row")
            for button in row:
                if not button.get("text"):
                    raise bad_request("button text is empty")
                data = button.get("callback_data")
                if data is not None and not 1 <= len(data.encode("utf-8")) <= 64:
                    raise bad_request("BUTTON_DATA_INVALID")
                query = button.get("switch_inline_query")
                if query is not None and len(query) > 256:
                    raise bad_request("BUTTON_DATA_INVALID")
                kinds = [k for k in button if k != "text"]
                if len(kinds) != 1:
                    raise bad_request("button must have exactly one optional field")

    def _message_json(
        self, chat: dict[str, Any], message_id: int, plain: str, markup: Any
    ) -> dict[str, Any]:
        message: dict[str, Any] = {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": chat,
            "from": self.bot,
            "text": plain,
        }
        if markup:
            message["reply_markup"] = markup
        return message

    def _m_sendmessage(self, params: dict[str, Any]) -> Any:
        chat = self._chat(params.get("chat_id"))
        text, plain = self._checked_text(params)
        markup = params.get("reply_markup")
        self._check_markup(markup)
        message_id = next(self._message_ids)
        message = self._message_json(chat, message_id, plain, markup)
        with self._condition:
            self.messages[(chat["id"], message_id)] = {"html": text, "json": message}
        return message

    def _m_editmessagetext(self, params: dict[str, Any]) -> Any:
        if params.get("inline_message_id"):
            self._checked_text(params)
            return True
        chat = self._chat(params.get("chat_id"))
        key = (chat["id"], params.get("message_id"))
        with self._condition:
            stored = self.messages.get(key)  # type: ignore[arg-type]
        if stored is None:
            raise bad_request("message to edit not found")
        text, plain = self._checked_text(params)
        markup = params.get("reply_markup")
        self._check_markup(markup)
        if stored["html"] == text and stored["json"].get("reply_markup") == markup:
            raise bad_request(
                "message is not modified: specified new message content and reply markup "
                "are exactly the same as a current content and reply markup of the message"
            )
        message = self._message_json(chat, key[1], plain, markup)  # type: ignore[arg-type]
        message["edit_date"] = int(time.time())
        with self._condition:
            self.messages[key] = {"html": text, "json": message}  # type: ignore[index]
        return message

    def _m_answercallbackquery(self, params: dict[str, Any]) -> Any:
        query_id = self._unanswered(params, "callback_query_id")
        if len(str(params.get("text") or "")) > MAX_CALLBACK_ANSWER_CHARS:
            raise bad_request("MESSAGE_TOO_LONG")
        self._answered_queries.add(query_id)
        return True

    def _unanswered(self, params: dict[str, Any], field: str) -> str:
        """The query id in `field`, refused as Telegram does when missing or answered already."""
        query_id = str(params.get(field) or "")
        if not query_id or query_id in self._answered_queries:
            raise bad_request(
                "query is too old and response timeout expired or query ID is invalid"
            )
        return query_id

    def _m_answerinlinequery(self, params: dict[str, Any]) -> Any:
        query_id = self._unanswered(params, "inline_query_id")
        results = params.get("results")
        if not isinstance(results, list):
            raise bad_request("results must be an Array")
        if len(results) > MAX_INLINE_RESULTS:
            raise bad_request("RESULTS_TOO_MUCH")
        ids = [str(r.get("id", "")) for r in results]
        if len(set(ids)) != len(ids):
            raise bad_request("RESULT_ID_DUPLICATE")
        for result in results:
            if not 1 <= len(str(result.get("id", "")).encode("utf-8")) <= 64:
                raise bad_request("RESULT_ID_INVALID")
            if result.get("type") == "article":
                if not result.get("title"):
                    raise bad_request("RESULT_TITLE_EMPTY")
                content = result.get("input_message_content") or {}
                self._checked_text(content, "message_text")
            self._check_markup(result.get("reply_markup"))
        self._answered_queries.add(query_id)
        return True

    def _m_senddocument(self, params: dict[str, Any]) -> Any:
        chat = self._chat(params.get("chat_id"))
        document = params.get("document")
        if not isinstance(document, UploadedFile) or not document.data:
            raise bad_request("file must be non-empty")
        caption = str(params.get("caption") or "")
        if utf16_len(caption) > MAX_CAPTION_CHARS:
            raise bad_request("message caption is too long")
        markup = params.get("reply_markup")
        self._check_markup(markup)
        message_id = next(self._message_ids)
        message: dict[str, Any] = {
            "message_id": message_id,
            "date": int(time.time()),
            "chat": chat,
            "from": self.bot,
            "document": {
                "file_id": f"doc{message_id}",
                "file_unique_id": f"u{message_id}",
                "file_name": document.filename,
                "mime_type": document.content_type,
                "file_size": len(document.data),
            },
        }
        if caption:
            message["caption"] = caption
        with self._condition:
            self.messages[(chat["id"], message_id)] = {"html": caption, "json": message}
        return message

    def _m_editmessagereplymarkup(self, params: dict[str, Any]) -> Any:
        chat = self._chat(params.get("chat_id"))
        key = (chat["id"], params.get("message_id"))
        with self._condition:
            stored = self.messages.get(key)  # type: ignore[arg-type]
        if stored is None:
            raise bad_request("message to edit not found")
        markup = params.get("reply_markup")
        self._check_markup(markup)
        if stored["json"].get("reply_markup") == markup:
            raise bad_request("message is not modified")
        message = json.loads(json.dumps(stored["json"]))
        message["reply_markup"] = markup
        message["edit_date"] = int(time.time())
        with self._condition:
            self.messages[key] = {"html": stored["html"], "json": message}  # type: ignore[index]
        return message
