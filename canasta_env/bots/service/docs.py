"""The API documentation pages, offline: ``/docs`` (Swagger UI) and ``/redoc`` with their
files from the installed ``fastapi-offline`` package under :data:`DOCS_ASSETS`, never a
CDN, and ``/favicon.ico``. Both pages carry a Content-Security-Policy that lets the
browser load nothing from elsewhere (ReDoc's sidebar would fetch its maker's logo)."""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

#: the Swagger UI / ReDoc files shipped in the fastapi-offline package
ASSETS = Path(fastapi_offline.__file__).resolve().parent / "static"
#: where those files are served
DOCS_ASSETS = "/docs-assets"
#: the service's icon (the browser tab of the card table and of the API docs)
FAVICON = Path(__file__).resolve().parent / "favicon.svg"
#: the docs pages load only the service's own files (inline script and styles: the
#: pages' own set-up; blob: workers: ReDoc's search)
DOCS_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self' 'unsafe-inline'; "
                               "style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
                               "font-src 'self' data:; worker-src 'self' blob:; "
                               "connect-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
}


def add_docs(app: FastAPI) -> None:
    """Add ``/docs``, ``/docs/oauth2-redirect``, ``/redoc``, ``/favicon.ico`` and the
    docs' files to ``app`` (made with ``docs_url=None, redoc_url=None``); none of them is
    in the OpenAPI schema."""
    app.mount(DOCS_ASSETS, StaticFiles(directory=ASSETS), name="docs-assets")

    def page(response: HTMLResponse) -> HTMLResponse:
        response.headers.update(DOCS_HEADERS)
        return response

    @app.get("/docs", include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return page(get_swagger_ui_html(
            openapi_url=app.openapi_url, title=f"{app.title} - Swagger UI",
            oauth2_redirect_url="/docs/oauth2-redirect",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css", swagger_favicon_url="/favicon.ico",
            # Swagger UI's online validator badge would call out
            swagger_ui_parameters={"validatorUrl": None}))

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    def swagger_ui_redirect() -> HTMLResponse:
        return page(get_swagger_ui_oauth2_redirect_html())

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        return page(get_redoc_html(
            openapi_url=app.openapi_url, title=f"{app.title} - ReDoc",
            redoc_js_url=f"{DOCS_ASSETS}/redoc.standalone.js", redoc_favicon_url="/favicon.ico",
            with_google_fonts=False))

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> FileResponse:
        return FileResponse(FAVICON, media_type="image/svg+xml",
                            headers={"Cache-Control": "max-age=86400"})


__all__ = ["add_docs", "DOCS_ASSETS", "FAVICON", "ASSETS"]
