"""What to try when a search finds nothing: concrete rewrites of the query, not a bare 'no results'."""

from __future__ import annotations

from indexer.search import filters as registry
from indexer.search.query import Query, is_cjk


def suggestions_for(query: Query) -> list[str]:
    """What to try when nothing matched: concrete rewrites of the query, not a bare 'no results'."""
    tips: list[str] = []
    filters: list[str] = []
    for entry in registry.session_filters():
        value = getattr(query, entry.field)
        named = entry.suggest or f"{entry.key}:{value}"
        if value is not None and value != "" and named != "-" and named not in filters:
            filters.append(named)  # ``suggest``: a name of its own (since:/until:), or "-" for none
    for f in filters:
        tips.append(f"drop the filter {f}")
    terms = query.positive_terms
    if len(query.groups) > 1:
        tips.append("fewer words (every word must match), or join alternatives with OR: " + " OR ".join(t.text for t in terms))
    for t in terms:
        if t.phrase and " " in t.text:
            tips.append(f"the words of \"{t.text}\" without quotes (they need not be adjacent)")
        if len(t.text) == 2 and all(is_cjk(c) for c in t.text):
            tips.append(f"a longer CJK phrase containing {t.text}, or a synonym")
        elif len(t.text) > 12 and not t.phrase:
            tips.append(f"a shorter part of {t.text} (matching is by substring)")
    if query.excluded:
        tips.append("remove the -exclusions")
    if not tips:
        tips.append("other words for the same thing (e.g. the error message, a file name, the command you ran)")
    return tips
