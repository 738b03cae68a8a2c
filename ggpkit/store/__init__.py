"""The embedded SQLite match store."""
