"""Plain-Python presenters: all of the app's behaviour, driven by tests without a window."""
