"""Writing a user's file that is a symbolic link: a link to a file in the same folder (a memory
folder may hold one; the allow check accepts it) is written through and stays a link; any other
link is replaced by the new file and kept as the ``.bak`` itself, its target never written nor
copied beside it."""

from __future__ import annotations

import os
from pathlib import Path

from indexer.util.fileio import FileStamp, atomic_write_bytes, backup_path

from cli_process import threadback


def test_a_link_inside_the_folder_is_written_through(tmp_path):
    (tmp_path / "pad.md").write_bytes(b"- [ ] one\n")
    link = tmp_path / "scratchpad.md"
    link.symlink_to("pad.md")
    stamp = atomic_write_bytes(link, b"- [x] one\n", expect=FileStamp.of(link))
    assert link.is_symlink() and os.readlink(link) == "pad.md"
    assert (tmp_path / "pad.md").read_bytes() == b"- [x] one\n"
    assert (tmp_path / "pad.md.bak").read_bytes() == b"- [ ] one\n"
    atomic_write_bytes(link, b"- [x] one\n- [ ] two\n", expect=stamp)  # its stamp fits the next write


def test_memory_commands_keep_a_linked_file_a_link(tmp_path):
    folder = tmp_path / "mem"
    folder.mkdir()
    (folder / "my-facts.yml").write_text("name: Al\nstyle: terse\n")
    (folder / "fact.yml").symlink_to("my-facts.yml")
    (folder / "pad.md").write_text("- [ ] ship it\n")
    (folder / "scratchpad.md").symlink_to("pad.md")
    for argv in (["archive", "style"], ["promote", "1"]):
        proc = threadback("memory", "--memory-dir", str(folder), *argv)
        assert proc.returncode == 0, proc.stderr
    assert (folder / "fact.yml").is_symlink() and (folder / "scratchpad.md").is_symlink()
    assert "archived: true" in (folder / "my-facts.yml").read_text()
    assert (folder / "pad.md").read_text().startswith("- [x] ship it (→ ep-")


def outside_link(tmp_path: Path) -> tuple[Path, Path]:
    secret = tmp_path / "elsewhere" / "id_rsa"
    secret.parent.mkdir()
    secret.write_bytes(b"PRIVATE KEY\n")
    folder = tmp_path / "repo" / "memory"
    folder.mkdir(parents=True)
    link = folder / "scratchpad.md"
    link.symlink_to(secret)
    return secret, link


def test_a_link_leading_out_of_the_folder_is_replaced_never_written_through(tmp_path):
    secret, link = outside_link(tmp_path)
    atomic_write_bytes(link, b"- [ ] mine\n", expect=FileStamp.of(link))
    assert secret.read_bytes() == b"PRIVATE KEY\n"
    assert not link.is_symlink() and link.read_bytes() == b"- [ ] mine\n"
    bak = backup_path(link)
    assert bak.is_symlink() and Path(os.readlink(bak)) == secret  # the link kept, not its target


def test_the_backup_of_a_link_is_never_its_target(tmp_path):
    secret, link = outside_link(tmp_path)
    atomic_write_bytes(link, b"- [ ] mine\n")  # no expect: the plain replace
    bak = backup_path(link)
    assert bak.is_symlink() and bak.lstat().st_ino != secret.stat().st_ino  # no hard link to the key
    assert secret.read_bytes() == b"PRIVATE KEY\n" and link.read_bytes() == b"- [ ] mine\n"
