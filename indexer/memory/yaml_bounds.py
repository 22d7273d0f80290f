"""A bound on YAML alias expansion, so a small file cannot become a huge document.

``fact.yml`` may come from a cloned repository. Eight lines of anchors and aliases ("billion
laughs") describe 43 million strings; the loader keeps one object per anchor, so loading is
quick, but anything that walks the result (flattening values, printing them) would take tens of
seconds and gigabytes. The check runs right after loading and refuses such a document.
"""

from __future__ import annotations

from indexer.memory.errors import FactFileError, YamlIssue

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_ALIAS_EXPANSION = 10_000  # values that aliases may add beyond those written out


def check_alias_expansion(doc: Any, limit: int = MAX_ALIAS_EXPANSION) -> None:
    """Refuse a document whose aliases expand far beyond what is written (a "billion laughs"
    bomb: 8 lines, 43 million strings) or refer to themselves, before anything walks it.

    The loader keeps one object per anchor, so the walk counts each object once and is as
    cheap as the file is long; the expanded size is summed from those counts."""
    size: dict[int, int] = {}
    written = 1  # values as written in the file: each container's items, aliases included
    on_path: set[int] = set()
    stack: list[tuple[Any, bool]] = [(doc, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = list(node.values()) if isinstance(node, dict) else node if isinstance(node, list) else ()
        if done:
            on_path.discard(key)
            size[key] = 1 + sum(size.get(id(c), 1) for c in children)
            written += len(children)
            if size[key] - written > limit:
                raise FactFileError(None, [YamlIssue(1, 1, (
                    f"YAML aliases expand to more than {limit:,} extra values (an alias bomb?); "
                    "fact.yml was not read. Write the values out instead of repeating *aliases"))])
            continue
        if key in size:
            continue
        if key in on_path:
            raise FactFileError(None, [YamlIssue(1, 1, "a YAML alias refers to itself; fact.yml was not read")])
        on_path.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in children if isinstance(c, (dict, list)) and id(c) not in size)
