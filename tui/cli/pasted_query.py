"""The ``search`` verb's parser, which takes a pasted command line as it is."""

from __future__ import annotations

import argparse
from collections import Counter


class PastedQueryParser(argparse.ArgumentParser):
    """The ``search`` parser: an option it does not know (``-s``, ``--no-ff`` in a pasted
    command) is a word of the query, in the place it was typed. Its own options (``-n``, ``-C``,
    ``-1``...) keep their meaning: quote the query, or put it after ``--``, to search for those."""

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            words = Counter([*(namespace.query or []), *extras])
            typed = []
            for token in args or []:
                if words[token] > 0:
                    typed.append(token)
                    words[token] -= 1
            namespace.query = typed + list(words.elements())
        return namespace, []
