"""The approval passphrase, asked at the terminal: the one thing an agent that reaches a review
(``tmux send-keys``, ``script``) does not have (``indexer.rules.signing``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from indexer.rules.origin import approval_origin, detached_reason
from indexer.rules.signing import ApprovalKeyError, key_is_set_up, set_up, unlock, unlocked_key

SETUP_NOTE = ("No approval passphrase is set up yet. Choose one now: it is never stored, and every "
              "review asks for it, so a program running as you cannot approve in your name.")


def ask_secret(prompt: str) -> str:
    """Read without echo, from the terminal itself (``/dev/tty``) where there is one."""
    import getpass
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", getpass.GetPassWarning)
        return getpass.getpass(prompt)


def unlock_at_terminal(out: TextIO, ask: Callable[[str], str] = ask_secret) -> str | None:
    """Unlock the approval key with the passphrase typed now (set it up the first time); None
    when unlocked, else why not. Raises ``EOFError`` when input ends."""
    if unlocked_key() is not None:
        return None
    if not key_is_set_up():
        origin = approval_origin()
        reason = detached_reason(origin)
        if reason is not None:
            return ("set up your approval passphrase from a terminal of your own login session, "
                    f"not {reason.split(',')[0]}")
        print(SETUP_NOTE, file=out)
        first = ask("New approval passphrase: ")
        if ask("The same passphrase again: ") != first:
            return "the two passphrases differ; nothing was set up"
        try:
            set_up(first, how=origin)
        except ApprovalKeyError as exc:
            return str(exc)
        return None
    try:
        unlock(ask("Approval passphrase: "))
    except ApprovalKeyError as exc:
        return str(exc)
    return None
