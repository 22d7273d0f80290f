"""Queries about the real sessions in tests/data/corpus (and the demo, a subset of it), written
from a one-line memory of each. ``session`` is a prefix of the session id."""

QUERIES = [
    # JSSoundRecorder: reviving a decade-old web audio recorder, vite, AudioWorklet
    ("7acd37a8", "exact", "Migrate to AudioWorklet"),
    ("7acd37a8", "exact", "pick it up again and fix the broken APIs"),
    ("7acd37a8", "paraphrase", "reviving my old browser sound recorder project after ten years"),
    ("7acd37a8", "typo", "audioworklet migrtion recorder"),
    ("7acd37a8", "wrong-detail", "switch the recorder to webpack cross platform"),
    ("7acd37a8", "cross-language", "録音アプリをAudioWorkletに移行"),
    # chatbot-ui: LM Studio instead of Ollama
    ("019a93b9", "exact", "use lmstudio instead of their initial implementatiion of ollama"),
    ("019a93b9", "paraphrase", "chatbot ui pointed at lm studio rather than ollama"),
    ("019a93b9", "typo", "chatbot-ui lmstuido olama endpoints"),
    ("019a93b9", "cross-language", "把聊天界面从 ollama 换成 lmstudio"),
    # danieldemmel.me: margin on closed <details>
    ("4379d1bf", "exact", "add margin-bottom to the details element"),
    ("4379d1bf", "paraphrase", "spacing under the collapsed details block on my site"),
    ("4379d1bf", "wrong-detail", "padding-bottom details element when closed"),
    # claude-code-log: GitHub Action for tests and linting, tested with act
    ("fe869ecb", "exact", "add a Github Action to run tests and linting"),
    ("fe869ecb", "paraphrase", "set up CI workflow for tests and lint, try it locally with act"),
    ("fe869ecb", "typo", "github acton linting tets act"),
    # pi-mono refactor: AgentSession, refactor.md plan
    ("ffae836b", "exact", "AgentSession looks like a good idea"),
    ("ffae836b", "paraphrase", "untangle main.ts and the tui renderer into an agent session class"),
    ("ffae836b", "exact", "coding-agent/docs/refactor.md"),
    ("ffae836b", "typo", "agentsesion refactr plan"),
    # pi-mono themes: theme.md, chalk, tui test themes
    ("d703a1a9", "exact", "removed almost all chalk uses"),
    ("d703a1a9", "paraphrase", "port the selectors to the theme system and drop chalk"),
    ("d703a1a9", "wrong-detail", "themes for selectlist editor markdown in the tui tests"),
    # pi-mono skills: what a skill is, SKILL.md
    ("5fd1e58c", "exact", "better define what a fucking skill is"),
    ("5fd1e58c", "paraphrase", "clone the anthropic skills repo and compare"),
    ("5fd1e58c", "typo", "open the syspormpt file"),
    # Demo (Japanese): update CLAUDE.md via the orchestrator command
    ("5c0375b4", "exact", "CLAUDE.md を最新の状態にアップデートしてください"),
    ("5c0375b4", "cjk-sentence", "CLAUDEmdを最新にアップデート"),
    ("5c0375b4", "cross-language", "orchestrator update CLAUDE.md to the latest state"),
    # worktrees experiment: teammates research, Beads
    ("agent-ab1e6e", "exact", "Research Steve Yegge Beads"),
    ("agent-ab1e6e", "paraphrase", "look into yegge's beads issue tracker for agents"),
    ("agent-a4ca75", "exact", "Research Claude Code plan mode"),
    ("ef958aa1", "paraphrase", "experiment where subagents split a task list, were they stuck"),
    # claude_p: Explore subagents with Haiku for a code overview
    ("29ccd257", "exact", "Use the Explore task in sub-agents with Haiku model"),
    ("29ccd257", "paraphrase", "ask haiku explorers for an overview of the claude-code-log codebase"),
]
