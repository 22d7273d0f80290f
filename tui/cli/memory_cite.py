"""Citations in ``threadback memory``: ``add … --cite SESSION[:FROM-TO]``, ``cite REF SPAN`` (an
episodic id, ``fact:KEY`` or ``rule:ID``) and ``sources [REF]``, which checks each cited span
against the index and says "source changed" where its text is not what was cited."""

from __future__ import annotations

import argparse
from datetime import datetime

from indexer import IndexError_
from indexer.memory import MemoryStore
from indexer.memory.citations import Citation, CitationLog
from indexer.memory.errors import MemoryInputError, MemoryNotFoundError
from indexer.output import json_shapes as output
from tui.cli.options import open_existing_index
from tui.cli.terminal import safe_text

CITE_HELP = "cite a transcript span as evidence: SESSION (all of it) or SESSION:FROM-TO (message numbers from `show`)"
STATUS_WORDS = {"ok": "ok", "changed": "source changed", "gone": "source changed (its log is gone and not archived)"}


def add_cite_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--cite", action="append", metavar="SESSION[:FROM-TO]", default=[], help=CITE_HELP)
    p.add_argument("--db", metavar="FILE", help="the index the cited session is in (default: the usual one)")


def register(actions: argparse._SubParsersAction, common: argparse.ArgumentParser, handler) -> None:
    p = actions.add_parser("cite", parents=[common], help="cite a transcript span for a memory")
    p.add_argument("ref", help="an episodic id, fact:KEY or rule:ID")
    p.add_argument("span", metavar="SESSION[:FROM-TO]", help=CITE_HELP)
    p.add_argument("--db", metavar="FILE", help="the index the session is in")
    p.set_defaults(func=handler(cmd_cite))
    p = actions.add_parser("sources", parents=[common], help="check what memories cite; flag changed sources")
    p.add_argument("ref", nargs="?", help="only this memory's citations")
    p.add_argument("--db", metavar="FILE", help="the index to check against")
    p.set_defaults(func=handler(cmd_sources))


def _index(args: argparse.Namespace):
    try:
        return open_existing_index(args)
    except IndexError_ as exc:
        raise MemoryInputError(f"cannot read the index to cite from: {exc}") from None


def cited_spans(args: argparse.Namespace, specs: list[str], now: datetime) -> list[Citation]:
    """Each span read and digested (``ref`` left empty); a span that cannot be cited stops
    with a message before anything is stored."""
    from indexer.provenance.citing import CiteError, cite

    if not specs:
        return []
    index = _index(args)
    try:
        return [cite(index, spec, "", now) for spec in specs]
    except CiteError as exc:
        raise MemoryInputError(str(exc)) from None
    finally:
        index.close()


def store_citations(store: MemoryStore, ref: str, spans: list[Citation]) -> list[Citation]:
    log = CitationLog(store.folder)
    return [log.add(span._replace(ref=ref)) for span in spans]


def _check_ref(store: MemoryStore, ref: str) -> None:
    """``ref`` names a memory of this folder (an entry, a fact or a rule)."""
    if ref.startswith("fact:"):
        store.fact(ref[5:])
    elif ref.startswith("rule:"):
        from indexer.rules import RuleStore

        RuleStore(store.folder).get(ref[5:])
    else:
        store.entry(ref)


def cmd_cite(args: argparse.Namespace, store: MemoryStore) -> int:
    from indexer.rules.model import RuleNotFoundError

    try:
        _check_ref(store, args.ref)
    except RuleNotFoundError as exc:
        raise MemoryNotFoundError(str(exc)) from None
    now = datetime.now().astimezone()
    made = store_citations(store, args.ref, cited_spans(args, [args.span], now))
    if args.json:
        print(output.dumps([c.to_obj() for c in made], indented=True))
    else:
        for c in made:
            print(safe_text(f"{c.ref} cites {c.span()} (digest {c.digest[:12]})"))
    return 0


def cmd_sources(args: argparse.Namespace, store: MemoryStore) -> int:
    from indexer.provenance.citing import check_citations

    index = _index(args)
    try:
        results = check_citations(index, store.folder, datetime.now().astimezone())
    finally:
        index.close()
    if args.ref:
        results = [(c, s) for c, s in results if c.ref == args.ref]
    if args.json:
        print(output.dumps([{**c.to_obj(), "status": s} for c, s in results], indented=True))
    else:
        for c, status in results:
            print(safe_text(f"{c.ref:<24} {c.span():<60} {STATUS_WORDS.get(status, status)}"))
        if not results:
            print("no citations" + (f" for {args.ref}" if args.ref else ""))
    return 0 if results else 1
