"""Developer tools for the app (translations)."""
