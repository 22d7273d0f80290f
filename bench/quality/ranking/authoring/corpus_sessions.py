"""What work happened in each real session of the corpus (``tests/data/corpus``), read from the
logs themselves. Subagents are listed under their parent's id: the scorer credits a subagent's
hit to the parent session, the one a user resumes."""

from __future__ import annotations

CORPUS_SESSIONS: dict[str, tuple[str, str]] = {
    "7acd37a8-2745-4b58-a8a9-46164b22ad9e": (
        "claude-code",
        "JSSoundRecorder: /init wrote CLAUDE.md; after config.ru was deleted, chose Vite with a package.json "
        "(pnpm install, pnpm dev) as a cross-platform dev server; modernised the Web Audio APIs (Promise "
        "getUserMedia, vendor prefixes removed); migrated ScriptProcessor to AudioWorklet "
        "(recorder-worklet.js, noise-worklet.js). Warm-up subagents agent-3430b97e, agent-388fb764, "
        "agent-88061e52, agent-8d27fe83 only greet.",
    ),
    "fe869ecb-c176-478f-9734-7e4b8ef12cff": (
        "claude-code",
        "claude-code-log: added a GitHub Action (.github/workflows/ci.yml) for tests, ruff lint and format, "
        "tested locally with act (act -l, act --container-architecture linux/amd64 -j test); ran on all "
        "pushes; fixed pyright type errors in converter.py with cast().",
    ),
    "326189cf-5676-4237-8cde-1ce80aae4a9f": (
        "claude-code",
        "claude-code-log: fixed the ty type checker's complaints in test/test_cache.py (uv run ty check): a "
        "possibly-unbound-attribute on cached_data.version and a call-non-callable on pytest.skip().",
    ),
    "4379d1bf-ccb1-414e-a856-9791b73f3af2": (
        "claude-code",
        "danieldemmel.me-next: added margin-bottom to closed <details> elements in public/tokenizer.css "
        "(details:not([open])).",
    ),
    "3680252d-d4e3-4416-bddd-8f5b5b4fdb7f": (
        "claude-code", "danieldemmel.me-next: only summaries of earlier sessions and a /model command.",
    ),
    "4e27c414-a885-46a0-b5c8-d58e1417377d": ("claude-code", "a summary line only (TUI cache handling)."),
    "5c0375b4-57a5-4f26-b12d-d022ee4e51b7": (
        "claude-code",
        "Demo (Japanese prompt): /orchestrator updated CLAUDE.md to the latest state; subagents analysed "
        "package.json (Next.js 15.5.2, React 19.1.0, Tailwind v4) and the project structure (duplicated "
        "components at root and in todo-app); reply in Japanese.",
    ),
    "29ccd257-68b1-427f-ae5f-6524b7cb6f20": (
        "claude-code",
        "claude_p: an Explore subagent on Haiku (agent-a2271d1) gave an overview of the claude-code-log "
        "code organisation (converter, renderer, cache, templates, migrations, TUI).",
    ),
    "ef958aa1-0e93-49f0-bb71-150f63befcd1": (
        "claude-code",
        "worktrees experiment: three teammates (alice, bob, carol) in their own git worktrees researched "
        "plan mode (EnterPlanMode/ExitPlanMode), teammates (TaskCreate/SendMessage) and Steve Yegge's Beads; "
        "merged with git merge --no-ff; round 2 added Comparison sections after SendMessage failed to "
        "resume terminated agents. Subagents agent-a4ca…, agent-a528…, agent-ab1e…, agent-a36e…, "
        "agent-aef0…, agent-a6aa….",
    ),
    "06090cb1-3e64-433a-bc7e-a621c0f596d2": ("claude-code", "redacted upstream: no readable content."),
    "019a93b9-f380-7600-98ff-940e6b99603c": (
        "codex",
        "chatbot-ui: finished switching the local provider from Ollama to LM Studio (handleLocalChat, "
        "fetchChatResponse in components/chat/chat-helpers/index.ts; streaming SSE parsing, "
        "eventsource-parser, NEXT_PUBLIC_LMSTUDIO_URL).",
    ),
    "019e9625-802f-7e91-840a-cfe88d14117a": ("codex", "redacted upstream: no readable content."),
    "019e963d-6bd6-7ade-8a49-256ac3391bdd": ("pi", "redacted upstream: no readable content."),
    "d703a1a9-1b7b-4fb1-b512-c9738b1fe617": (
        "pi",
        "pi-mono themes: ported user-message-selector.ts to the theme system, removed chalk, thinking-level "
        "border tokens, truncated-text width bug, theme invalidation, VS Code vs Ghostty colours (truecolor, "
        "rgb values instead of 256-colour indices), dark/light theme colours, footer context-usage warning, "
        "custom themes with a file watcher (live edit), invalid themes must not crash (Invalid hex color), "
        "toolTitle/toolOutput tokens, README/CHANGELOG, release.",
    ),
    "ffae836b-9420-4060-ac13-7745215f90ff": (
        "pi",
        "pi-mono refactor: analysed main.ts and tui-renderer.ts, planned AgentSession in "
        "coding-agent/docs/refactor.md, implemented it with main-new/cli-new beside the old code, moved "
        "files (core/tools, modes/interactive), fixed an ENOENT path problem, de-duplicated "
        "interactive-mode.ts (showSelector), split main-new.ts, queued bash messages "
        "(pendingMessageContainer). A branch of an earlier session.",
    ),
    "5fd1e58c-9635-410e-a644-133a96057c90": (
        "pi",
        "pi-mono docs: system prompt documentation section, theme.md checked against the source, defined "
        "skills (skills.md) vs hooks (hooks.md) vs custom tools (custom-tools.md), ToolResultMessage type "
        "change (npm run check, CHANGELOG), README sections (API Keys & OAuth, settings), and a little poem.",
    ),
}
