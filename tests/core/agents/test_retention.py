"""Claude Code deletes transcripts ``cleanupPeriodDays`` after their last activity (30 by
default). ``threadback doctor`` says, per agent, what retention is configured and whether the
archive holds every log about to go; the index summary warns when it does not; ``doctor`` raises
the retention only with consent, writing the settings file as ``hooks install`` does; and a
session Claude Code deleted, restored from the archive, resumes in its agent (a stand-in
``claude`` on ``PATH`` that looks where Claude Code looks).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from indexer import Index
from indexer.agents.retention import (
    CLAUDE_DEFAULT_DAYS,
    DAY,
    check_retention,
    claude_code_retention,
    raise_retention,
)
from indexer.agents.settings import SettingsError
from indexer.config import load_roots
from indexer.util.fileio import ChangedOnDiskError
from indexer.ingest.discover import discover
from indexer.sources import BY_NAME

from agent_logs import claude_session
from cli_process import threadback

NOW = time.time()  # the commands read the clock: the logs' ages are set from it
CLAUDE = BY_NAME["claude-code"]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home with Claude Code's folder, two sessions: one idle 40 days (due), one from today."""
    projects = tmp_path / ".claude" / "projects"
    old = claude_session(projects, "0ld5e551-0000-4000-8000-000000000001", "shop", ["rename the checkout flag", "done"])
    new = claude_session(projects, "4e75e551-0000-4000-8000-000000000002", "shop", ["add a coupon field", "ok"])
    os.utime(old, (NOW - 40 * DAY, NOW - 40 * DAY))
    os.utime(new, (NOW - 3600, NOW - 3600))
    return tmp_path


def env_of(home: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(home), "THREADBACK_HOME": str(home / "tb"), "THREADBACK_CONFIG": str(home / "tb.toml"),
            "CLAUDE_CONFIG_DIR": str(home / ".claude"), **extra}


def claude_logs(home: Path):
    roots = load_roots(overrides={"claude-code": [str(home / ".claude" / "projects")]}, config_file=home / "none")
    return [(path, st) for agent, path, st in discover(roots, []) if agent == "claude-code"]


# -- what Claude Code is configured with ----------------------------------------------------------
def test_the_retention_is_read_from_claude_codes_settings(tmp_path: Path):
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path)}
    assert claude_code_retention(env).days == CLAUDE_DEFAULT_DAYS and claude_code_retention(env).default
    (tmp_path / "settings.json").write_text('{"cleanupPeriodDays": 365, "model": "opus"}')
    assert claude_code_retention(env).days == 365 and not claude_code_retention(env).default
    (tmp_path / "settings.json").write_text('{"cleanupPeriodDays": "forever"}')
    odd = claude_code_retention(env)
    assert odd.days == CLAUDE_DEFAULT_DAYS and "not a number of days" in odd.problem
    (tmp_path / "settings.json").write_text('{"cleanupPeriodDays": ')
    broken = claude_code_retention(env)
    assert broken.days == CLAUDE_DEFAULT_DAYS and "not valid JSON" in broken.problem


# -- whether the archive holds what goes ----------------------------------------------------------
def test_a_log_due_for_deletion_is_at_risk_until_the_archive_holds_it(home: Path, monkeypatch):
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    retention = claude_code_retention()
    before = check_retention(CLAUDE, retention, claude_logs(home), None, archive_on=True, now=NOW)
    assert before.due == 1 and [r.reason for r in before.at_risk] == ["not indexed"]
    assert "does not hold" in before.warning()
    index = Index(home / "tb" / "index.sqlite3")
    index.update(load_roots(overrides={"claude-code": [str(home / ".claude" / "projects")]},
                            config_file=home / "none"), now=NOW, archive=True)
    after = check_retention(CLAUDE, retention, claude_logs(home), index.conn, archive_on=True, now=NOW)
    assert after.due == 1 and after.at_risk == () and after.warning() is None
    off = check_retention(CLAUDE, retention, claude_logs(home), index.conn, archive_on=False, now=NOW)
    assert "archive is off" in off.warning()
    index.close()


