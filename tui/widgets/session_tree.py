"""Agent → project → day → session, with subagents under their parent. Each level is read from
the index only when its parent is expanded (in a thread worker), so a big index opens at once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from indexer import Index, Session
from indexer.activity import is_active
from indexer.sources.base import is_slash_command
from tui.display.humanize_time import clock, dated, day_label, duration
from tui.display.counts import plural
from tui.display.log_text import one_line
from tui.requests import ResumeSession
from tui.worker_errors import ReportsWorkerErrors

if TYPE_CHECKING:
    from tui.app_context import AppContext

NodeKind = Literal["agent", "project", "day", "session"]


@dataclass
class NodeData:
    """What a tree node stands for; ``loaded`` turns true once its children are in the tree."""

    kind: NodeKind
    agent: str
    project_path: str | None = None
    day: str | None = None
    session: Session | None = None
    children: list["ChildSpec"] | None = None  # pre-read children (a filtered tree)
    loaded: bool = False


@dataclass
class ChildSpec:
    label: Text
    data: NodeData
    expandable: bool = True
    expand: bool = False
    nested: list["ChildSpec"] = field(default_factory=list)


def session_label(session: Session, first_prompt: str | None, now: float, subagents: int = 0) -> Text:
    """Its start (the time of day: the day is the node above), title, size and length."""
    title = session.title or first_prompt or "(no prompt)"
    label = Text(no_wrap=True, overflow="ellipsis")
    label.append(clock(session.start_ts)[-5:] if session.start_ts is not None else "--:--", style="dim")
    if is_active(session, now):
        label.append("  active", style="bold green")  # before the title: never cut off
    label.append("  " + one_line(title, 60))
    details = [plural(session.message_count, "msg")]
    if span := duration(session.start_ts, session.end_ts):
        details.append(span)
    if subagents:
        details.append(plural(subagents, "subagent"))
    if session.parent_missing:
        details.append("subagent, parent not indexed")
    if session.archived_only:
        details.append("archived copy only")
    label.append("  " + " · ".join(details), style="dim")
    return label


def agent_label(agent: str, count: int) -> Text:
    return Text.assemble((agent, "bold"), (f"  {plural(count, 'session')}", "dim"))


def node_key(data: NodeData | None) -> tuple:
    """What a node stands for, whatever its label says: how a live refresh finds it again."""
    if data is None:
        return ()
    return (data.kind, data.agent, data.project_path, data.day, data.session.id if data.session else None)


def read_levels(index: Index, levels: list[NodeData | None], now: float) -> list[list[ChildSpec]]:
    """The children of each level on show, read again (``None``: the agents at the top)."""
    return [[ChildSpec(agent_label(agent, count), NodeData("agent", agent)) for agent, count in index.agents()]
            if data is None else children_of(index, data, now) for data in levels]


def last_seen(ts: float | None, now: float) -> str:
    return f" · last {dated(ts, now)}" if ts is not None else ""


def _first_prompt(index: Index, session: Session) -> str | None:
    """An untitled session's first real prompt (a slash command only when there is no other)."""
    if session.title:
        return None
    typed = [m.text for m in index.messages(session, limit=20)
             if m.role == "user" and m.kind == "text" and m.text.strip()]
    return next((t for t in typed if not is_slash_command(t)), typed[0] if typed else None)


def session_specs(index: Index, sessions: list[Session], now: float) -> list[ChildSpec]:
    """Tree children for sessions, each knowing whether it has subagents (loaded on expand)."""
    specs = []
    for s in sessions:
        subagents = len(index.children(s)) if s.parent_session_id is None else 0
        specs.append(ChildSpec(session_label(s, _first_prompt(index, s), now, subagents),
                               NodeData("session", s.agent, s.project_path, session=s), expandable=bool(subagents)))
    return specs


def children_of(index: Index, data: NodeData, now: float) -> list[ChildSpec]:
    """Read one level of the tree (runs in a worker thread)."""
    if data.kind == "agent":
        return [
            ChildSpec(Text.assemble(one_line(p.project_name or p.project_path or "(no project)", 60),
                                    (f"  {plural(p.session_count, 'session')}{last_seen(p.last_ts, now)}", "dim")),
                      NodeData("project", data.agent, p.project_path))
            for p in index.projects(data.agent)
        ]
    if data.kind == "project":
        return [
            ChildSpec(Text.assemble(day_label(day, now), (f"  {plural(count, 'session')}", "dim")),
                      NodeData("day", data.agent, data.project_path, day=day))
            for day, count in index.days(data.agent, data.project_path)
        ]
    if data.kind == "day" and data.day is not None:
        return session_specs(index, index.sessions_on_day(data.agent, data.project_path, data.day), now)
    if data.kind == "session" and data.session is not None:
        return session_specs(index, index.children(data.session), now)
    return []


