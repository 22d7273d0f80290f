"""One search over the sessions and the memory folder (``indexer.search.unified``), as the search
screen runs it, without the app."""

from __future__ import annotations

from indexer.memory import MemoryStore
from indexer.project_scope import ProjectScope
from indexer.search.unified import MEMORY_WITH_SESSIONS, PAGE_SIZE, SearchRequest, search_everything

from conftest import FIXED_NOW
from tui_fixtures import write_sample_memory


def test_each_scope_asks_what_it_names(corpus_index, tmp_path):
    folder = write_sample_memory(tmp_path / "memory")
    store = lambda: MemoryStore(folder)  # noqa: E731

    sessions = search_everything(corpus_index, store, SearchRequest("tmux"), FIXED_NOW)
    assert sessions.memory is None and sessions.sessions.hits and sessions.error is None

    both = search_everything(corpus_index, store, SearchRequest("hook OR 設定", scope="sessions+memory"), FIXED_NOW)
    assert "ep-1a2b3c4d" in [h.id for h in both.memory.hits] and both.memory.folder == folder
    assert len(both.memory.hits) <= MEMORY_WITH_SESSIONS and both.sessions is not None

    second_page = search_everything(corpus_index, store, SearchRequest("hook OR 設定", scope="sessions+memory",
                                                                       page=1), FIXED_NOW)
    assert second_page.memory.hits == () and second_page.memory.total == both.memory.total

    memory_only = search_everything(corpus_index, store, SearchRequest("設定", scope="memory"), FIXED_NOW)
    assert memory_only.sessions is None and memory_only.memory.total >= 1
    assert len(memory_only.memory.hits) <= PAGE_SIZE


def test_agent_and_project_narrow_only_the_sessions(corpus_index, tmp_path):
    folder = write_sample_memory(tmp_path / "memory")
    request = SearchRequest("設定", agent="pi", project_scope=ProjectScope("/nowhere-at-all"), scope="sessions+memory")
    result = search_everything(corpus_index, lambda: MemoryStore(folder), request, FIXED_NOW)
    assert result.sessions.hits == [] and result.memory.total >= 1


def test_a_query_the_index_cannot_answer_is_an_error_not_an_exception(corpus_index, tmp_path):
    result = search_everything(corpus_index, lambda: MemoryStore(tmp_path), SearchRequest("x"), FIXED_NOW)
    assert result.sessions is None and "too short" in result.error


def test_a_newer_request_stops_it_between_the_two_sides(corpus_index, tmp_path):
    asked = []

    def store() -> MemoryStore:
        asked.append(True)
        return MemoryStore(tmp_path)

    request = SearchRequest("tmux", scope="sessions+memory")
    assert search_everything(corpus_index, store, request, FIXED_NOW, should_stop=lambda: True) is None
    assert asked == [True]
