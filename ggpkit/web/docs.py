"""The API's documentation pages, served from packaged assets so they work offline.

FastAPI's default ``/docs`` page loads Swagger UI from a CDN: blank without a
network. Here the page loads the same files from the ``fastapi-offline`` package
(a Swagger UI recent enough for OpenAPI 3.1, which FastAPI writes), mounted under
``/docs-assets``; the site's icon is served too.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/docs-assets"
FAVICON = Path(__file__).parent / "static" / "favicon.svg"
SWAGGER_FILES = Path(str(resources.files("fastapi_offline") / "static"))


def add_docs(app: FastAPI) -> None:
    """``/docs`` (Swagger UI from local files) and ``/favicon.ico`` on ``app``."""
    app.mount(ASSETS, StaticFiles(directory=SWAGGER_FILES), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title}: API",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url="/favicon.ico",
        )

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(FAVICON, media_type="image/svg+xml")