def matching_sessions(index: Index, text: str, limit: int) -> tuple[list[Session], dict[int, list[Session]]]:
    """Top-level sessions whose title, id or project contains ``text``, newest first, with the
    subagents that match (by row id of their parent): a subagent's match brings its parent."""
    tops: dict[int, Session] = {}
    matched_subagents: dict[int, list[Session]] = {}
    for s in index.sessions(text=text, limit=limit):
        parent = index.parent(s) if s.parent_session_id else None
        if parent is None:
            tops.setdefault(s.id, s)
            continue
        tops.setdefault(parent.id, parent)
        matched_subagents.setdefault(parent.id, []).append(s)
    ordered = sorted(tops.values(), key=lambda s: (s.start_ts or 0.0, s.id), reverse=True)
    return ordered, matched_subagents


def _filtered_session_specs(index: Index, sessions: list[Session], subagents: dict[int, list[Session]],
                            now: float) -> list[ChildSpec]:
    specs = session_specs(index, sessions, now)
    for spec in specs:
        assert spec.data.session is not None
        found = subagents.get(spec.data.session.id)
        if found:  # only the matching subagents, shown open
            spec.nested = session_specs(index, sorted(found, key=lambda s: (s.start_ts or 0.0, s.id)), now)
            spec.expandable = spec.expand = spec.data.loaded = True
    return specs


def filtered_tree(index: Index, text: str, now: float, limit: int = 200) -> list[ChildSpec]:
    """The whole path to every session whose title, id or project contains ``text``; a matching
    subagent is shown under its parent."""
    sessions, subagents = matching_sessions(index, text, limit)
    agents: dict[str, dict[str | None, dict[str, list[Session]]]] = {}
    for s in sessions:
        day = day_of(s)
        agents.setdefault(s.agent, {}).setdefault(s.project_path, {}).setdefault(day, []).append(s)
    specs = []
    for agent, projects in sorted(agents.items()):
        project_specs = []
        for path, days in projects.items():
            first = next(iter(days.values()))[0]
            day_specs = [
                ChildSpec(Text(day_label(day, now)), NodeData("day", agent, path, day=day, loaded=True), expand=True,
                          nested=_filtered_session_specs(index, day_sessions, subagents, now))
                for day, day_sessions in days.items()
            ]
            project_specs.append(ChildSpec(Text(one_line(first.project_name or path or "(no project)", 60)),
                                           NodeData("project", agent, path, loaded=True), expand=True, nested=day_specs))
        count = sum(len(v) for days in projects.values() for v in days.values())
        specs.append(ChildSpec(Text.assemble((agent, "bold"), (f"  {count} matching", "dim")),
                               NodeData("agent", agent, loaded=True), expand=True, nested=project_specs))
    return specs


def day_of(session: Session) -> str:
    from datetime import datetime, timezone

    if session.start_ts is None:
        return "undated"
    return datetime.fromtimestamp(session.start_ts, timezone.utc).strftime("%Y-%m-%d")


