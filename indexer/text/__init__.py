"""Text as the core handles it: made safe to show, clipped, folded (Traditional to
Simplified), split into words and CJK runs, secrets found, ages written."""
