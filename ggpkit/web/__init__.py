"""The web app (ASGI) over the library."""