class SessionTree(ReportsWorkerErrors, Tree[NodeData]):
    HELP_TITLE = "Session tree"  # its keys' section in the help screen
    # Letters typed here go to the filter box (the app's type-ahead): no printable key here.
    BINDINGS = [
        Binding("enter", "select_cursor", "Open", id="tree.open"),
        Binding("ctrl+y", "copy('id')", "Copy id", id="tree.copy_id"),
        Binding("ctrl+k", "copy('resume')", "Copy resume", id="tree.copy_resume"),
        Binding("ctrl+e", "resume(False)", "Resume", id="tree.resume"),
        Binding("ctrl+d", "resume(True)", "Fork…", id="tree.fork", show=False),
    ]

    @dataclass
    class ChildrenLoaded(Message):
        node: TreeNode[NodeData]
        children: list[ChildSpec]

    @dataclass
    class SessionChosen(Message):
        session: Session

    @dataclass
    class CopyRequested(Message):
        session: Session
        what: str

    def __init__(self, context: AppContext, **kwargs) -> None:
        super().__init__("sessions", **kwargs)
        self.context = context
        self.show_root = False
        self.auto_expand = False
        self.guide_depth = 3

    def show_agents(self, agents: list[tuple[str, int]]) -> None:
        self.clear()
        for agent, count in agents:
            self.root.add(agent_label(agent, count), NodeData("agent", agent))
        self.root.expand()
        self.cursor_line = 0

    def show_filtered(self, specs: list[ChildSpec], *, keep_cursor: bool = False) -> None:
        """``keep_cursor`` (a live update): the cursor stays on what it was on."""
        key, row = node_key(self.cursor_node.data if self.cursor_node else None), self._cursor_row()
        self.clear()
        self._add_specs(self.root, specs)
        self.root.expand()
        self.cursor_line = 0
        if keep_cursor and key:
            found = next((n for n in self._nodes_below(self.root) if node_key(n.data) == key), None)
            if found is not None:
                self._put_cursor(found, row)

    # -- live refresh: every level on show read again, the cursor left where it is ----------------
    @dataclass
    class Refreshed(Message):
        levels: list[tuple[TreeNode[NodeData], list[ChildSpec]]]

    def _nodes_below(self, node: TreeNode[NodeData]) -> list[TreeNode[NodeData]]:
        found, stack = [], list(node.children)
        while stack:
            child = stack.pop()
            found.append(child)
            stack.extend(child.children)
        return found

    def refresh_loaded(self) -> None:
        """Read again every level whose children are in the tree (a live update), in a worker."""
        nodes = [self.root, *(n for n in self._nodes_below(self.root) if n.data is not None and n.data.loaded)]
        self._read_levels(nodes)

    @work(thread=True, exclusive=True, group="tree-refresh", exit_on_error=False)
    def _read_levels(self, nodes: list[TreeNode[NodeData]]) -> None:
        levels = read_levels(self.context.index, [None if n is self.root else n.data for n in nodes], self.context.now())
        self.post_message(self.Refreshed(list(zip(nodes, levels))))

    def on_session_tree_refreshed(self, event: Refreshed) -> None:
        """Merge what was read: labels updated, new nodes put in their place, nothing removed
        (the cursor may be on it), and the cursor kept on its node at its row on screen."""
        cursor, row = self.cursor_node, self._cursor_row()
        live_ids = {id(n) for n in (self.root, *self._nodes_below(self.root))}
        for node, specs in event.levels:
            if id(node) in live_ids:
                self._merge(node, specs)
        if cursor is not None and id(cursor) in live_ids:
            self._put_cursor(cursor, row)

    def _merge(self, node: TreeNode[NodeData], specs: list[ChildSpec]) -> None:
        existing = {node_key(child.data): child for child in node.children}
        for position, spec in enumerate(specs):
            child = existing.pop(node_key(spec.data), None)
            if child is None:
                before = position if position < len(node.children) else None
                node.add(spec.label, spec.data, before=before, allow_expand=spec.expandable)
                continue
            child.set_label(spec.label)
            if child.data is not None and spec.data.session is not None:
                child.data.session = spec.data.session
            if spec.expandable and not child.allow_expand:
                child.allow_expand = True

    def _cursor_row(self) -> int:
        """The cursor's row on screen (its line less the scroll)."""
        return self.cursor_line - int(self.scroll_offset.y) if self.cursor_line >= 0 else 0

    def _put_cursor(self, node: TreeNode[NodeData], row: int) -> None:
        self._tree_lines  # noqa: B018 - lays the lines out now, so the node's line is current
        self.cursor_line = node.line
        self.scroll_to(y=max(0, node.line - row), animate=False, immediate=True)

    def _add_specs(self, node: TreeNode[NodeData], specs: list[ChildSpec]) -> None:
        for spec in specs:
            child = node.add(spec.label, spec.data, allow_expand=spec.expandable, expand=spec.expand)
            if spec.nested:
                self._add_specs(child, spec.nested)

    def _on_tree_node_expanded(self, event: Tree.NodeExpanded[NodeData]) -> None:
        data = event.node.data
        if data is not None and not data.loaded:
            data.loaded = True
            self.load_children(event.node)

    @work(thread=True, group="tree", exit_on_error=False)
    def load_children(self, node: TreeNode[NodeData]) -> None:
        assert node.data is not None
        self.post_message(self.ChildrenLoaded(node, children_of(self.context.index, node.data, self.context.now())))

    def on_session_tree_children_loaded(self, event: ChildrenLoaded) -> None:
        event.stop()
        self._add_specs(event.node, event.children)
        if not event.children:
            event.node.allow_expand = False

    def _on_tree_node_selected(self, event: Tree.NodeSelected[NodeData]) -> None:
        data = event.node.data
        if data is None:
            return
        if data.kind == "session" and data.session is not None:
            self.post_message(self.SessionChosen(data.session))
        else:
            event.node.toggle()

    @property
    def current_session(self) -> Session | None:
        node = self.cursor_node
        return node.data.session if node is not None and node.data is not None else None

    def action_resume(self, fork: bool) -> None:
        if (session := self.current_session) is not None:
            self.post_message(ResumeSession(session, fork))
        else:
            self.notify("Move to a session first.", severity="warning")

    def action_copy(self, what: str) -> None:
        if (session := self.current_session) is not None:
            self.post_message(self.CopyRequested(session, what))
        else:
            self.notify("Move to a session first.", severity="warning")
