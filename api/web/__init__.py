"""The web app served by the API: pages at ``/``, offline API docs at ``/docs`` and ``/redoc``.

Pages are server-rendered HTML shells with small vanilla JavaScript (``static/app.js``) that
call the same ``/v1`` API as every client; a browser signs in once with an API key and is then
known by an HTTP-only session cookie (``session.py``), which ``api.deps.current_key`` accepts
in place of ``Authorization: Bearer``. Nothing is loaded from outside the package.
"""

from api.web.routes import router

__all__ = ["router"]