def test_an_agent_that_keeps_its_logs_is_never_at_risk(home: Path):
    codex = BY_NAME["codex"]
    from indexer.agents.retention import retention_of

    check = check_retention(codex, retention_of(codex), claude_logs(home), None, archive_on=False, now=NOW)
    assert check.retention.days is None and check.warning() is None and check.safe


# -- raising it ------------------------------------------------------------------------------------
def test_raising_keeps_every_other_setting_and_a_backup(tmp_path: Path):
    settings = tmp_path / "settings.json"
    settings.write_text('{\n    "model": "opus",\n    "hooks": {}\n}\n')
    retention = claude_code_retention({"CLAUDE_CONFIG_DIR": str(tmp_path)})
    raised = raise_retention(retention, 400)
    assert json.loads(settings.read_text()) == {"model": "opus", "hooks": {}, "cleanupPeriodDays": 400}
    assert settings.read_text().startswith('{\n    "model"')  # its indentation kept
    assert raised.backup and "cleanupPeriodDays" not in raised.backup.read_text()
    with pytest.raises(SettingsError, match="would not raise"):
        raise_retention(claude_code_retention({"CLAUDE_CONFIG_DIR": str(tmp_path)}), 10)


def test_a_settings_file_changed_meanwhile_is_not_overwritten(tmp_path: Path, monkeypatch):
    settings = tmp_path / "settings.json"
    settings.write_text('{"model": "opus"}\n')
    retention = claude_code_retention({"CLAUDE_CONFIG_DIR": str(tmp_path)})
    from indexer.agents import config_files

    real_load = config_files.load_json

    def load_then_someone_writes(path):
        document = real_load(path)
        settings.write_text('{"model": "sonnet", "theme": "dark"}\n')
        return document

    monkeypatch.setattr("indexer.agents.retention.load_json", load_then_someone_writes)
    with pytest.raises(ChangedOnDiskError):
        raise_retention(retention, 400)
    assert json.loads(settings.read_text()) == {"model": "sonnet", "theme": "dark"}


# -- the commands, as a person runs them ----------------------------------------------------------
def test_doctor_reports_each_agent_and_the_index_warns(home: Path):
    (home / "tb.toml").write_text("[archive]\nenabled = false\n")
    indexed = threadback("index", **env_of(home))
    assert indexed.returncode == 0, indexed.stderr
    assert "Claude Code deletes logs after 30 days and the archive is off" in indexed.stderr
    doctor = threadback("doctor", "--json", **env_of(home))
    assert doctor.returncode == 0, doctor.stderr
    report = {entry["agent"]: entry for entry in json.loads(doctor.stdout)}
    assert set(BY_NAME) <= set(report)
    claude = report["claude-code"]
    assert claude["retention_days"] == 30 and claude["retention_default"] and claude["logs"] == 2
    assert claude["due"] == 1 and [r["reason"] for r in claude["at_risk"]] == ["not in the archive"]
    assert report["codex"]["retention_days"] is None and report["codex"]["warning"] is None

    (home / "tb.toml").write_text("")  # the archive back on: the next run copies the log
    assert "warning" not in threadback("index", **env_of(home)).stderr
    assert json.loads(threadback("doctor", "--json", **env_of(home)).stdout)[0]["at_risk"] == []


def test_doctor_raises_the_retention_only_when_told_to(home: Path):
    settings = home / ".claude" / "settings.json"
    settings.write_text('{"model": "opus"}\n')
    asked = threadback("doctor", "--raise-retention", "365", **env_of(home))
    assert asked.returncode == 5 and "asks you first" in asked.stderr
    assert json.loads(settings.read_text()) == {"model": "opus"}
    done = threadback("doctor", "--raise-retention", "365", "--yes", **env_of(home))
    assert done.returncode == 0, done.stderr
    assert json.loads(settings.read_text()) == {"model": "opus", "cleanupPeriodDays": 365}
    assert "deletes logs 365 days" in threadback("doctor", **env_of(home)).stdout


