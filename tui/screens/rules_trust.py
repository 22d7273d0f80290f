"""The rule review's trust decisions besides the text: whether a person may approve from here
at all (not under a coding agent: ``indexer.rules.review``), and the folder the rules come
from: a project's ``./memory/`` is not given to agents until the person allows it
(``indexer.memory_trust``), which ``a`` does here after a confirmation listing its files."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from indexer.config import resolve_memory_folder
from indexer.rules.review import approval_refusal
from indexer.memory_trust import ALLOWED, FolderNotAllowable, FolderTrust, allow_folder, folder_trust
from indexer.rules.origin import approval_origin, detached_reason
from indexer.rules.signing import ApprovalKeyError, key_is_set_up, set_up, unlock, unlocked_key
from tui.screens.confirm import ConfirmScreen
from tui.screens.passphrase import PassphraseScreen
from tui.widgets.rule_dialogs import allow_folder_question


def person_at_terminal() -> str | None:
    """Why nobody should approve from this app, or None (``indexer.rules.review``)."""
    return approval_refusal(os.environ)


class TrustActions:
    """Mixed into ``RulesScreen``: it provides ``store``, ``folder``, ``context``,
    ``approval_gate``, ``_timestamp`` and ``refresh_rules``."""

    def _refused(self) -> bool:
        """Tell the person, and True, when approval may not happen from here."""
        refusal = self.approval_gate()
        if refusal:
            self.notify(refusal, title="Nothing was approved", severity="error", timeout=12)
        return bool(refusal)

    def with_key(self, then: Callable[[], object]) -> None:
        """Run ``then`` once the approval key is unlocked: at once if it is, else after the
        person typed the passphrase (set up the first time, never from a detached terminal)."""
        if unlocked_key() is not None:
            then()
            return
        first_time = not key_is_set_up()
        if first_time:
            origin = approval_origin()
            reason = detached_reason(origin)
            if reason is not None:
                self.notify("Set up your approval passphrase from a terminal of your own login session, "
                            f"not {reason.split(',')[0]}.", title="Nothing was approved", severity="error",
                            timeout=12)
                return

        def typed(passphrase: str | None) -> None:
            if passphrase is None:
                self.notify("Nothing was approved.")
                return
            try:
                if first_time:
                    set_up(passphrase, how=approval_origin())
                else:
                    unlock(passphrase)
            except ApprovalKeyError as exc:
                self.notify(str(exc), title="Nothing was approved", severity="error", timeout=12)
                return
            then()

        self.app.push_screen(PassphraseScreen(set_up=first_time), typed)

    def folder_trust(self) -> FolderTrust | None:
        """The trust of the folder the rules come from (None: not known, e.g. a bare screen)."""
        folder = self.folder
        if folder is None and self.context is not None:
            folder = resolve_memory_folder(self.context.memory_dir)
        if folder is None or folder.path.resolve() != self.store.memory_dir.resolve():
            return None
        return folder_trust(folder)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "allow_folder":  # only offered for a project folder not allowed as it is
            trust = self.folder_trust()
            return trust is not None and trust.folder.is_project and trust.state != ALLOWED
        return True

    def action_allow_folder(self) -> None:
        trust = self.folder_trust()
        if trust is None or not trust.folder.is_project or trust.state == ALLOWED or self._refused():
            return
        path = trust.folder.path
        self.app.push_screen(
            ConfirmScreen("Allow this project's memory folder?", allow_folder_question(path),
                          yes="Allow it"),
            lambda yes: yes and self.with_key(lambda: self._allow(path)),
        )

    def _allow(self, path: Path) -> None:
        try:
            allow_folder(path, now=self._timestamp())
        except (FolderNotAllowable, OSError) as exc:
            self.notify(str(exc), title="Not allowed", severity="error", timeout=12)
            return
        self.notify(f"Allowed {path}: its memory and approved rules now reach your agents.")
        self.refresh_rules()
        self.refresh_bindings()

