"""What to try when a search finds nothing: concrete rewrites of the query, not a bare 'no results'."""

from __future__ import annotations

from indexer.search import filters as registry
from indexer.search.query import Query, Term, is_cjk


def suggestions_for(query: Query) -> list[str]:
    """What to try when nothing matched: concrete rewrites of the query, not a bare 'no results'."""
    tips = [f"drop the filter {f}" for f in _filters_set(query)]
    terms = query.positive_terms
    if len(query.groups) > 1:
        tips.append("fewer words (every word must match), or join alternatives with OR: " + " OR ".join(t.text for t in terms))
    for t in terms:
        tips.extend(_term_tips(t))
    if query.excluded:
        tips.append("remove the -exclusions")
    if not tips:
        tips.append("other words for the same thing (e.g. the error message, a file name, the command you ran)")
    return tips


def _filters_set(query: Query) -> list[str]:
    """The query's filters as a person would name them to drop one, each once, in registry order."""
    filters: list[str] = []
    for entry in registry.session_filters():
        value = getattr(query, entry.field)
        named = entry.suggest or f"{entry.key}:{value}"
        if value is not None and value != "" and named != "-" and named not in filters:
            filters.append(named)  # ``suggest``: a name of its own (since:/until:), or "-" for none
    return filters


def _term_tips(term: Term) -> list[str]:
    """Rewrites of one searched word or phrase that may let it match: unquoted, longer, or shorter."""
    tips: list[str] = []
    if term.phrase and " " in term.text:
        tips.append(f"the words of \"{term.text}\" without quotes (they need not be adjacent)")
    if len(term.text) == 2 and all(is_cjk(c) for c in term.text):
        tips.append(f"a longer CJK phrase containing {term.text}, or a synonym")
    elif len(term.text) > 12 and not term.phrase:
        tips.append(f"a shorter part of {term.text} (matching is by substring)")
    return tips
