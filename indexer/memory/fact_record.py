"""One fact of fact.yml as read: a record of its own module, so reading the file's facts and
editing its text (``indexer.memory.facts``) stay under 400 lines."""

from __future__ import annotations

from indexer.util.named_record import NamedTuple
from indexer.util.quick_json import dumps, loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Fact(NamedTuple):
    key: str
    value: Any  # plain Python (dict/list/str/int/...); for an archived fact, the wrapped value
    line: int  # 1-based line of the key
    archived: bool = False
    archived_at: str | None = None

    @property
    def value_text(self) -> str:
        if isinstance(self.value, str):
            return self.value
        if self.value is None:
            return ""
        return dumps(self.value, default=str)

    @property
    def search_text(self) -> str:
        return f"{self.key}\n{self.value_text}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "value": loads(dumps(self.value, default=str)),
            "line": self.line,
            "archived": self.archived,
            "archived_at": self.archived_at,
        }
