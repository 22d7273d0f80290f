"""How the app shows untrusted log text, times and messages (Rich renderables, no widgets)."""
