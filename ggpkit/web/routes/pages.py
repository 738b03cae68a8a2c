"""The pages: the single-page front end (``/``) and its static files (``/static``).

The API's own documentation (``/docs``) is added by :func:`ggpkit.web.docs.add_docs`.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

STATIC_DIR = Path(str(resources.files("ggpkit.web") / "static"))

router = APIRouter()


@router.get("/", include_in_schema=False)
def index() -> FileResponse:
    return FileResponse(STATIC_DIR / "index.html")
