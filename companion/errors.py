"""The app's error taxonomy."""

from __future__ import annotations


class CompanionError(Exception):
    """Base of every error the app raises on purpose."""


class StorageError(CompanionError):
    """The game database cannot be read or written as asked."""


class ServiceUnavailableError(CompanionError):
    """A service the app wanted (engine part, vision, roller) is not installed or failed to start."""