STAND_IN_CLAUDE = """#!{python}
# Looks for the session where Claude Code does: $CLAUDE_CONFIG_DIR/projects/<folder>/<id>.jsonl
import glob, json, os, sys
session = sys.argv[sys.argv.index("--resume") + 1]
found = glob.glob(os.path.join(os.environ["CLAUDE_CONFIG_DIR"], "projects", "*", session + ".jsonl"))
if not found:
    print("No conversation found with session ID: " + session, file=sys.stderr)
    sys.exit(1)
with open(found[0]) as fh:
    first = json.loads(fh.readline())
with open({record!r}, "w") as out:
    json.dump({{"file": found[0], "cwd": os.getcwd(), "session": first["sessionId"]}}, out)
"""


def test_a_session_claude_code_deleted_resumes_after_a_restore(home: Path):
    session = "0ld5e551-0000-4000-8000-000000000001"
    env = env_of(home)
    log = home / ".claude" / "projects" / "-w-shop" / f"{session}.jsonl"
    log.write_bytes(log.read_bytes().replace(b'"/w/shop"', json.dumps(str(home / "w" / "shop")).encode()))
    assert threadback("index", **env).returncode == 0
    original = log.read_bytes()
    log.unlink()  # Claude Code's cleanup, 30 days on
    (home / "w" / "shop").mkdir(parents=True)
    bin_dir = home / "bin"
    bin_dir.mkdir()
    record = home / "resumed.json"
    (bin_dir / "claude").write_text(STAND_IN_CLAUDE.format(python=sys.executable, record=str(record)))
    (bin_dir / "claude").chmod(0o755)
    path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"

    gone = threadback("resume", session, "--exec", PATH=path, **env)
    assert gone.returncode != 0 and not record.exists()

    restored = threadback("restore", session, **env)
    assert restored.returncode == 0, restored.stderr
    assert log.read_bytes() == original
    resumed = threadback("resume", session, "--exec", PATH=path, **env)
    ran = json.loads(record.read_text()) if record.exists() else None
    assert ran is not None, resumed.stderr + resumed.stdout
    assert ran["file"] == str(log) and ran["session"] == session
    assert Path(ran["cwd"]).resolve() == (home / "w" / "shop").resolve()


async def test_the_apps_status_line_warns_of_logs_about_to_go(home: Path, monkeypatch):
    from indexer import only_roots
    from tui.widgets.status_bar import StatusBar

    from tui_fixtures import SIZE, app_for, settle

    (home / "tb.toml").write_text("[archive]\nenabled = false\n")
    monkeypatch.setenv("THREADBACK_CONFIG", str(home / "tb.toml"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(home / ".claude"))
    roots = only_roots({"claude-code": [home / ".claude" / "projects"]})
    app = app_for(home / "index.sqlite3", roots, refresh_on_start=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        line = str(app.screen.query_one(StatusBar).query_one("#status-text").render())
        assert "Claude Code deletes logs after 30 days and the archive is off" in line


def test_doctor_at_a_terminal_offers_the_raise_and_takes_only_yes(home: Path):
    from cli_process import cli_env
    from test_rules_cli import PtyChild

    settings = home / ".claude" / "settings.json"
    settings.write_text('{"model": "opus"}\n')
    (home / "tb.toml").write_text("[archive]\nenabled = false\n")  # logs at risk: doctor offers
    declined = PtyChild(["doctor"], cli_env(**env_of(home)))
    declined.read_until("Raise Claude Code's log retention from 30 to 3650 days")
    declined.send("yes please")  # anything but y leaves it
    declined.read_until("left unchanged")
    assert declined.wait() == 0
    assert json.loads(settings.read_text()) == {"model": "opus"}
    accepted = PtyChild(["doctor"], cli_env(**env_of(home)))
    accepted.read_until("[y/N]")
    accepted.send("y")
    accepted.read_until("now keeps logs 3650 days")
    assert accepted.wait() == 0
    assert json.loads(settings.read_text()) == {"model": "opus", "cleanupPeriodDays": 3650}
