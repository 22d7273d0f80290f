"""``threadback memory ...``: read and write the three-tier memory from scripts and agents.

    add | list | search | show | archive | restore | pin | unpin | refresh | promote | decay | link
    (each with --json)

Exit codes: 0 ok; 1 nothing found (empty list/search/decay); 2 bad usage or input (including
a broken fact.yml); 4 unknown id, fact key or scratchpad line; 75 a memory file changed on
disk while we worked (nothing written; run again). Unreadable lines in the memory files are
reported once on stderr and never stop a command.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from indexer.memory import (
    DEFAULT_DECAY_THRESHOLD,
    DEFAULT_WEIGHT,
    TIERS,
    ChangedOnDiskError,
    EpisodicDraft,
    EpisodicEntry,
    EpisodicFilter,
    Fact,
    MemoryStore,
    ScoredEntry,
    ScratchpadItem,
    find_memory,
)
from tui.cli import memory_allow, memory_cite
from indexer.output import json_shapes as output
from tui.cli.options import memory_dir_of
from tui.cli.memory_text import breakdown_line, entry_line, fact_line, hit_line, item_line
from tui.cli.terminal import visible_output
from tui.cli.exits import NOTHING_FOUND, OK, CommandError, command
from tui.cli.verbs import help_of

Handler = Callable[[argparse.Namespace], int]

_DESCRIPTION = "Read and write long-term memory: fact.yml, episodic.jsonl, scratchpad.md." + (
    __doc__ or ""
).split("(each with --json)", 1)[-1]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``memory`` command and its actions to the main CLI."""
    memory = subparsers.add_parser(
        "memory",
        help=help_of("memory"),
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    memory.add_argument("--memory-dir", metavar="DIR", help="memory folder to use")
    # Accepted after the action too (`memory list --memory-dir X`), without clobbering.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print JSON")
    common.add_argument("--memory-dir", metavar="DIR", default=argparse.SUPPRESS,
                        help=argparse.SUPPRESS)
    actions = memory.add_subparsers(dest="memory_command", metavar="ACTION", required=True)

    p = actions.add_parser("add", parents=[common], help="add an episodic entry")
    p.add_argument("--type", default="note", help="decision, failure, milestone, lesson, note")
    p.add_argument("--summary", required=True)
    p.add_argument("--detail", default="")
    p.add_argument("--lesson", default="")
    p.add_argument("--tags", default="", help="comma-separated")
    p.add_argument("--importance", type=int, default=5, help="1-10 (default 5)")
    p.add_argument("--ts", help="ISO 8601 time (default now)")
    memory_cite.add_cite_option(p)
    p.set_defaults(func=cmd_add)

    p = actions.add_parser("list", parents=[common], help="list memories")
    p.add_argument("--tier", choices=TIERS, help="only this tier")
    p.add_argument("--archived", action="store_true", help="include archived memories")
    p.add_argument("--type", help="episodic entries of this type")
    p.add_argument("--tag", help="episodic entries with this tag")
    p.set_defaults(func=cmd_list)

    p = actions.add_parser("search", parents=[common], help="search all tiers")
    p.add_argument("query", nargs="+", help='words, "phrases", OR, -exclude, since:7d')
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--tier", choices=TIERS, help="only this tier")
    p.add_argument("--archived", action="store_true", help="include archived memories")
    p.set_defaults(func=cmd_search)

    p = actions.add_parser("show", parents=[common], help="show one memory")
    p.add_argument("id", help="episodic id, fact key, or scratchpad:LINE")
    p.set_defaults(func=cmd_show)

    p = actions.add_parser("archive", parents=[common], help="archive an entry or a fact")
    p.add_argument("id", help="episodic id or fact key")
    p.set_defaults(func=cmd_archive)

    p = actions.add_parser("restore", parents=[common], help="restore an archived memory")
    p.add_argument("id", help="episodic id or fact key")
    p.set_defaults(func=cmd_restore)

    p = actions.add_parser("pin", parents=[common], help="pin an episodic entry: it no longer decays")
    p.add_argument("id", help="episodic id")
    p.set_defaults(func=cmd_pin, pinned=True)

    p = actions.add_parser("unpin", parents=[common], help="unpin an episodic entry: it decays again")
    p.add_argument("id", help="episodic id")
    p.set_defaults(func=cmd_pin, pinned=False)

    p = actions.add_parser("refresh", parents=[common],
                           help="refresh an episodic entry: its strength starts again (decay counts from now)")
    p.add_argument("id", help="episodic id")
    p.set_defaults(func=cmd_refresh)

    p = actions.add_parser("promote", parents=[common],
                           help="turn a scratchpad item into an episodic entry")
    p.add_argument("line", type=int, metavar="LINE_NO", help="line of the item in scratchpad.md")
    p.add_argument("--type")
    p.add_argument("--summary")
    p.add_argument("--detail")
    p.add_argument("--lesson")
    p.add_argument("--tags", help="comma-separated (default: suggested from known tags)")
    p.add_argument("--importance", type=int)
    p.add_argument("--remove", action="store_true", help="remove the line instead of marking it")
    p.set_defaults(func=cmd_promote)

    p = actions.add_parser("decay", parents=[common], help="list (or archive) weak entries")
    p.add_argument("--threshold", type=float, default=DEFAULT_DECAY_THRESHOLD,
                   help=f"strength below this is decayed (default {DEFAULT_DECAY_THRESHOLD})")
    p.add_argument("--archive-all", action="store_true", help="archive every decayed entry")
    p.add_argument("--yes", action="store_true", help="confirm --archive-all")
    p.set_defaults(func=cmd_decay)

    p = actions.add_parser("link", parents=[common], help="link two episodic entries")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--weight", type=float, default=DEFAULT_WEIGHT, help="0-1 (default 0.5)")
    p.add_argument("--remove", action="store_true", help="archive the link instead")
    p.set_defaults(func=cmd_link)
    memory_cite.register(actions, common, _handler)

    memory_allow.register(actions)


# --- plumbing -------------------------------------------------------------------------------


def _now() -> datetime:
    return datetime.now().astimezone()


def _emit(args: argparse.Namespace, payload: Any, human: Callable[[], None]) -> None:
    if args.json:
        print(output.dumps(payload, indented=True))
    else:
        human()


def _open(args: argparse.Namespace) -> MemoryStore:
    store = MemoryStore.open(memory_dir_of(args), Path.cwd())
    for problem in store.problems():
        print(f"warning: {problem}", file=sys.stderr)
    return store


def _handler(fn: Callable[[argparse.Namespace, MemoryStore], int]) -> Handler:
    """Open the store and run the action; our errors become one stderr line and an exit code."""

    @command(prefix="threadback memory", notes={ChangedOnDiskError: "; nothing was written"})
    @functools.wraps(fn)
    def run(args: argparse.Namespace) -> int:
        with visible_output():  # memory text is untrusted: no raw control character is printed
            return fn(args, _open(args))

    return run


def _tags(text: str | None) -> tuple[str, ...]:
    return tuple(t.strip() for t in (text or "").split(",") if t.strip())


# --- actions --------------------------------------------------------------------------------


@_handler
def cmd_add(args: argparse.Namespace, store: MemoryStore) -> int:
    draft = EpisodicDraft(
        summary=args.summary,
        type=args.type,
        detail=args.detail,
        lesson=args.lesson,
        tags=_tags(args.tags),
        importance=args.importance,
        ts=args.ts,
    )
    now = _now()
    spans = memory_cite.cited_spans(args, args.cite, now)  # every span read before the entry is written
    entry = store.add(draft, now)
    cited = memory_cite.store_citations(store, entry.id, spans)
    _emit(args, {**output.entry_json(entry, store.breakdown(entry, now)), "cites": [c.to_obj() for c in cited]},
          lambda: print(f"added {entry.id} to {store.episodic_path}"
                        + "".join(f"; cites {c.span()}" for c in cited)))
    return OK


@_handler
def cmd_list(args: argparse.Namespace, store: MemoryStore) -> int:
    tiers = [args.tier] if args.tier else list(TIERS)
    payload: dict[str, Any] = {"folder": str(store.folder)}
    facts: list[Fact] = []
    scored: list[ScoredEntry] = []
    items: list[ScratchpadItem] = []
    if "fact" in tiers:
        if store.fact_error() is None or args.tier == "fact":  # else already warned; the other tiers still list
            facts = store.facts(include_archived=args.archived)
        payload["fact"] = [output.fact_json(f) for f in facts]
    if "episodic" in tiers:
        now = _now()
        wanted = EpisodicFilter(types=(args.type.lower(),) if args.type else (),
                                tags=(args.tag.lower(),) if args.tag else ())
        scored = wanted.apply(store.scored(now, include_archived=args.archived), now)
        payload["episodic"] = [output.entry_json(s.entry, s.breakdown) for s in scored]
    if "scratchpad" in tiers:
        items = store.scratchpad_items()
        payload["scratchpad"] = [output.item_json(i) for i in items]

    def human() -> None:
        _print_tiers(tiers, [
            ("fact", store.fact_path, [fact_line(f) for f in facts]),
            ("episodic", store.episodic_path, [entry_line(s.entry, s.strength) for s in scored]),
            ("scratchpad", store.scratchpad_path, [item_line(i) for i in items]),
        ])

    _emit(args, payload, human)
    return OK if (facts or scored or items) else NOTHING_FOUND


def _print_tiers(tiers: list[str], sections: list[tuple[str, Path, list[str]]]) -> None:
    """Each listed tier's lines; with several tiers, each under its name and file (an empty
    one left out)."""
    first = True
    for tier, path, lines in sections:
        if tier not in tiers or (not lines and len(tiers) > 1):
            continue
        if len(tiers) > 1:
            print(("" if first else "\n") + f"{tier} ({path})")
        first = False
        for line in lines:
            print(line)


@_handler
def cmd_search(args: argparse.Namespace, store: MemoryStore) -> int:
    query = " ".join(args.query).strip()
    if not query:
        raise CommandError("empty query")
    if args.limit < 1:
        raise CommandError("--limit must be at least 1")
    hits = store.search(
        query,
        _now(),
        tiers=[args.tier] if args.tier else TIERS,
        include_archived=args.archived,
        limit=args.limit,
        record=True,
    )

    def human() -> None:
        for hit in hits:
            print(hit_line(hit))

    _emit(args, {"folder": str(store.folder), "query": query,
                 "hits": [output.memory_hit_json(h) for h in hits]}, human)
    return OK if hits else NOTHING_FOUND


@_handler
def cmd_show(args: argparse.Namespace, store: MemoryStore) -> int:
    ref = args.id
    found = find_memory(store, ref)
    if isinstance(found, EpisodicEntry):
        entry, now = found, _now()
        b = store.breakdown(entry, now)
        links = store.links(ref)
        payload = {**output.entry_json(entry, b), "breakdown": b.to_dict(),
                   "links": [link.to_dict() for link in links], "fields": dict(entry.fields)}

        def human() -> None:
            print(f"{entry.id}  {entry.type}  {entry.ts or '(no time)'}"
                  + ("  (archived " + (entry.archived_at or "") + ")" if entry.archived else ""))
            print(f"summary:    {entry.summary}")
            for label, value in (("detail", entry.detail), ("lesson", entry.lesson)):
                if value:
                    print(f"{label + ':':<11} {value}")
            if entry.tags:
                print(f"tags:       {', '.join(entry.tags)}")
            print(f"importance: {entry.importance}")
            print(f"strength:   {breakdown_line(b)}")
            for link in links:
                print(f"link:       {link.other(ref)} (weight {link.weight:g})")

        _emit(args, payload, human)
    elif isinstance(found, ScratchpadItem):
        _emit(args, output.item_json(found), lambda: print(item_line(found)))
    else:
        _emit(args, output.fact_json(found), lambda: print(fact_line(found)))
    return OK


@_handler
def cmd_archive(args: argparse.Namespace, store: MemoryStore) -> int:
    thing = store.archive(args.id, _now())
    _emit(args, output.memory_json(thing), lambda: print(f"archived {args.id}"))
    return OK


@_handler
def cmd_restore(args: argparse.Namespace, store: MemoryStore) -> int:
    thing = store.restore(args.id, _now())
    refreshed = " (refreshed: its decay starts again)" if isinstance(thing, EpisodicEntry) else ""
    _emit(args, output.memory_json(thing), lambda: print(f"restored {args.id}{refreshed}"))
    return OK


@_handler
def cmd_pin(args: argparse.Namespace, store: MemoryStore) -> int:
    entry = store.pin_entry(args.id, args.pinned)
    said = "pinned {}: it no longer decays" if args.pinned else "unpinned {}: it decays again"
    _emit(args, output.memory_json(entry), lambda: print(said.format(args.id)))
    return OK


@_handler
def cmd_refresh(args: argparse.Namespace, store: MemoryStore) -> int:
    entry = store.refresh_entry(args.id, _now())
    _emit(args, output.memory_json(entry), lambda: print(f"refreshed {args.id}: its decay starts again"))
    return OK


@_handler
def cmd_promote(args: argparse.Namespace, store: MemoryStore) -> int:
    suggested = store.suggest_promotion(args.line)
    draft = EpisodicDraft(
        summary=args.summary if args.summary is not None else suggested.summary,
        type=args.type or suggested.type,
        detail=args.detail if args.detail is not None else suggested.detail,
        lesson=args.lesson if args.lesson is not None else suggested.lesson,
        tags=_tags(args.tags) if args.tags is not None else suggested.tags,
        importance=args.importance if args.importance is not None else suggested.importance,
    )
    now = _now()
    entry = store.promote(args.line, now, draft, remove=args.remove)
    done = "removed" if args.remove else "marked"
    _emit(args, {**output.entry_json(entry), "scratchpad_line": args.line, "scratchpad": done},
          lambda: print(f"promoted line {args.line} to {entry.id} ({done} in scratchpad.md)"))
    return OK


@_handler
def cmd_decay(args: argparse.Namespace, store: MemoryStore) -> int:
    if not 0.0 <= args.threshold <= 1.0:
        raise CommandError("--threshold must be between 0 and 1")
    now = _now()
    weak = store.decayed(now, args.threshold)
    if args.archive_all and weak and not args.yes:
        raise CommandError(f"{len(weak)} decayed entries would be archived; add --yes to confirm")
    archived: list[str] = []
    if args.archive_all and weak:
        archived = [e.id for e in store.archive_entries([s.entry.id for s in weak], now)]

    def human() -> None:
        for s in weak:
            print(entry_line(s.entry, s.strength))
        if archived:
            print(f"archived {len(archived)} entries")

    _emit(args, {"threshold": args.threshold,
                 "decayed": [output.entry_json(s.entry, s.breakdown) for s in weak],
                 "archived": archived}, human)
    return OK if weak else NOTHING_FOUND


@_handler
def cmd_link(args: argparse.Namespace, store: MemoryStore) -> int:
    now = _now()
    if args.remove:
        links = store.unlink(args.a, args.b, now)
        _emit(args, {"removed": [x.to_dict() for x in links]},
              lambda: print(f"unlinked {args.a} and {args.b}"))
        return OK
    link = store.link(args.a, args.b, now, args.weight)
    _emit(args, link.to_dict(),
          lambda: print(f"linked {link.a} and {link.b} (weight {link.weight:g})"))
    return OK
