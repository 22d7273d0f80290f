"""What "this project" means for the folder Threadback was started in: the git repository that
holds it (its root, and every folder under it), or else that folder alone.

A session belongs to a project by its working folder (``Session.project_path``), so the scope is
a path compared exactly, never a substring of a name: started from ``~/work`` it is not every
project whose path happens to contain "work".
"""

from __future__ import annotations

# ``pathlib`` is imported
# where a path is worked out: a search loads this module but no ``pathlib`` (~4 ms with
# ``urllib.parse`` and ``ipaddress``).

from typing import NamedTuple

from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from pathlib import Path


class ProjectScope(NamedTuple):
    """The sessions of one project: those whose folder is ``path`` or, with
    ``include_subfolders``, anywhere under it."""

    path: str
    include_subfolders: bool = False

    @property
    def name(self) -> str:
        """The folder's own name, for labels (``threadback`` for ``/home/me/src/threadback``)."""
        from pathlib import PurePosixPath

        return PurePosixPath(self.path).name or self.path

    @property
    def subfolder_prefix(self) -> str:
        """What the path of a folder under ``path`` starts with."""
        return self.path.rstrip("/") + "/"

    def contains(self, project_path: str | None) -> bool:
        if project_path is None:
            return False
        if project_path == self.path:
            return True
        return self.include_subfolders and project_path.startswith(self.subfolder_prefix)


def repository_root(folder: "Path", home: "Path | None" = None) -> "Path | None":
    """The nearest folder at or above ``folder`` that holds ``.git`` (a folder, or the file a
    git worktree has); None outside a repository. Reads the file system only, runs no git.

    A repository at the home folder itself (dotfiles) is no project: every project would be
    under it."""
    from pathlib import Path

    home = Path.home() if home is None else home
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return None if candidate == home else candidate
    return None


def project_scope_of(cwd: "Path", home: "Path | None" = None) -> ProjectScope:
    """The repository holding ``cwd`` with what is under it, else ``cwd`` alone."""
    from pathlib import Path

    folder = Path(cwd).absolute()
    root = repository_root(folder, home)
    if root is not None:
        return ProjectScope(str(root), include_subfolders=True)
    return ProjectScope(str(folder))
